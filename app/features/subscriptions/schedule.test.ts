// Expected instants were computed outside this code, with GNU date, e.g.
//   date -u -d 'TZ="America/Los_Angeles" 2026-03-09 14:00' +%FT%TZ   → 2026-03-09T21:00:00Z
// and weekdays with `date -d 2026-03-02 +%a` (Mon).
import { describe, expect, it } from "vitest";
import { isTimeZone, localParts } from "~/lib/zoned-time";
import { type CallSchedule, isCallTimeAllowed, localTimeToInstant, nextCallAt, QUIET_HOURS, SCHEDULE_TYPES } from "./schedule";

const LA = "America/Los_Angeles";
const TOKYO = "Asia/Tokyo";
const LONDON = "Europe/London";

/** The first `count` calls of a schedule, each computed from the one before, as the job runner does. */
function calls(schedule: CallSchedule, count: number, from: string = schedule.anchor.toISOString()): string[] {
  const out: string[] = [];
  let after = new Date(from);
  for (let i = 0; i < count; i++) {
    after = nextCallAt(schedule, after);
    out.push(after.toISOString());
  }
  return out;
}

const at = (iso: string) => new Date(iso);

describe("quiet hours and validation", () => {
  it("allows 08:00 to 21:00 local, both ends included", () => {
    expect(QUIET_HOURS).toEqual({ start: "08:00", end: "21:00" });
    for (const t of ["08:00", "08:01", "12:30", "20:59", "21:00"]) expect(isCallTimeAllowed(t), t).toBe(true);
    for (const t of ["07:59", "21:01", "00:00", "23:59", "03:00"]) expect(isCallTimeAllowed(t), t).toBe(false);
  });

  it("refuses strings that are not HH:MM", () => {
    for (const t of ["24:00", "7:00", "ab:cd", "", "08:60", "08:00 ", " 8:00", "0800", "08-00", "12:3", "+8:00", "１２:００"]) {
      expect(isCallTimeAllowed(t), JSON.stringify(t)).toBe(false);
    }
  });

  it("knows the four schedule types", () => {
    expect(SCHEDULE_TYPES).toEqual(["every_two_days", "weekly", "bi_weekly", "monthly"]);
  });

  it("accepts IANA zones and refuses unknown ones", () => {
    for (const z of ["UTC", TOKYO, LA, LONDON, "Asia/Kolkata", "Pacific/Auckland"]) expect(isTimeZone(z), z).toBe(true);
    for (const z of ["Mars/Olympus_Mons", "Asia/Tokyoo", "", "+05:00", "-08:00", "Europe/", 42, null, undefined]) {
      expect(isTimeZone(z), String(z)).toBe(false);
    }
  });

  it("nextCallAt throws a RangeError for an unknown zone, a bad time, a bad type or an invalid date", () => {
    const ok: CallSchedule = { type: "weekly", time: "14:00", timeZone: LA, anchor: at("2026-02-23T18:00:00Z") };
    const after = at("2026-03-01T00:00:00Z");
    expect(() => nextCallAt({ ...ok, timeZone: "Mars/Olympus_Mons" }, after)).toThrow(RangeError);
    expect(() => nextCallAt({ ...ok, time: "7:00" }, after)).toThrow(RangeError);
    expect(() => nextCallAt({ ...ok, time: "24:00" }, after)).toThrow(RangeError);
    expect(() => nextCallAt({ ...ok, type: "daily" as never }, after)).toThrow(RangeError);
    expect(() => nextCallAt({ ...ok, anchor: new Date(NaN) }, after)).toThrow(RangeError);
    expect(() => nextCallAt(ok, new Date("not a date"))).toThrow(RangeError);
  });
});

describe("every_two_days", () => {
  it("counts every second local date from the anchor's local date (Tokyo, anchor just after local midnight)", () => {
    // 2026-03-01T16:30Z is Monday 2 March 01:30 in Tokyo: the series starts on 2 March, not 1 March.
    const s: CallSchedule = { type: "every_two_days", time: "10:00", timeZone: TOKYO, anchor: at("2026-03-01T16:30:00Z") };
    expect(calls(s, 3)).toEqual(["2026-03-02T01:00:00.000Z", "2026-03-04T01:00:00.000Z", "2026-03-06T01:00:00.000Z"]);
    // 5 March is not a call day.
    expect(nextCallAt(s, at("2026-03-04T12:00:00Z")).toISOString()).toBe("2026-03-06T01:00:00.000Z");
  });

  it("keeps 14:00 local across Los Angeles' spring forward (22:00Z, then 21:00Z)", () => {
    const s: CallSchedule = { type: "every_two_days", time: "14:00", timeZone: LA, anchor: at("2026-03-05T17:00:00Z") };
    expect(calls(s, 3)).toEqual(["2026-03-05T22:00:00.000Z", "2026-03-07T22:00:00.000Z", "2026-03-09T21:00:00.000Z"]);
  });
});

describe("weekly", () => {
  const s: CallSchedule = { type: "weekly", time: "14:00", timeZone: LA, anchor: at("2026-02-23T18:00:00Z") }; // Mon 10:00 PST

  it("calls on the anchor's weekday; a Los Angeles 14:00 call is 22:00Z before spring forward and 21:00Z after", () => {
    expect(calls(s, 3)).toEqual(["2026-02-23T22:00:00.000Z", "2026-03-02T22:00:00.000Z", "2026-03-09T21:00:00.000Z"]);
  });

  it("is back to 22:00Z after the fall back of 1 November 2026", () => {
    expect(calls(s, 2, "2026-10-20T00:00:00Z")).toEqual(["2026-10-26T21:00:00.000Z", "2026-11-02T22:00:00.000Z"]);
  });

  it("starts the next week when the anchor comes after that day's call time", () => {
    const late = { ...s, anchor: at("2026-02-23T23:00:00Z") }; // Mon 15:00 PST, after 14:00
    expect(nextCallAt(late, late.anchor).toISOString()).toBe("2026-03-02T22:00:00.000Z");
  });

  it("never calls before the anchor, whatever `after` says", () => {
    expect(nextCallAt(s, at("2025-01-01T00:00:00Z")).toISOString()).toBe("2026-02-23T22:00:00.000Z");
  });

  it("given `after` exactly at a call, returns the next call; a millisecond before, that call", () => {
    expect(nextCallAt(s, at("2026-03-02T22:00:00.000Z")).toISOString()).toBe("2026-03-09T21:00:00.000Z");
    expect(nextCallAt(s, at("2026-03-02T21:59:59.999Z")).toISOString()).toBe("2026-03-02T22:00:00.000Z");
  });

  it("Tokyo has no daylight saving: 14:00 JST is 05:00Z in March and in November", () => {
    const tokyo: CallSchedule = { type: "weekly", time: "14:00", timeZone: TOKYO, anchor: at("2026-03-01T16:30:00Z") };
    expect(calls(tokyo, 2)).toEqual(["2026-03-02T05:00:00.000Z", "2026-03-09T05:00:00.000Z"]);
    expect(nextCallAt(tokyo, at("2026-10-27T00:00:00Z")).toISOString()).toBe("2026-11-02T05:00:00.000Z");
  });

  it("a year of calls computed one from the next are all on Monday at 14:00 Los Angeles time", () => {
    const year = calls(s, 53);
    expect(year.at(-1)).toBe("2027-02-22T22:00:00.000Z");
    for (const iso of year) {
      const p = localParts(at(iso), LA);
      expect([p.weekday, p.hour, p.minute], iso).toEqual([1, 14, 0]);
    }
  });
});

describe("bi_weekly (twice a week)", () => {
  // Monday 2 March 2026, 09:00 in Tokyo.
  const s: CallSchedule = { type: "bi_weekly", time: "18:00", timeZone: TOKYO, anchor: at("2026-03-02T00:00:00Z") };

  it("calls on the anchor's weekday and three days later: Mondays and Thursdays", () => {
    const four = calls(s, 4);
    expect(four).toEqual(["2026-03-02T09:00:00.000Z", "2026-03-05T09:00:00.000Z", "2026-03-09T09:00:00.000Z", "2026-03-12T09:00:00.000Z"]);
    expect(four.map((iso) => localParts(at(iso), TOKYO).weekday)).toEqual([1, 4, 1, 4]);
  });

  it("gives exactly two calls in every week", () => {
    const all = calls(s, 40);
    const perWeek = new Map<number, number>();
    const monday = Date.parse("2026-03-01T15:00:00Z"); // Monday 2 March 00:00 JST
    for (const iso of all) {
      const week = Math.floor((Date.parse(iso) - monday) / (7 * 86_400_000));
      perWeek.set(week, (perWeek.get(week) ?? 0) + 1);
    }
    expect([...perWeek.values()]).toEqual(Array(20).fill(2));
  });

  it("an anchor on a Friday gives Fridays and Mondays", () => {
    const friday = { ...s, anchor: at("2026-03-06T00:00:00Z") }; // Fri 6 March 09:00 JST
    expect(calls(friday, 3).map((iso) => localParts(at(iso), TOKYO).weekday)).toEqual([5, 1, 5]);
  });
});

describe("monthly", () => {
  it("clamps the 31st to the month's last day without drifting: 31 Jan, 28 Feb, 31 Mar, 30 Apr 2026", () => {
    const s: CallSchedule = { type: "monthly", time: "10:00", timeZone: "UTC", anchor: at("2026-01-31T08:00:00Z") };
    expect(calls(s, 4)).toEqual([
      "2026-01-31T10:00:00.000Z",
      "2026-02-28T10:00:00.000Z",
      "2026-03-31T10:00:00.000Z",
      "2026-04-30T10:00:00.000Z",
    ]);
  });

  it("uses 29 February in a leap year (2028)", () => {
    const s: CallSchedule = { type: "monthly", time: "10:00", timeZone: "UTC", anchor: at("2028-01-31T08:00:00Z") };
    expect(calls(s, 2)).toEqual(["2028-01-31T10:00:00.000Z", "2028-02-29T10:00:00.000Z"]);
  });

  it("keeps 09:00 local in Los Angeles across spring forward (17:00Z, then 16:00Z)", () => {
    const s: CallSchedule = { type: "monthly", time: "09:00", timeZone: LA, anchor: at("2026-02-15T16:00:00Z") }; // 15 Feb 08:00 PST
    expect(calls(s, 2)).toEqual(["2026-02-15T17:00:00.000Z", "2026-03-15T16:00:00.000Z"]);
  });
});

describe("daylight saving transitions", () => {
  it("a 02:30 Los Angeles call on 8 March 2026 (spring forward) happens at 03:30 PDT, 10:30Z", () => {
    // Sunday 1 March 01:00 PST; weekly on Sundays at 02:30.
    const s: CallSchedule = { type: "weekly", time: "02:30", timeZone: LA, anchor: at("2026-03-01T09:00:00Z") };
    const [first, gapDay, after] = calls(s, 3);
    expect([first, gapDay, after]).toEqual(["2026-03-01T10:30:00.000Z", "2026-03-08T10:30:00.000Z", "2026-03-15T09:30:00.000Z"]);
    expect(localParts(at(gapDay!), LA)).toMatchObject({ year: 2026, month: 3, day: 8, hour: 3, minute: 30, offsetMinutes: -420 });
  });

  it("a 01:30 Los Angeles call on 1 November 2026 (fall back) takes the earlier 01:30, 08:30Z, once", () => {
    // Sunday 25 October 00:00 PDT; weekly on Sundays at 01:30.
    const s: CallSchedule = { type: "weekly", time: "01:30", timeZone: LA, anchor: at("2026-10-25T07:00:00Z") };
    expect(calls(s, 3)).toEqual(["2026-10-25T08:30:00.000Z", "2026-11-01T08:30:00.000Z", "2026-11-08T09:30:00.000Z"]);
    // The second 01:30 (PST, 09:30Z) is not another call.
    expect(nextCallAt(s, at("2026-11-01T08:30:00Z")).toISOString()).toBe("2026-11-08T09:30:00.000Z");
  });

  it("converts wall times directly: gap forward, overlap earlier", () => {
    expect(localTimeToInstant(LA, { year: 2026, month: 3, day: 8 }, "02:30").toISOString()).toBe("2026-03-08T10:30:00.000Z");
    expect(localTimeToInstant(LA, { year: 2026, month: 11, day: 1 }, "01:30").toISOString()).toBe("2026-11-01T08:30:00.000Z");
    expect(localTimeToInstant(LONDON, { year: 2026, month: 3, day: 29 }, "01:30").toISOString()).toBe("2026-03-29T01:30:00.000Z");
    expect(localTimeToInstant(LONDON, { year: 2026, month: 10, day: 25 }, "01:30").toISOString()).toBe("2026-10-25T00:30:00.000Z");
    expect(() => localTimeToInstant(LA, { year: 2026, month: 2, day: 29 }, "10:00")).toThrow(RangeError);
  });

  it("gets the minutes at the edges of the gap and the overlap right", () => {
    const instant = (month: number, day: number, time: string) => localTimeToInstant(LA, { year: 2026, month, day }, time).toISOString();
    // 8 March: 01:59 PST is the last minute before the gap, 02:00 does not exist (→ 03:00 PDT), 03:00 PDT is the first after.
    expect([instant(3, 8, "01:59"), instant(3, 8, "02:00"), instant(3, 8, "03:00")]).toEqual([
      "2026-03-08T09:59:00.000Z",
      "2026-03-08T10:00:00.000Z",
      "2026-03-08T10:00:00.000Z",
    ]);
    // 1 November: 00:59 is unique, 01:00 happens twice (the PDT one), 02:00 exists once (PST).
    expect([instant(11, 1, "00:59"), instant(11, 1, "01:00"), instant(11, 1, "02:00")]).toEqual([
      "2026-11-01T07:59:00.000Z",
      "2026-11-01T08:00:00.000Z",
      "2026-11-01T10:00:00.000Z",
    ]);
  });

  it("Europe/London: a Monday 09:00 call is 09:00Z before 29 March 2026 and 08:00Z after, 09:00Z again after 25 October", () => {
    const s: CallSchedule = { type: "weekly", time: "09:00", timeZone: LONDON, anchor: at("2026-03-16T08:00:00Z") };
    expect(calls(s, 3)).toEqual(["2026-03-16T09:00:00.000Z", "2026-03-23T09:00:00.000Z", "2026-03-30T08:00:00.000Z"]);
    expect(calls(s, 2, "2026-10-15T00:00:00Z")).toEqual(["2026-10-19T08:00:00.000Z", "2026-10-26T09:00:00.000Z"]);
  });

  it("Europe/London: a Sunday 01:30 call is 02:30 BST on 29 March and the BST 01:30 on 25 October", () => {
    const spring: CallSchedule = { type: "weekly", time: "01:30", timeZone: LONDON, anchor: at("2026-03-22T00:00:00Z") };
    expect(calls(spring, 2)).toEqual(["2026-03-22T01:30:00.000Z", "2026-03-29T01:30:00.000Z"]);
    expect(localParts(at("2026-03-29T01:30:00Z"), LONDON)).toMatchObject({ hour: 2, minute: 30, offsetMinutes: 60 });
    const autumn: CallSchedule = { type: "weekly", time: "01:30", timeZone: LONDON, anchor: at("2026-10-18T00:00:00Z") };
    expect(calls(autumn, 3)).toEqual(["2026-10-18T00:30:00.000Z", "2026-10-25T00:30:00.000Z", "2026-11-01T01:30:00.000Z"]);
  });
});

describe("localParts", () => {
  it("gives the local date, wall time, weekday and offset", () => {
    expect(localParts(at("2026-03-01T16:30:00Z"), TOKYO)).toEqual({
      year: 2026,
      month: 3,
      day: 2,
      hour: 1,
      minute: 30,
      second: 0,
      weekday: 1,
      offsetMinutes: 540,
    });
    expect(localParts(at("2026-03-08T09:59:59Z"), LA)).toMatchObject({ day: 8, hour: 1, minute: 59, second: 59, offsetMinutes: -480 });
    expect(localParts(at("2026-03-08T10:00:00Z"), LA)).toMatchObject({ day: 8, hour: 3, minute: 0, offsetMinutes: -420 });
    expect(localParts(at("2026-06-01T00:00:00Z"), "Asia/Kolkata")).toMatchObject({ hour: 5, minute: 30, offsetMinutes: 330 });
  });
});
