import { describe, expect, it } from "vitest";
import { callLanguages } from "~/lib/languages";
import { callTexts, callTextLanguages } from "./call-texts.server";

describe("fixed call texts", () => {
  it("exist in every call language, each in its own words", () => {
    expect([...callTextLanguages].sort()).toEqual(callLanguages.map((l) => l.code).sort());
    const english = callTexts("en");
    for (const language of callTextLanguages.filter((l) => l !== "en")) {
      const texts = callTexts(language);
      expect(texts.say.language.startsWith(language)).toBe(true);
      expect(texts.say.voice).toContain(texts.say.language);
      expect(texts.oneMinuteLeft).not.toBe(english.oneMinuteLeft);
      expect(texts.voicemailWithoutBooking).not.toBe(english.voicemailWithoutBooking);
      expect(texts.apology).not.toBe(english.apology);
      expect(texts.cutGoodbye).not.toBe(english.cutGoodbye);
      const voicemail = texts.voicemail("Salon Nour", "12/05 10:00");
      expect(voicemail).toContain("Salon Nour");
      expect(voicemail).toContain("12/05 10:00");
    }
  });

  it("falls back to English for a language without its own texts", () => {
    expect(callTexts("pt")).toBe(callTexts("en"));
  });
});
