import { describe, expect, it } from "vitest";
import { isCalendarDate, safeText } from "./validation";

describe("isCalendarDate", () => {
  it("knows which days exist", () => {
    expect(isCalendarDate("2026-02-28")).toBe(true);
    expect(isCalendarDate("2028-02-29")).toBe(true);
    expect(isCalendarDate("2026-02-31")).toBe(false);
    expect(isCalendarDate("2026-13-01")).toBe(false);
    expect(isCalendarDate("26-1-1")).toBe(false);
  });
});

describe("safeText", () => {
  const schema = safeText({ tooLong: "long", invalid: "invalid" }, 10);
  it("keeps emoji, right-to-left text and line breaks, trimmed", () => {
    expect(schema.parse(" 😀 مرحبا\n ")).toBe("😀 مرحبا");
  });
  it("refuses NUL and over-long text with a message", () => {
    expect(schema.safeParse("a\u0000b").error?.issues[0]?.message).toBe("invalid");
    expect(schema.safeParse("x".repeat(11)).error?.issues[0]?.message).toBe("long");
  });
});
