import { afterEach, describe, expect, it, vi } from "vitest";
import { formatTimeOfDayLabel, knownTimeZone, zoneLongName, zoneName, zoneOptions } from "~/lib/when";

describe("time zones in words", () => {
  it("are named for the very instant, on either side of a change of offset, however often asked", () => {
    // New York moves to summer time at 07:00 UTC on 8 March 2026; Lord Howe Island back by half an hour at 15:00 UTC on 4 April 2026.
    for (let round = 0; round < 2; round++) {
      expect(zoneLongName("America/New_York", "en", new Date("2026-03-08T06:59:59Z"))).toBe("Eastern Standard Time");
      expect(zoneLongName("America/New_York", "en", new Date("2026-03-08T07:00:00Z"))).toBe("Eastern Daylight Time");
      expect(zoneLongName("Australia/Lord_Howe", "en", new Date("2026-04-04T14:59:59Z"))).toBe("Lord Howe Daylight Time");
      expect(zoneLongName("Australia/Lord_Howe", "en", new Date("2026-04-04T15:00:00Z"))).toBe("Lord Howe Standard Time");
    }
  });

  afterEach(() => vi.useRealTimers());

  it("names a zone as a person reads it, in the page's language, never by its id", () => {
    expect(zoneName("America/New_York", "en")).toBe("Eastern Time");
    expect(zoneName("Europe/Berlin", "en")).toBe("Central European Time");
    expect(zoneName("UTC", "en")).toBe("Coordinated Universal Time");
    expect(zoneName("Europe/Berlin", "ar")).toBe("توقيت وسط أوروبا");
  });

  it("knows a zone Intl knows, spelled as Intl spells it, and nothing else", () => {
    expect(knownTimeZone("europe/berlin")).toBe("Europe/Berlin");
    expect(knownTimeZone("Mars/Olympus")).toBeNull();
    expect(knownTimeZone("<script>")).toBeNull();
    expect(knownTimeZone(null)).toBeNull();
  });

  it("lists each zone once, with the zones to keep as their entries' values", () => {
    const options = zoneOptions("en", ["America/Detroit", "Europe/Berlin"]);
    const eastern = options.filter((option) => option.label.startsWith("Eastern Time ("));
    expect(eastern.map((option) => option.value)).toEqual(["America/Detroit"]);
    expect(options.some((option) => option.value === "Europe/Berlin")).toBe(true);
    expect(new Set(options.map((option) => option.value)).size).toBe(options.length);
    expect(options.every((option) => !option.label.includes("/"))).toBe(true);
  });

  it("gives a zone's offset as it is now, after a clock change too", () => {
    const eastern = () => zoneOptions("en", ["America/New_York"]).find((option) => option.value === "America/New_York")!.label;
    vi.useFakeTimers({ now: new Date("2027-03-14T06:30:00Z"), toFake: ["Date"] });
    expect(eastern()).toBe("Eastern Time (GMT-5)");
    // The clocks went forward at 07:00 UTC; the same server, an hour later.
    vi.setSystemTime(new Date("2027-03-14T07:30:00Z"));
    expect(eastern()).toBe("Eastern Time (GMT-4)");
  });

  it("writes a time of day with the language's clock", () => {
    expect(formatTimeOfDayLabel(13 * 60 + 30, "en").replace(/\u202f/g, " ")).toBe("1:30 PM");
    expect(formatTimeOfDayLabel(13 * 60 + 30, "de")).toBe("13:30");
  });
});
