import { describe, expect, it } from "vitest";
import { dbId, INT4_MAX, parseDbId } from "./ids";

describe("parseDbId", () => {
  it("takes digits within PostgreSQL's integer range", () => {
    expect(parseDbId("1")).toBe(1);
    expect(parseDbId(" 42 ")).toBe(42);
    expect(parseDbId(INT4_MAX)).toBe(INT4_MAX);
  });

  it("refuses what is no id", () => {
    const values = ["0", "-1", "1.5", "abc", "", "2147483648", "9007199254740993", "1e300", "99999999999999999999", "1e3", "0x10", "+1"];
    for (const value of [...values, null, undefined, 2 ** 31, 1e300, Number.NaN, Infinity, -1, 1.5, { id: 1 }, ["1"]]) {
      expect(parseDbId(value)).toBeNull();
    }
  });

  it("gives a field error, not an exception, in a schema", () => {
    expect(dbId("bad").safeParse("2147483648").error?.issues[0]?.message).toBe("bad");
    expect(dbId("bad").safeParse("7").data).toBe(7);
  });
});
