import { describe, expect, it } from "vitest";
import { jsonShapeProblem, parseBoundedJson } from "./bounded-json.server";

describe("the bounded JSON parse", () => {
  it("parses what the app's clients and Stripe send", () => {
    const event = { id: "evt_1", data: { object: { lines: { data: [{ price: { recurring: { interval: "month" } } }] } } } };
    expect(parseBoundedJson(JSON.stringify(event))).toEqual({ ok: true, value: event });
    expect(parseBoundedJson('{"name":"[[[[{{{{ \\" ]]]]"}')).toEqual({ ok: true, value: { name: '[[[[{{{{ " ]]]]' } });
  });

  it("refuses depth past the limit and too many values, brackets and commas in strings aside", () => {
    expect(jsonShapeProblem("[".repeat(33) + "]".repeat(33))).toBe("too-deep");
    expect(jsonShapeProblem("[".repeat(32) + "]".repeat(32))).toBeNull();
    expect(jsonShapeProblem(`[${"1,".repeat(10_000)}1]`)).toBe("too-many");
    expect(jsonShapeProblem(JSON.stringify({ text: "[".repeat(5000) + ",".repeat(20_000) }))).toBeNull();
    expect(jsonShapeProblem(Buffer.from(`{"a":"é\\\\"}`))).toBeNull();
    expect(parseBoundedJson("{nope")).toEqual({ ok: false, problem: "malformed" });
  });

  it("reads a megabyte of nested arrays in a few milliseconds", () => {
    const bomb = Buffer.from("[".repeat(512 * 1024) + "]".repeat(512 * 1024));
    jsonShapeProblem(bomb);
    const started = performance.now();
    expect(jsonShapeProblem(bomb)).toBe("too-deep");
    expect(jsonShapeProblem(Buffer.from(`[${"{},".repeat(300_000)}{}]`))).toBe("too-many");
    expect(performance.now() - started).toBeLessThan(50);
  });
});
