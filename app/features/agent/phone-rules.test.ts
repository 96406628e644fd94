import { describe, expect, it } from "vitest";
import { callMeFailure, callMeNumber, webCallNumber } from "./phone-rules";

describe("call-me normalisation (spec section 5)", () => {
  it.each([
    ["966501234567", "+966501234567"],
    ["966 50 123 4567", "+966501234567"],
    ["501234567", "+966501234567"],
    ["0501234567", "+966501234567"],
    ["050-123-4567", "+966501234567"],
    ["12125550100", "+12125550100"],
    ["2125550100", "+12125550100"],
    ["(212) 555-0100", "+12125550100"],
    ["+44 20 7946 0958", "+442079460958"],
    ["+966501234567", "+966501234567"],
    ["447911123456", "+447911123456"],
    ["97150123456", "+97150123456"],
  ])("%s → %s", (input, expected) => {
    expect(callMeNumber(input)).toBe(expected);
  });

  it("gives nothing for an empty field", () => {
    expect(callMeNumber("   ")).toBeNull();
    expect(callMeNumber("abc")).toBeNull();
  });

  it("keeps a number that starts with a plus as typed, digits only", () => {
    expect(callMeNumber("+1 (212) 555-0100")).toBe("+12125550100");
  });
});

describe("web call number (spec section 5)", () => {
  it("needs 10 to 15 digits, read like a call-me number (a Saudi 05… number as +966…)", () => {
    expect(webCallNumber("0501234567")).toBe("+966501234567");
    expect(webCallNumber("+966 50 123 4567")).toBe("+966501234567");
    expect(webCallNumber("123456789")).toBeNull();
    expect(webCallNumber("1234567890123456")).toBeNull();
    expect(webCallNumber("")).toBeNull();
  });
});

describe("provider errors of a call-me call", () => {
  it("maps Twilio's codes as the spec says", () => {
    expect(
      callMeFailure("21215 Account not authorized to call +966501234567. Perhaps you need to enable some international permissions"),
    ).toBe("not_authorised");
    expect(callMeFailure("21211 The 'To' number +9665 is not a valid phone number.")).toBe("invalid_number");
    expect(callMeFailure("21219 The number +15005550001 is unverified. Trial accounts may only make calls to verified numbers.")).toBe(
      "unverified",
    );
    expect(callMeFailure("The dialling policy refused this number (country).")).toBe("other");
  });
});
