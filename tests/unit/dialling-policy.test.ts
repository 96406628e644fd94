import { describe, expect, it } from "vitest";
import { allowedCountries, classifyNumber } from "~/features/calls/dialling-policy.server";

const countries = allowedCountries("US,CA,GB,DE,SA,AE");

describe("dialling policy classification", () => {
  it("accepts an ordinary number in an allowed country", () => {
    expect(classifyNumber("+12125550100", countries)).toEqual({ ok: true, e164: "+12125550100", country: "US" });
    expect(classifyNumber("+966501234567", countries)).toMatchObject({ ok: true, country: "SA" });
  });

  it("refuses premium-rate +1 900 and UK 09 numbers", () => {
    expect(classifyNumber("+19002001234", countries)).toMatchObject({ ok: false, reason: "premium" });
    expect(classifyNumber("+449098790000", countries)).toMatchObject({ ok: false, reason: "premium" });
  });

  it("refuses a country outside the list, and invalid numbers", () => {
    expect(classifyNumber("+8613800138000", countries)).toMatchObject({ ok: false, reason: "country", country: "CN" });
    expect(classifyNumber("+1212", countries)).toMatchObject({ ok: false, reason: "invalid" });
  });

  it("lets a business narrow the deployment's list but never widen it", () => {
    expect(allowedCountries("US,GB", ["GB", "CN"])).toEqual(["GB"]);
    expect(allowedCountries("US,GB", null)).toEqual(["US", "GB"]);
  });
});
