import { describe, expect, it } from "vitest";
import { batchedCalls } from "./coalesce";

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

  it("runs a batch as soon as it holds maxItems, and the rest in the next", async () => {
    const batches: number[][] = [];
    const echo = batchedCalls(
      async (items: number[]) => {
        batches.push(items);
        return items;
      },
      { maxItems: 2 },
    );
    await expect(Promise.all([echo(1), echo(2), echo(3), echo(4), echo(5)])).resolves.toEqual([1, 2, 3, 4, 5]);
    expect(batches).toEqual([[1, 2], [3, 4], [5]]);
  });

  it("holds the items asked for while a batch runs, and sends them together once it is done", async () => {
    const batches: number[][] = [];
    let finishFirst: () => void = () => {};
    const echo = batchedCalls(async (items: number[]) => {
      batches.push(items);
      if (batches.length === 1) await new Promise<void>((resolve) => (finishFirst = resolve));
      return items;
    });
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const first = echo(1);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    // Asked for in two later turns, while the first batch is still running.
    const second = echo(2);
    await nextTurn();
    const third = echo(3);
    await nextTurn();
    expect(batches).toEqual([[1]]);
    finishFirst();
    await expect(Promise.all([first, second, third])).resolves.toEqual([1, 2, 3]);
    expect(batches).toEqual([[1], [2, 3]]);
  });
});
