import { afterEach, describe, expect, it, vi } from "vitest";
import { perKey, recentAnswers } from "./per-key";

describe("perKey", () => {
  it("makes one value per key and gives the same one back, another for another key, anew once forgotten", () => {
    const make = vi.fn((key: { name: string }) => ({ of: key.name }));
    const valueOf = perKey(make);
    const a = { name: "a" };
    const b = { name: "b" };
    expect(valueOf(a)).toBe(valueOf(a));
    expect(valueOf(b)).toEqual({ of: "b" });
    expect(make).toHaveBeenCalledTimes(2);
    const first = valueOf(a);
    valueOf.forget(a);
    expect(valueOf(a)).not.toBe(first);
    expect(make).toHaveBeenCalledTimes(3);
  });
});

describe("recentAnswers", () => {
  afterEach(() => vi.useRealTimers());

  it("answers from the last check until it is too old, or when asked fresh", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    let count = 0;
    const answer = recentAnswers(60_000, async (_key: object) => ++count);
    const key = {};
    expect(await answer(key)).toBe(1);
    expect(await answer(key)).toBe(1);
    expect(await answer(key, { fresh: true })).toBe(2);
    vi.advanceTimersByTime(60_001);
    expect(await answer(key)).toBe(3);
    expect(await answer({})).toBe(4);
  });

  it("keeps nothing from a failed check", async () => {
    let fail = true;
    const answer = recentAnswers(60_000, async (_key: object) => {
      if (fail) throw new Error("provider down");
      return "ok";
    });
    const key = {};
    await expect(answer(key)).rejects.toThrow("provider down");
    fail = false;
    await expect(answer(key)).resolves.toBe("ok");
  });
});
