import { describe, expect, it } from "vitest";
import { allowedCountries, classifyNumber } from "~/calls/dialling-policy.server";

const countries = allowedCountries("US,CA,GB,DE,FR,ES,IT,SA,AE");

/** Ranges a toll fraudster asks to be called, each as the full metadata types it. */
const PREMIUM_EXAMPLES = {
  "UK personal number (070)": "+447012345678",
  "US personal communication (500)": "+15002001234",
  "US personal communication (533)": "+15332001234",
  "UK premium rate (09)": "+449098790000",
  "UK universal access (03)": "+443001234567",
  "FR premium rate (0892)": "+33892700000",
  "DE premium rate (0900)": "+499001234567",
  "DE shared cost (0180)": "+4918012345678",
  "ES premium rate (806)": "+34806123456",
  "ES shared cost (902)": "+34902123456",
  "IT premium rate (899)": "+39899123456",
  "IT shared cost (848)": "+39848123456",
  "SA shared cost (920)": "+966920012345",
};

describe("dialling policy classification", () => {
  it("accepts an ordinary number in an allowed country", () => {
    expect(classifyNumber("+12125550100", countries)).toEqual({ ok: true, e164: "+12125550100", country: "US" });
    expect(classifyNumber("+966501234567", countries)).toMatchObject({ ok: true, country: "SA" });
  });

  it("refuses premium-rate +1 900 and UK 09 numbers", () => {
    expect(classifyNumber("+19002001234", countries)).toMatchObject({ ok: false, reason: "premium" });
    expect(classifyNumber("+449098790000", countries)).toMatchObject({ ok: false, reason: "premium" });
  });

  it.each(Object.entries(PREMIUM_EXAMPLES))("refuses a %s by its number type", (_kind, number) => {
    expect(classifyNumber(number, countries)).toMatchObject({ ok: false, reason: "premium" });
  });

  it("accepts mobile and fixed lines in each of the six languages' main markets", () => {
    for (const number of ["+447400123456", "+442071234567", "+33612345678", "+4915123456789", "+34612345678", "+393123456789"]) {
      expect(classifyNumber(number, countries)).toMatchObject({ ok: true, e164: number });
    }
  });

  it("refuses toll-free and VoIP ranges as numbers that reach no person of their own", () => {
    for (const number of ["+18005550100", "+9668001234567", "+445612345678"]) {
      expect(classifyNumber(number, countries)).toMatchObject({ ok: false, reason: "unroutable" });
    }
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
