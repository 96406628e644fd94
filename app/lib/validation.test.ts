import { describe, expect, it } from "vitest";
import { dbId, INT4_MAX, isCalendarDate, parseDbId, safeText } from "./validation";

describe("parseDbId", () => {
  it("takes digits within PostgreSQL's integer range", () => {
    expect(parseDbId("1")).toBe(1);
    expect(parseDbId(" 42 ")).toBe(42);
    expect(parseDbId(INT4_MAX)).toBe(INT4_MAX);
  });

  it("refuses what is no id", () => {
    for (const value of ["0", "-1", "1.5", "abc", "", "2147483648", "99999999999999999999", "1e3", null, undefined, 2 ** 31]) {
      expect(parseDbId(value)).toBeNull();
    }
  });

  it("gives a field error, not an exception, in a schema", () => {
    expect(dbId("bad").safeParse("2147483648").error?.issues[0]?.message).toBe("bad");
    expect(dbId("bad").safeParse("7").data).toBe(7);
  });
});

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
