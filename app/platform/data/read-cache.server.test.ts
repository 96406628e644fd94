import { describe, expect, it } from "vitest";
import { createReadCache } from "./read-cache.server";

function counter() {
  let calls = 0;
  return {
    get calls() {
      return calls;
    },
    compute: async () => ++calls,
  };
}

describe("the read cache", () => {
  it("answers concurrent reads of one key from one computation, and recomputes after a write cleared it", async () => {
    const cache = createReadCache({ ttlMs: 1000 });
    const source = counter();
    expect(await Promise.all([cache.get("k", source.compute), cache.get("k", source.compute)])).toEqual([1, 1]);
    expect(await cache.get("k", source.compute)).toBe(1);
    expect(cache.peek("k")).toBe(1);
    cache.clear();
    expect(cache.peek("k")).toBeUndefined();
    expect(await cache.get("k", source.compute)).toBe(2);
  });

  it("never serves an answer past its time: the next readers share one fresh computation", async () => {
    let clock = 0;
    const cache = createReadCache({ ttlMs: 1000, now: () => clock });
    const source = counter();
    expect(await cache.get("k", source.compute)).toBe(1);
    clock = 999;
    expect(await cache.get("k", source.compute)).toBe(1);
    clock = 1000;
    expect(cache.peek("k")).toBeUndefined();
    expect(await Promise.all([cache.get("k", source.compute), cache.get("k", source.compute)])).toEqual([2, 2]);
    expect(source.calls).toBe(2);
    // An idle hour later, still nothing old.
    clock = 3_600_000;
    expect(await cache.get("k", source.compute)).toBe(3);
  });

  it("does not keep a failure, nor an answer computed before a clear", async () => {
    const cache = createReadCache({ ttlMs: 1000 });
    await expect(cache.get("k", () => Promise.reject(new Error("database down")))).rejects.toThrow("database down");
    expect(await cache.get("k", async () => "recovered")).toBe("recovered");

    let finish!: (value: string) => void;
    const slow = cache.get("j", () => new Promise<string>((resolve) => (finish = resolve)));
    cache.clear();
    finish("before the write");
    expect(await slow).toBe("before the write");
    expect(await cache.get("j", async () => "after the write")).toBe("after the write");
  });
});
