import { describe, expect, it } from "vitest";
import { endExpectations, expectLog, isExpected } from "./console";

// The runner's own check (setup.ts) fails a test that logs a warning it did not expect. These
// tests exercise the rule itself: the afterEach hook's decision is made by these functions.
describe("the console guard", () => {
  it("treats an undeclared warning as unexpected", () => {
    expect(isExpected("warn", "Realtime session refused voice 'fable'")).toBe(false);
    expect(endExpectations()).toEqual([]);
  });

  it("lets a declared warning through and reports a declared one that never came", () => {
    expectLog("warn", /refused voice/);
    expectLog("error", /never logged/);
    expect(isExpected("warn", "Realtime session refused voice 'fable'")).toBe(true);
    expect(isExpected("error", "Realtime session refused voice 'fable'")).toBe(false);
    const missed = endExpectations();
    expect(missed.map((e) => String(e.pattern))).toEqual(["/never logged/"]);
  });

  it.fails("fails a test that logs a warning nobody expected (deliberately)", () => {
    console.warn("A deliberate, unexpected warning: this test must fail, and it.fails turns that into a pass.");
  });

  it("passes a test that logs the warning it declared", () => {
    expectLog("warn", /declared warning/);
    console.warn("A declared warning");
  });
});
