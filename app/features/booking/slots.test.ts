import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  type BusyInterval,
  type OpeningInterval,
  type SlotRules,
  type WeeklySchedule,
  computeSlots,
  slotsForLocalDate,
  windowLocalDates,
} from "~/features/booking/slots";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";

// Every "now" here is a fixed instant: nothing depends on the wall clock.

const NY = "America/New_York";
const LONDON = "Europe/London";

const hm = (s: string): number => {
  const [h, m] = s.split(":").map(Number);
  return h! * 60 + m!;
};
const iv = (start: string, end: string): OpeningInterval => ({ startMinute: hm(start), endMinute: hm(end) });
const iso = (ms: number) => new Date(ms).toISOString();
const isoList = (list: readonly number[]) => list.map(iso);
const at = (isoString: string) => Date.parse(isoString);
const busy = (start: string, end: string): BusyInterval => ({ start: at(start), end: at(end) });

/** Local "HH:MM" via Intl directly (independent of the engine). */
const localHM = (ms: number, timeZone: string) =>
  new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hourCycle: "h23" }).format(ms);

const weekdaysAndSaturday = (): WeeklySchedule => ({
  0: [],
  1: [iv("09:00", "12:00"), iv("13:00", "17:00")],
  2: [iv("09:00", "12:00"), iv("13:00", "17:00")],
  3: [iv("09:00", "12:00"), iv("13:00", "17:00")],
  4: [iv("09:00", "12:00"), iv("13:00", "17:00")],
  5: [iv("09:00", "12:00"), iv("13:00", "17:00")],
  6: [iv("10:00", "14:00")],
});
const everyDay = (...intervals: OpeningInterval[]): WeeklySchedule => ({
  0: intervals,
  1: intervals,
  2: intervals,
  3: intervals,
  4: intervals,
  5: intervals,
  6: intervals,
});

const rules = (over: Partial<SlotRules> = {}): SlotRules => ({
  timeZone: NY,
  weekly: weekdaysAndSaturday(),
  daysOff: [],
  serviceMinutes: 30,
  minimumNoticeMinutes: 0,
  windowDays: 30,
  ...over,
});

// Monday 2 June 2025, 08:00 EDT (UTC-4), before opening.
const MON_0800 = at("2025-06-02T12:00:00Z");

describe("zonedTimeToUtc / utcToZoned", () => {
  it("converts ordinary wall times in summer and winter", () => {
    expect(iso(zonedTimeToUtc("2025-06-02", hm("09:00"), NY))).toBe("2025-06-02T13:00:00.000Z");
    expect(iso(zonedTimeToUtc("2025-01-15", hm("09:00"), NY))).toBe("2025-01-15T14:00:00.000Z");
    expect(iso(zonedTimeToUtc("2025-06-02", hm("09:00"), "Asia/Kolkata"))).toBe("2025-06-02T03:30:00.000Z");
    expect(iso(zonedTimeToUtc("2025-06-02", 1440, NY))).toBe("2025-06-03T04:00:00.000Z");
    expect(iso(zonedTimeToUtc("2025-06-02", 0, "UTC"))).toBe("2025-06-02T00:00:00.000Z");
  });

  it("moves nonexistent spring-forward times forward by the gap", () => {
    // New York, 8 March 2026: 02:00 EST -> 03:00 EDT.
    expect(iso(zonedTimeToUtc("2026-03-08", hm("01:59"), NY))).toBe("2026-03-08T06:59:00.000Z");
    expect(iso(zonedTimeToUtc("2026-03-08", hm("02:00"), NY))).toBe("2026-03-08T07:00:00.000Z");
    expect(iso(zonedTimeToUtc("2026-03-08", hm("02:30"), NY))).toBe("2026-03-08T07:30:00.000Z"); // = 03:30 EDT
    expect(iso(zonedTimeToUtc("2026-03-08", hm("03:00"), NY))).toBe("2026-03-08T07:00:00.000Z");
    expect(iso(zonedTimeToUtc("2026-03-08", hm("13:00"), NY))).toBe("2026-03-08T17:00:00.000Z");
    // London, 29 March 2026: 01:00 GMT -> 02:00 BST.
    expect(iso(zonedTimeToUtc("2026-03-29", hm("01:30"), LONDON))).toBe("2026-03-29T01:30:00.000Z"); // = 02:30 BST
    expect(iso(zonedTimeToUtc("2026-03-29", hm("13:00"), LONDON))).toBe("2026-03-29T12:00:00.000Z");
  });

  it("takes the first occurrence of ambiguous fall-back times", () => {
    // New York, 1 November 2026: 02:00 EDT -> 01:00 EST.
    expect(iso(zonedTimeToUtc("2026-11-01", hm("00:59"), NY))).toBe("2026-11-01T04:59:00.000Z");
    expect(iso(zonedTimeToUtc("2026-11-01", hm("01:00"), NY))).toBe("2026-11-01T05:00:00.000Z");
    expect(iso(zonedTimeToUtc("2026-11-01", hm("01:30"), NY))).toBe("2026-11-01T05:30:00.000Z");
    expect(iso(zonedTimeToUtc("2026-11-01", hm("02:00"), NY))).toBe("2026-11-01T07:00:00.000Z");
    expect(iso(zonedTimeToUtc("2026-11-01", hm("13:00"), NY))).toBe("2026-11-01T18:00:00.000Z");
    // London, 25 October 2026: 02:00 BST -> 01:00 GMT.
    expect(iso(zonedTimeToUtc("2026-10-25", hm("01:30"), LONDON))).toBe("2026-10-25T00:30:00.000Z");
    expect(iso(zonedTimeToUtc("2026-10-25", hm("13:00"), LONDON))).toBe("2026-10-25T13:00:00.000Z");
  });

  it("maps instants back to local date, minute and weekday", () => {
    expect(utcToZoned(at("2026-11-01T05:30:00Z"), NY)).toEqual({ date: "2026-11-01", minuteOfDay: 90, weekday: 0 });
    expect(utcToZoned(at("2026-11-01T06:30:00Z"), NY)).toEqual({ date: "2026-11-01", minuteOfDay: 90, weekday: 0 });
    expect(utcToZoned(at("2025-06-02T03:59:00Z"), NY)).toEqual({ date: "2025-06-01", minuteOfDay: 1439, weekday: 0 });
    expect(utcToZoned(at("2025-06-02T04:00:00Z"), NY)).toEqual({ date: "2025-06-02", minuteOfDay: 0, weekday: 1 });
    expect(utcToZoned(at("2025-06-02T18:45:00Z"), "Asia/Kathmandu")).toEqual({
      date: "2025-06-03",
      minuteOfDay: 30,
      weekday: 2,
    });
  });

  it("handles years the fast parser does not (formatToParts path)", () => {
    expect(utcToZoned(at("0999-01-01T12:00:00Z"), "UTC")).toEqual({ date: "0999-01-01", minuteOfDay: 720, weekday: 2 });
    expect(iso(zonedTimeToUtc("0999-01-01", 720, "UTC"))).toBe("0999-01-01T12:00:00.000Z");
  });

  it("rejects invalid dates and zones", () => {
    expect(() => zonedTimeToUtc("2025-02-30", 0, NY)).toThrow(RangeError);
    expect(() => zonedTimeToUtc("2025-6-2", 0, NY)).toThrow(RangeError);
    expect(() => zonedTimeToUtc("2025-06-02", 0, "Mars/Olympus")).toThrow(RangeError);
  });
});

describe("windowLocalDates", () => {
  it("lists every local date the window touches, the last one partly", () => {
    const dates = windowLocalDates({ timeZone: NY, windowDays: 30 }, MON_0800);
    expect(dates).toHaveLength(31);
    expect(dates[0]).toBe("2025-06-02");
    expect(dates[30]).toBe("2025-07-02");
    // Tokyo: 21:00 on 2 June to 21:00 on 3 June.
    expect(windowLocalDates({ timeZone: "Asia/Tokyo", windowDays: 1 }, MON_0800)).toEqual(["2025-06-02", "2025-06-03"]);
    // Ending exactly at local midnight does not touch the next date.
    expect(windowLocalDates({ timeZone: NY, windowDays: 1 }, at("2025-06-02T04:00:00Z"))).toEqual(["2025-06-02"]);
    expect(windowLocalDates({ timeZone: NY, windowDays: 0 }, MON_0800)).toEqual([]);
  });
});

describe("computeSlots", () => {
  it("produces no slot across the lunch break", () => {
    const oneDay = { windowDays: 1 };
    expect(isoList(computeSlots(rules({ ...oneDay, serviceMinutes: 60 }), [], MON_0800))).toEqual([
      "2025-06-02T13:00:00.000Z", // 09:00 EDT
      "2025-06-02T14:00:00.000Z",
      "2025-06-02T15:00:00.000Z", // 11:00 (ends 12:00); no 11:30/12:00
      "2025-06-02T17:00:00.000Z", // 13:00
      "2025-06-02T18:00:00.000Z",
      "2025-06-02T19:00:00.000Z",
      "2025-06-02T20:00:00.000Z", // 16:00
    ]);
    expect(computeSlots(rules({ ...oneDay, serviceMinutes: 90 }), [], MON_0800).map((ms) => localHM(ms, NY))).toEqual([
      "09:00",
      "10:30",
      "13:00",
      "14:30",
    ]);
  });

  it("skips days off (array or Set) and Sundays", () => {
    const twoDays = rules({ windowDays: 2, serviceMinutes: 180 });
    expect(isoList(computeSlots(twoDays, [], MON_0800))).toEqual([
      "2025-06-02T13:00:00.000Z",
      "2025-06-02T17:00:00.000Z",
      "2025-06-03T13:00:00.000Z",
      "2025-06-03T17:00:00.000Z",
    ]);
    const expected = ["2025-06-03T13:00:00.000Z", "2025-06-03T17:00:00.000Z"];
    expect(isoList(computeSlots({ ...twoDays, daysOff: ["2025-06-02"] }, [], MON_0800))).toEqual(expected);
    expect(isoList(computeSlots({ ...twoDays, daysOff: new Set(["2025-06-02"]) }, [], MON_0800))).toEqual(expected);
    // Saturday 7 June 10:00 -> Monday 9 June 10:00: Saturday only (Sunday has no hours).
    const weekend = computeSlots(rules({ windowDays: 2, serviceMinutes: 120 }), [], at("2025-06-07T14:00:00Z"));
    expect(isoList(weekend)).toEqual(["2025-06-07T14:00:00.000Z", "2025-06-07T16:00:00.000Z"]);
  });

  it("applies the minimum notice and rounds up to the hour grid", () => {
    const mon0907 = at("2025-06-02T13:07:00Z"); // 09:07 EDT
    const first = (r: SlotRules, now: number) => computeSlots(r, [], now).map((ms) => localHM(ms, NY));
    expect(first(rules({ windowDays: 1, serviceMinutes: 30 }), mon0907).slice(0, 2)).toEqual(["09:30", "10:00"]);
    expect(first(rules({ windowDays: 1, serviceMinutes: 45 }), mon0907).slice(0, 4)).toEqual(["09:15", "10:00", "10:45", "13:00"]);
    // 2 hours' notice -> 11:07 -> 11:30, then the afternoon.
    expect(first(rules({ windowDays: 1, minimumNoticeMinutes: 120 }), mon0907).slice(0, 2)).toEqual(["11:30", "13:00"]);
    // Seconds never put a start before now: 09:15:30 with g = 15 gives 09:30.
    expect(first(rules({ windowDays: 1, serviceMinutes: 15 }), at("2025-06-02T13:15:30Z"))[0]).toBe("09:30");
  });

  it("lets notice push the first slot into the next day", () => {
    // Monday 16:00 EDT + 18 h = Tuesday 10:00.
    const slots = computeSlots(rules({ windowDays: 2, serviceMinutes: 60, minimumNoticeMinutes: 18 * 60 }), [], at("2025-06-02T20:00:00Z"));
    expect(isoList(slots)).toEqual([
      "2025-06-03T14:00:00.000Z", // Tue 10:00
      "2025-06-03T15:00:00.000Z",
      "2025-06-03T17:00:00.000Z",
      "2025-06-03T18:00:00.000Z",
      "2025-06-03T19:00:00.000Z",
      "2025-06-03T20:00:00.000Z",
      "2025-06-04T13:00:00.000Z", // Wed 09:00
      "2025-06-04T14:00:00.000Z",
      "2025-06-04T15:00:00.000Z",
      "2025-06-04T17:00:00.000Z",
      "2025-06-04T18:00:00.000Z",
      "2025-06-04T19:00:00.000Z", // 15:00-16:00 ends exactly at the window end (Wed 16:00)
    ]);
  });

  it("clips the 30-day window at both edges (last day partly inside)", () => {
    const now = at("2025-06-02T14:00:00Z"); // Monday 10:00 EDT -> window ends Wed 2 July 10:00 EDT
    const slots = computeSlots(rules({ serviceMinutes: 60 }), [], now);
    expect(iso(slots[0]!)).toBe("2025-06-02T14:00:00.000Z");
    // 22 weekdays x 7 - Monday 09:00 + Wednesday 2 July 09:00 + 4 Saturdays x 4.
    expect(slots).toHaveLength(170);
    expect(isoList(slots.slice(-3))).toEqual(["2025-07-01T19:00:00.000Z", "2025-07-01T20:00:00.000Z", "2025-07-02T13:00:00.000Z"]);
    const last30 = computeSlots(rules({ serviceMinutes: 30 }), [], now).slice(-2);
    expect(isoList(last30)).toEqual(["2025-07-02T13:00:00.000Z", "2025-07-02T13:30:00.000Z"]);
    expect(slotsForLocalDate(rules({ serviceMinutes: 60 }), [], now, "2025-07-02")).toEqual([
      { time: "09:00", available: true, start: at("2025-07-02T13:00:00Z") },
    ]);
    expect(slotsForLocalDate(rules(), [], now, "2025-07-03")).toEqual([]);
    expect(slotsForLocalDate(rules(), [], now, "2025-06-01")).toEqual([]);
  });

  it("gives nothing for a service longer than the remaining open time or the interval", () => {
    const week = (serviceMinutes: number) => computeSlots(rules({ windowDays: 7, serviceMinutes }), [], MON_0800);
    // 4 h fits only the 13:00-17:00 afternoons and Saturday 10:00-14:00.
    expect(isoList(week(240))).toEqual([
      "2025-06-02T17:00:00.000Z",
      "2025-06-03T17:00:00.000Z",
      "2025-06-04T17:00:00.000Z",
      "2025-06-05T17:00:00.000Z",
      "2025-06-06T17:00:00.000Z",
      "2025-06-07T14:00:00.000Z",
    ]);
    expect(week(270)).toEqual([]);
    expect(week(720)).toEqual([]);
    // Monday 16:30: 30 minutes left, a 60-minute service does not fit today; next is Tuesday 09:00.
    const late = computeSlots(rules({ windowDays: 1, serviceMinutes: 60 }), [], at("2025-06-02T20:30:00Z"));
    expect(iso(late[0]!)).toBe("2025-06-03T13:00:00.000Z");
    const late30 = computeSlots(rules({ windowDays: 1, serviceMinutes: 30 }), [], at("2025-06-02T20:30:00Z"));
    expect(isoList(late30.slice(0, 2))).toEqual(["2025-06-02T20:30:00.000Z", "2025-06-03T13:00:00.000Z"]);
  });

  it("subtracts bookings; each free gap starts its own grid", () => {
    const r30 = rules({ windowDays: 1, serviceMinutes: 30 });
    const morning = (list: number[]) => list.map((ms) => localHM(ms, NY)).filter((t) => t < "12:00");
    expect(morning(computeSlots(r30, [], MON_0800))).toEqual(["09:00", "09:30", "10:00", "10:30", "11:00", "11:30"]);
    // 10:00-10:20 booked: the gap from 10:20 starts at 10:30.
    const b1 = [busy("2025-06-02T14:00:00Z", "2025-06-02T14:20:00Z")];
    expect(morning(computeSlots(r30, b1, MON_0800))).toEqual(["09:00", "09:30", "10:30", "11:00", "11:30"]);
    // 45 minutes (g = 15): 09:00-09:10 booked moves the whole morning grid.
    const r45 = rules({ windowDays: 1, serviceMinutes: 45 });
    expect(computeSlots(r45, [], MON_0800).map((ms) => localHM(ms, NY))).toEqual([
      "09:00",
      "09:45",
      "10:30",
      "11:15",
      "13:00",
      "13:45",
      "14:30",
      "15:15",
      "16:00",
    ]);
    const b2 = [busy("2025-06-02T13:00:00Z", "2025-06-02T13:10:00Z")];
    expect(morning(computeSlots(r45, b2, MON_0800))).toEqual(["09:15", "10:00", "10:45"]);
    // A booking across lunch (11:30-13:30) and overlapping double bookings (14:00-14:40, 14:20-15:00).
    const b3 = [
      busy("2025-06-02T15:30:00Z", "2025-06-02T17:30:00Z"),
      busy("2025-06-02T18:00:00Z", "2025-06-02T18:40:00Z"),
      busy("2025-06-02T18:20:00Z", "2025-06-02T19:00:00Z"),
    ];
    expect(computeSlots(r30, b3, MON_0800).map((ms) => localHM(ms, NY))).toEqual([
      "09:00",
      "09:30",
      "10:00",
      "10:30",
      "11:00",
      "13:30",
      "15:00",
      "15:30",
      "16:00",
      "16:30",
    ]);
    // The whole day booked, then freed again (booking removed).
    const full = [busy("2025-06-02T13:00:00Z", "2025-06-02T21:00:00Z")];
    expect(computeSlots(r30, full, MON_0800)).toEqual([]);
    expect(computeSlots(r30, [], MON_0800)).toHaveLength(14);
  });

  it("accepts unsorted bookings mixed with far past and far future ones", () => {
    const r = rules({ windowDays: 7, serviceMinutes: 30 });
    const inWindow = [
      busy("2025-06-02T13:00:00Z", "2025-06-02T14:00:00Z"),
      busy("2025-06-03T17:00:00Z", "2025-06-03T18:30:00Z"),
      busy("2025-06-05T15:15:00Z", "2025-06-05T15:45:00Z"),
      busy("2025-06-07T14:00:00Z", "2025-06-07T18:00:00Z"),
    ];
    const noise = [
      busy("2019-01-07T14:00:00Z", "2019-01-07T15:00:00Z"),
      busy("2025-06-02T11:00:00Z", "2025-06-02T12:00:00Z"), // ends exactly at now
      busy("2031-05-05T13:00:00Z", "2031-05-05T14:00:00Z"),
      busy("2025-06-09T12:00:00Z", "2025-06-09T13:00:00Z"), // starts exactly at the window end
    ];
    const sorted = computeSlots(r, inWindow, MON_0800);
    const shuffled = [noise[2]!, inWindow[3]!, noise[0]!, inWindow[1]!, noise[3]!, inWindow[0]!, noise[1]!, inWindow[2]!];
    expect(computeSlots(r, shuffled, MON_0800)).toEqual(sorted);
    const all = computeSlots(r, [], MON_0800);
    // Removed: Mon 09:00, 09:30; Tue 13:00, 13:30, 14:00; Thu 11:00 and 11:30 (11:15-11:45 booked,
    // the gap from 11:45 is too short); all of Saturday (8).
    expect(all.length - sorted.length).toBe(2 + 3 + 2 + 8);
    const thursday = sorted.map((ms) => localHM(ms, NY)).slice(14 * 3 - 5, 14 * 3 - 5 + 6);
    expect(thursday).toEqual(["09:00", "09:30", "10:00", "10:30", "13:00", "13:30"]);
  });

  it("rounds to the local hour in zones with half-hour offsets", () => {
    const r = rules({ timeZone: "Asia/Kolkata", weekly: everyDay(iv("09:10", "12:00")), serviceMinutes: 60, windowDays: 1 });
    const now = at("2025-06-01T18:30:00Z"); // 00:00 IST on 2 June
    expect(isoList(computeSlots(r, [], now))).toEqual(["2025-06-02T04:30:00.000Z", "2025-06-02T05:30:00.000Z"]); // 10:00, 11:00 IST
  });

  it("merges intervals touching across midnight", () => {
    const r = rules({
      timeZone: "UTC",
      weekly: everyDay(iv("00:00", "02:00"), iv("22:00", "24:00")),
      serviceMinutes: 90,
      windowDays: 2,
    });
    expect(isoList(computeSlots(r, [], at("2025-06-02T00:00:00Z")))).toEqual([
      "2025-06-02T00:00:00.000Z",
      "2025-06-02T22:00:00.000Z",
      "2025-06-02T23:30:00.000Z", // runs across midnight into 3 June's 00:00-02:00
      "2025-06-03T22:00:00.000Z",
    ]);
  });

  it("rejects an invalid service length", () => {
    expect(() => computeSlots(rules({ serviceMinutes: 0 }), [], MON_0800)).toThrow(RangeError);
  });
});

describe("DST changeover days", () => {
  const afternoon = (timeZone: string) => rules({ timeZone, weekly: everyDay(iv("13:00", "17:00")), serviceMinutes: 60, windowDays: 1 });
  // All four changeover days are Sundays; the night interval is open on Sundays only (the
  // one-day window of a 23-hour day reaches 01:00 on Monday).
  const night = (timeZone: string, serviceMinutes = 60) =>
    rules({ timeZone, weekly: { ...everyDay(), 0: [iv("00:00", "04:00")] }, serviceMinutes, windowDays: 1 });

  it("New York spring forward (8 March 2026): afternoon at 13:00 EDT", () => {
    const now = at("2026-03-08T05:00:00Z"); // 00:00 EST
    expect(isoList(computeSlots(afternoon(NY), [], now))).toEqual([
      "2026-03-08T17:00:00.000Z",
      "2026-03-08T18:00:00.000Z",
      "2026-03-08T19:00:00.000Z",
      "2026-03-08T20:00:00.000Z",
    ]);
    // 00:00-04:00 lasts 3 real hours: 00:00 EST (05:00Z) to 04:00 EDT (08:00Z).
    const slots = computeSlots(night(NY), [], now);
    expect(isoList(slots)).toEqual(["2026-03-08T05:00:00.000Z", "2026-03-08T06:00:00.000Z", "2026-03-08T07:00:00.000Z"]);
    expect(slotsForLocalDate(night(NY), [], now, "2026-03-08").map((s) => s.time)).toEqual(["00:00", "01:00", "03:00"]);
    // 01:30-03:30 is one real hour.
    const short = rules({ timeZone: NY, weekly: everyDay(iv("01:30", "03:30")), windowDays: 1 });
    expect(isoList(computeSlots(short, [], now))).toEqual(["2026-03-08T06:30:00.000Z", "2026-03-08T07:00:00.000Z"]);
  });

  it("New York fall back (1 November 2026): afternoon at 13:00 EST", () => {
    const now = at("2026-11-01T04:00:00Z"); // 00:00 EDT
    expect(isoList(computeSlots(afternoon(NY), [], now))).toEqual([
      "2026-11-01T18:00:00.000Z",
      "2026-11-01T19:00:00.000Z",
      "2026-11-01T20:00:00.000Z",
      "2026-11-01T21:00:00.000Z",
    ]);
    // 00:00-04:00 lasts 5 real hours: 00:00 EDT (04:00Z) to 04:00 EST (09:00Z).
    expect(isoList(computeSlots(night(NY), [], now))).toEqual([
      "2026-11-01T04:00:00.000Z",
      "2026-11-01T05:00:00.000Z", // 01:00 EDT
      "2026-11-01T06:00:00.000Z", // 01:00 EST
      "2026-11-01T07:00:00.000Z",
      "2026-11-01T08:00:00.000Z",
    ]);
    // The booking page shows "01:00" once (the first occurrence).
    expect(slotsForLocalDate(night(NY), [], now, "2026-11-01")).toEqual([
      { time: "00:00", available: true, start: at("2026-11-01T04:00:00Z") },
      { time: "01:00", available: true, start: at("2026-11-01T05:00:00Z") },
      { time: "02:00", available: true, start: at("2026-11-01T07:00:00Z") },
      { time: "03:00", available: true, start: at("2026-11-01T08:00:00Z") },
    ]);
    // 45 minutes: the grid runs on in real time through the repeated hour; labels are listed ascending.
    expect(isoList(computeSlots(night(NY, 45), [], now))).toEqual([
      "2026-11-01T04:00:00.000Z",
      "2026-11-01T04:45:00.000Z",
      "2026-11-01T05:30:00.000Z", // 01:30 EDT
      "2026-11-01T06:15:00.000Z", // 01:15 EST
      "2026-11-01T07:00:00.000Z",
      "2026-11-01T07:45:00.000Z",
    ]);
    expect(slotsForLocalDate(night(NY, 45), [], now, "2026-11-01").map((s) => s.time)).toEqual([
      "00:00",
      "00:45",
      "01:15",
      "01:30",
      "02:00",
      "02:45",
    ]);
  });

  it("London spring forward (29 March 2026): afternoon at 13:00 BST", () => {
    const now = at("2026-03-29T00:00:00Z"); // 00:00 GMT
    expect(isoList(computeSlots(afternoon(LONDON), [], now))).toEqual([
      "2026-03-29T12:00:00.000Z",
      "2026-03-29T13:00:00.000Z",
      "2026-03-29T14:00:00.000Z",
      "2026-03-29T15:00:00.000Z",
    ]);
    // 00:00 GMT (00:00Z) to 04:00 BST (03:00Z): 3 real hours; 01:00 does not exist.
    expect(isoList(computeSlots(night(LONDON), [], now))).toEqual([
      "2026-03-29T00:00:00.000Z",
      "2026-03-29T01:00:00.000Z",
      "2026-03-29T02:00:00.000Z",
    ]);
    expect(slotsForLocalDate(night(LONDON), [], now, "2026-03-29").map((s) => s.time)).toEqual(["00:00", "02:00", "03:00"]);
  });

  it("London fall back (25 October 2026): afternoon at 13:00 GMT", () => {
    const now = at("2026-10-24T23:00:00Z"); // 00:00 BST
    expect(isoList(computeSlots(afternoon(LONDON), [], now))).toEqual([
      "2026-10-25T13:00:00.000Z",
      "2026-10-25T14:00:00.000Z",
      "2026-10-25T15:00:00.000Z",
      "2026-10-25T16:00:00.000Z",
    ]);
    // 00:00 BST (23:00Z) to 04:00 GMT (04:00Z): 5 real hours.
    expect(isoList(computeSlots(night(LONDON), [], now))).toEqual([
      "2026-10-24T23:00:00.000Z",
      "2026-10-25T00:00:00.000Z", // 01:00 BST
      "2026-10-25T01:00:00.000Z", // 01:00 GMT
      "2026-10-25T02:00:00.000Z",
      "2026-10-25T03:00:00.000Z",
    ]);
  });

  it("rounds to the local hour across Lord Howe's 30-minute spring gap", () => {
    // 4 October 2026: 02:00 (+10:30) -> 02:30 (+11). 01:20-05:00 is 3 h 10 min real time; the
    // first hour mark after 01:20 that exists is 03:00 (+11) = 16:00Z.
    const r = rules({
      timeZone: "Australia/Lord_Howe",
      weekly: { ...everyDay(), 0: [iv("01:20", "05:00")] },
      serviceMinutes: 60,
      windowDays: 1,
    });
    expect(isoList(computeSlots(r, [], at("2026-10-03T13:30:00Z")))).toEqual(["2026-10-03T16:00:00.000Z", "2026-10-03T17:00:00.000Z"]);
  });

  it("keeps local hours on a window that spans the change", () => {
    const r = rules({
      weekly: {
        ...weekdaysAndSaturday(),
        1: [iv("09:00", "10:00")],
        2: [iv("09:00", "10:00")],
        3: [iv("09:00", "10:00")],
        4: [iv("09:00", "10:00")],
        5: [iv("09:00", "10:00")],
        6: [],
      },
      serviceMinutes: 60,
      windowDays: 14,
    });
    const slots = computeSlots(r, [], at("2026-03-02T05:00:00Z")); // Monday 2 March 00:00 EST
    expect(isoList(slots)).toEqual([
      "2026-03-02T14:00:00.000Z",
      "2026-03-03T14:00:00.000Z",
      "2026-03-04T14:00:00.000Z",
      "2026-03-05T14:00:00.000Z",
      "2026-03-06T14:00:00.000Z",
      "2026-03-09T13:00:00.000Z",
      "2026-03-10T13:00:00.000Z",
      "2026-03-11T13:00:00.000Z",
      "2026-03-12T13:00:00.000Z",
      "2026-03-13T13:00:00.000Z",
    ]);
  });
});

describe("slotsForLocalDate", () => {
  it("shows the opening grid with available flags plus off-grid free starts", () => {
    const r = rules({ serviceMinutes: 45 });
    const booked = [
      busy("2025-06-02T13:00:00Z", "2025-06-02T13:10:00Z"), // 09:00-09:10
      busy("2025-06-02T17:00:00Z", "2025-06-02T18:30:00Z"), // 13:00-14:30
    ];
    const day = slotsForLocalDate(r, booked, MON_0800, "2025-06-02");
    expect(day.map((s) => `${s.time} ${s.available ? "free" : "taken"}`)).toEqual([
      "09:00 taken",
      "09:15 free",
      "09:45 taken",
      "10:00 free",
      "10:30 taken",
      "10:45 free",
      "11:15 taken",
      "13:00 taken",
      "13:45 taken",
      "14:30 free",
      "15:15 free",
      "16:00 free",
    ]);
    expect(iso(day[1]!.start)).toBe("2025-06-02T13:15:00.000Z");
    // Every available entry is exactly computeSlots' result for that date.
    const free = computeSlots(r, booked, MON_0800).filter((ms) => ms < at("2025-06-03T04:00:00Z"));
    expect(day.filter((s) => s.available).map((s) => s.start)).toEqual(free);
    // Clipped by now + notice: Monday 10:00 EDT with 30 minutes' notice.
    const later = slotsForLocalDate(rules({ serviceMinutes: 45, minimumNoticeMinutes: 30 }), [], at("2025-06-02T14:00:00Z"), "2025-06-02");
    expect(later.map((s) => s.time)).toEqual(["10:30", "11:15", "13:00", "13:45", "14:30", "15:15", "16:00"]);
    expect(later.every((s) => s.available)).toBe(true);
  });

  it("returns [] for a day off, a closed day, and dates outside the window", () => {
    const r = rules({ daysOff: ["2025-06-03"] });
    expect(slotsForLocalDate(r, [], MON_0800, "2025-06-03")).toEqual([]);
    expect(slotsForLocalDate(r, [], MON_0800, "2025-06-08")).toEqual([]); // Sunday
    expect(slotsForLocalDate(r, [], MON_0800, "2025-06-01")).toEqual([]);
    expect(slotsForLocalDate(r, [], MON_0800, "2025-07-03")).toEqual([]);
    expect(slotsForLocalDate(r, [], MON_0800, "2025-06-04")).toHaveLength(14);
  });
});

// ---------------------------------------------------------------------------------------------
// The shared benchmark case (shared/bench-cases/slots/README.md)

const CASE_URL = new URL("../../../shared/bench-cases/slots/case.json", import.meta.url);

interface BenchCase {
  timeZone: string;
  now: string;
  weeklyHours: Record<string, { start: string; end: string }[]>;
  services: { id: string; minutes: number }[];
  bookings: { start: string; end: string }[];
}

const EXPECTED: Record<string, [count: number, first: string, last: string]> = {
  s01: [368, "2025-06-02T13:15:00.000Z", "2025-07-01T20:45:00.000Z"],
  s02: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s03: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s08: [154, "2025-06-02T15:30:00.000Z", "2025-07-01T20:30:00.000Z"],
  s04: [85, "2025-06-02T17:00:00.000Z", "2025-07-01T18:30:00.000Z"],
  s09: [85, "2025-06-02T17:00:00.000Z", "2025-07-01T18:30:00.000Z"],
  s05: [49, "2025-06-02T17:00:00.000Z", "2025-07-01T18:00:00.000Z"],
  s06: [49, "2025-06-02T17:00:00.000Z", "2025-07-01T18:00:00.000Z"],
  s07: [24, "2025-06-07T14:00:00.000Z", "2025-07-01T17:00:00.000Z"],
  s10: [8, "2025-06-12T17:00:00.000Z", "2025-07-01T17:00:00.000Z"],
};

describe("bench case (shared/bench-cases/slots)", () => {
  it.skipIf(!existsSync(CASE_URL))("matches the README's table for all 10 services", () => {
    const c = JSON.parse(readFileSync(CASE_URL, "utf8")) as BenchCase;
    const keys = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;
    const weekly = Object.fromEntries(
      keys.map((k, i) => [i, (c.weeklyHours[k] ?? []).map((h) => iv(h.start, h.end))]),
    ) as unknown as WeeklySchedule;
    const booked = c.bookings.map((b) => busy(b.start, b.end));
    const now = at(c.now);
    expect(booked).toHaveLength(5000);
    expect(c.services.map((s) => s.id).sort()).toEqual(Object.keys(EXPECTED).sort());

    for (const s of c.services) {
      const r: SlotRules = {
        timeZone: c.timeZone,
        weekly,
        daysOff: [],
        serviceMinutes: s.minutes,
        minimumNoticeMinutes: 0,
        windowDays: 30,
      };
      const slots = isoList(computeSlots(r, booked, now));
      const [count, first, last] = EXPECTED[s.id]!;
      expect({ id: s.id, count: slots.length, first: slots[0], last: slots.at(-1) }).toEqual({ id: s.id, count, first, last });
      if (s.id === "s02") {
        expect(createHash("sha256").update(slots.join("\n")).digest("hex").slice(0, 12)).toBe("20a9073c6f88");
        // Window-only bookings give the same list.
        const end = now + 30 * 86_400_000;
        const windowOnly = booked.filter((b) => b.end > now && b.start < end);
        expect(windowOnly).toHaveLength(106);
        expect(isoList(computeSlots(r, windowOnly, now))).toEqual(slots);
      }
    }
  });
});
