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

  it("reads a whole megabyte in a few milliseconds of CPU", () => {
    const longest = Buffer.from(JSON.stringify({ text: "[{,".repeat(340_000) }));
    jsonShapeProblem(longest);
    const before = process.cpuUsage();
    expect(jsonShapeProblem(longest)).toBeNull();
    expect(jsonShapeProblem(Buffer.from("[".repeat(512 * 1024) + "]".repeat(512 * 1024)))).toBe("too-deep");
    const used = process.cpuUsage(before);
    expect((used.user + used.system) / 1000).toBeLessThan(50);
  });
});
