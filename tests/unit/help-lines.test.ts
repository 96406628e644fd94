import { describe, expect, it } from "vitest";
import { envSchema } from "~/platform/env.server";
import { HELP_DIRECTORY, HELP_LINES, helpCountries, likelyHelpCountry, type CountryHelp, type Source } from "~/lib/help-lines";

/** The Arab League's members: the Arabic-speaking markets, whichever of them the table has a row for. */
const ARAB_LEAGUE = "AE BH DJ DZ EG IQ JO KM KW LB LY MA MR OM PS QA SA SD SO SY TN YE".split(" ");

const arabicSpeakingMarkets = helpCountries.filter((country) => ARAB_LEAGUE.includes(country));

/** Every country the dialling policy allows when no setting narrows it. */
function defaultPolicyCountries() {
  const shape = envSchema.shape;
  const defaults = [shape.CALL_COUNTRIES, shape.EMPATHY_CALL_COUNTRIES, shape.DEMO_CALL_COUNTRIES].map((field) => field.parse(undefined));
  return [...new Set(defaults.flatMap((list) => list.split(",")))].sort();
}

function expectSourced(source: Source, what: string) {
  expect(new URL(source.url).protocol, `${what}: source URL`).toMatch(/^https?:$/);
  expect(source.checked, `${what}: date checked`).toMatch(/^\d{4}-\d{2}-\d{2}\b/);
  expect(Number.isNaN(Date.parse(source.checked.slice(0, 10))), `${what}: a real date`).toBe(false);
}

describe("the help-line table", () => {
  it("has a row for every country the default dialling policy allows, and none for a country it does not", () => {
    const allowed = defaultPolicyCountries();
    expect(allowed.length).toBeGreaterThan(40);
    expect([...helpCountries].sort()).toEqual(allowed);
  });

  it.each(helpCountries)("%s has an emergency number and a line or the directory, every number with its source and date", (country) => {
    const help = HELP_LINES[country];
    expect(help.emergency.numbers.length).toBeGreaterThan(0);
    for (const entry of help.emergency.numbers) expect(entry.number).toMatch(/^\d{2,4}$/);
    expectSourced(help.emergency.source, `${country} emergency`);
    for (const line of help.lines) {
      expect(line.name.trim()).not.toBe("");
      expect(line.number).toMatch(/^\d[\d ]*\d$/);
      expectSourced(line.source, `${country} ${line.name}`);
    }
    // No confirmed line: the box, the script and the e-mails point to the directory instead.
    if (help.lines.length === 0) expectSourced(HELP_DIRECTORY.source, "directory");
  });

  it("counts the core Arabic-speaking markets among them, so the next test checks each of them", () => {
    expect(arabicSpeakingMarkets).toEqual(expect.arrayContaining(["SA", "AE", "QA", "KW", "BH", "OM", "JO", "EG", "MA"]));
  });

  it.each(arabicSpeakingMarkets)("%s, an Arabic-speaking market, lists a support line or says why none is listed", (country) => {
    const help: CountryHelp = HELP_LINES[country];
    if (help.lines.length === 0) expect(help.noLineNote?.trim().length, `${country}: why no line`).toBeGreaterThan(40);
    for (const line of help.lines) {
      expectSourced(line.source, `${country} ${line.name}`);
      // The name the caller hears when the line answers: these are Arabic services.
      expect(line.name, `${country}: the service's own name`).toMatch(/\p{Script=Arabic}/u);
    }
  });

  it("lists sourced support lines for Saudi Arabia, the Arabic agent's home market, and the Gulf and Egypt", () => {
    const numbers = (country: keyof typeof HELP_LINES) => HELP_LINES[country].lines.map((line) => line.number);
    expect(numbers("SA")).toEqual(expect.arrayContaining(["920033360", "937"]));
    expect(numbers("AE").length).toBeGreaterThan(0);
    expect(numbers("QA")).toContain("16000");
    expect(numbers("EG")).toContain("0800 888 0700");
  });

  it("puts the emergency numbers of the main markets right", () => {
    const numbers = (country: keyof typeof HELP_LINES) => HELP_LINES[country].emergency.numbers.map((entry) => entry.number);
    expect(numbers("US")).toContain("911");
    expect(numbers("GB")).toContain("999");
    expect(numbers("AU")).toContain("000");
    expect(numbers("DE")).toContain("112");
    expect(numbers("ES")).toContain("112");
    expect(numbers("SA")).toEqual(expect.arrayContaining(["911", "997"]));
    expect(numbers("AE")).toEqual(expect.arrayContaining(["999", "998"]));
    expect(numbers("EG")).toEqual(expect.arrayContaining(["122", "123"]));
    expect(numbers("MA")).toEqual(expect.arrayContaining(["19", "15"]));
  });
});

describe("likelyHelpCountry", () => {
  it.each([
    [{ acceptLanguage: "ar-SA,ar;q=0.9", pageLanguage: "ar" }, "SA"],
    [{ acceptLanguage: "de-DE,de;q=0.9,en;q=0.8", pageLanguage: "de" }, "DE"],
    [{ acceptLanguage: "en-US,en;q=0.9", pageLanguage: "en" }, "US"],
    [{ acceptLanguage: "en-GB", pageLanguage: "en" }, "GB"],
    [{ acceptLanguage: "ar", pageLanguage: "ar" }, "SA"],
    [{ acceptLanguage: "fr;q=0.5, it", pageLanguage: "en" }, "IT"],
    [{ acceptLanguage: "es-419,es;q=0.9", pageLanguage: "es" }, "ES"],
    [{ acceptLanguage: "zh-CN", pageLanguage: "fr" }, "FR"],
    [{ acceptLanguage: null, pageLanguage: "en" }, "US"],
    // The number beats the browser; a chosen country beats both; a bogus choice is ignored.
    [{ phoneCountry: "EG", acceptLanguage: "ar-SA", pageLanguage: "ar" }, "EG"],
    [{ chosen: "ma", phoneCountry: "EG", acceptLanguage: "ar-SA", pageLanguage: "ar" }, "MA"],
    [{ chosen: "<script>", acceptLanguage: "de-DE", pageLanguage: "de" }, "DE"],
    [{ chosen: "toString", acceptLanguage: "de-DE", pageLanguage: "de" }, "DE"],
    [{ phoneCountry: "JP", acceptLanguage: "de-AT", pageLanguage: "de" }, "AT"],
  ])("%j → %s", (input, expected) => {
    expect(likelyHelpCountry(input)).toBe(expected);
  });
});
