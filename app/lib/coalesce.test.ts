import { describe, expect, it } from "vitest";
import { batchedCalls, sharedWhileRunning } from "./coalesce";

describe("batchedCalls", () => {
  it("runs the items asked for in one turn together, and answers each caller with its own output", async () => {
    const batches: number[][] = [];
    const double = batchedCalls(async (items: number[]) => {
      batches.push(items);
      return items.map((item) => item * 2);
    });
    await expect(Promise.all([double(1), double(2), double(3)])).resolves.toEqual([2, 4, 6]);
    await expect(double(4)).resolves.toBe(8);
    expect(batches).toEqual([[1, 2, 3], [4]]);
  });

  it("gives every caller of a failed batch its error, and the next batch runs afresh", async () => {
    let fail = true;
    const echo = batchedCalls(async (items: string[]) => {
      if (fail) throw new Error("database gone");
      return items;
    });
    const first = Promise.allSettled([echo("a"), echo("b")]);
    expect((await first).map((result) => result.status)).toEqual(["rejected", "rejected"]);
    fail = false;
    await expect(echo("c")).resolves.toBe("c");
  });
});

describe("sharedWhileRunning", () => {
  it("gives a caller for a key already running that run's promise, and starts anew once it ended", async () => {
    const shared = sharedWhileRunning<number>();
    let starts = 0;
    let finish: (value: number) => void = () => {};
    const start = () => {
      starts++;
      return new Promise<number>((resolve) => (finish = resolve));
    };
    const first = shared("k", start);
    const second = shared("k", start);
    const other = shared("other", () => Promise.resolve(7));
    finish(1);
    await expect(Promise.all([first, second, other])).resolves.toEqual([1, 1, 7]);
    expect(starts).toBe(1);
    const third = shared("k", start);
    finish(2);
    await expect(third).resolves.toBe(2);
    expect(starts).toBe(2);
  });
});
