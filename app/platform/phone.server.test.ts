import { describe, expect, it } from "vitest";
import { normalizePhone } from "./phone.server";

describe("normalizePhone", () => {
  it.each([
    ["(212) 555-0199", "+12125550199"],
    ["+44 20 7946 0958", "+442079460958"],
    ["0044 20 7946 0958", "+442079460958"],
    ["+966 55 123 4567", "+966551234567"],
  ])("reads %s as %s", (input, e164) => {
    expect(normalizePhone(input)).toMatchObject({ ok: true, e164 });
  });

  it("reads local numbers in the given country", () => {
    expect(normalizePhone("055 123 4567", "SA")).toMatchObject({ ok: true, e164: "+966551234567", country: "SA" });
  });

  it.each(["", "   "])("says %j is empty", (input) => {
    expect(normalizePhone(input)).toEqual({ ok: false, reason: "empty" });
  });

  it.each(["12", "call me", "+1 555", "555-0199x"])("refuses %s", (input) => {
    expect(normalizePhone(input)).toEqual({ ok: false, reason: "invalid" });
  });
});
