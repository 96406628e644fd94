import { describe, expect, it } from "vitest";
import { parseAmountToCents } from "./money";
import { parseTimeOfDay } from "./time";

describe("parseAmountToCents", () => {
  it.each([
    ["25", 2500],
    ["25.5", 2550],
    ["0.99", 99],
    ["1,50", 150],
  ])("%s → %i cents", (input, cents) => expect(parseAmountToCents(input)).toBe(cents));
  it.each(["", "abc", "-5", "1.999", "99999999"])("refuses %j", (input) => expect(parseAmountToCents(input)).toBeNull());
});

describe("parseTimeOfDay", () => {
  it("reads 24-hour times", () => {
    expect(parseTimeOfDay("09:30")).toBe(570);
    expect(parseTimeOfDay("24:00")).toBe(1440);
  });
  it.each(["9:30", "25:00", "12:60", "24:30", "noon"])("refuses %s", (input) => expect(parseTimeOfDay(input)).toBeNull());
});
