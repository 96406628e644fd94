import { describe, expect, it } from "vitest";
import { rememberedValues } from "./remembered";

describe("remembered values", () => {
  it("make each key's value once, and start again once the bound is reached", () => {
    let made = 0;
    const remembered = rememberedValues<string>(2);
    const value = (key: string) => remembered(key, () => `${key}:${++made}`);
    expect([value("a"), value("a"), value("b"), value("b")]).toEqual(["a:1", "a:1", "b:2", "b:2"]);
    // A third key empties the memo: "a" is made again.
    expect([value("c"), value("a")]).toEqual(["c:3", "a:4"]);
  });
});
