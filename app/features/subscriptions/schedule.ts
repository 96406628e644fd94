// Subscription call schedule: when a subscriber's next AI support call is due.
//
// Pure and synchronous: no I/O, no wall clock (`after` is always passed in), no dependency beyond
// Intl. The job runner stores the result as next_call_at and, once a minute, calls every
// subscriber whose next_call_at <= now, then stores nextCallAt(schedule, now-or-that-instant).
//
// Calendar rules, in the subscriber's own local calendar (their IANA time zone):
//
//   - The series starts on the anchor's local date (signup or the last preferences change). Only
//     occurrences strictly after the anchor instant count, so the first call is the first
//     occurrence at `time` on or after the anchor's local date that lies after the anchor.
//   - every_two_days: every second local date counted from the anchor's local date.
//   - weekly:         the anchor's local weekday, every week.
//   - bi_weekly:      TWICE a week: the anchor's local weekday and the weekday three days later
//                     (anchor on a Monday: Mondays and Thursdays).
//   - monthly:        the anchor's local day of the month, clamped to the month's last day
//                     (anchor 31 January: 28 February, 31 March, 30 April, ...). The clamp is per
//                     month, it never drifts.
//
// Local wall time to instant (the same as Temporal's "compatible" disambiguation):
//
//   - a wall time that does not exist (spring-forward gap) moves forward by the gap's length:
//     02:30 on a US spring-forward day is 03:30 daylight time;
//   - an ambiguous wall time (fall-back overlap) takes the earlier instant: 01:30 on a US
//     fall-back day is 01:30 daylight time.
//
// Quiet hours (08:00 to 21:00 local) are a rule on the stored preference: isCallTimeAllowed()
// refuses a time outside them where preferences are saved. nextCallAt() itself accepts any valid
// "HH:MM" so that a stored time always yields a next instant (the job runner must never stall on
// a row); only a spring-forward gap can move a time, and no zone has a gap inside 08:00-21:00.
//
// Performance (100,000 calls in about 25 ms warm, 135 ms cold; bench/next-due.bench.ts): one
// Intl.DateTimeFormat per zone, created on first use and kept; UTC offsets cached per (zone, day),
// where a day's entry says "no transition within reach of this day, the offset is X" and costs two
// Intl calls once. For the few days near a transition the cache keeps the transition itself (its
// instant, found once by binary search, and the offsets either side), so those days are as cheap:
// the job runner meets them for every subscriber of a zone at once. A call of nextCallAt is integer
// arithmetic plus three or four Map lookups and the one Date it returns.
//
// Assumption of the (zone, day) cache: a zone never has two offset transitions within ~52 hours
// of each other (true of every zone for the dates a subscription can have; bench/next-due.bench.ts
// checks results against a brute-force reference).

import { checkedTime, civilFromDays, daysFromCivil, daysInMonth, localDayOf, wallToInstant, zoneFor } from "~/lib/zoned-time";

export const SCHEDULE_TYPES = ["every_two_days", "weekly", "bi_weekly", "monthly"] as const;
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];

export const QUIET_HOURS = { start: "08:00", end: "21:00" } as const;

export interface CallSchedule {
  type: ScheduleType;
  /** "HH:MM", 24-hour, local wall time. */
  time: string;
  /** IANA name, e.g. "Asia/Tokyo". */
  timeZone: string;
  /** When the schedule started: signup or the last change of preferences. */
  anchor: Date;
}

// ---------------------------------------------------------------------------------------------
// Validation

export function isScheduleType(value: unknown): value is ScheduleType {
  return typeof value === "string" && (SCHEDULE_TYPES as readonly string[]).includes(value);
}

/** Minutes since local midnight of a strict "HH:MM" (00:00 to 23:59), or -1 if it is not one. */
export function parseTime(hhmm: unknown): number {
  if (typeof hhmm !== "string" || hhmm.length !== 5 || hhmm.charCodeAt(2) !== 58 /* : */) return -1;
  const h1 = hhmm.charCodeAt(0) - 48;
  const h2 = hhmm.charCodeAt(1) - 48;
  const m1 = hhmm.charCodeAt(3) - 48;
  const m2 = hhmm.charCodeAt(4) - 48;
  if (h1 < 0 || h1 > 9 || h2 < 0 || h2 > 9 || m1 < 0 || m1 > 5 || m2 < 0 || m2 > 9) return -1;
  const hour = h1 * 10 + h2;
  if (hour > 23) return -1;
  return hour * 60 + m1 * 10 + m2;
}

const QUIET_START = parseTime(QUIET_HOURS.start);
const QUIET_END = parseTime(QUIET_HOURS.end);

/** A valid "HH:MM" within the calling window [08:00, 21:00], both ends included. */
export function isCallTimeAllowed(hhmm: string): boolean {
  const minute = parseTime(hhmm);
  return minute >= 0 && minute >= QUIET_START && minute <= QUIET_END;
}

// ---------------------------------------------------------------------------------------------
// Local time

/** The instant of a local date and "HH:MM" in a zone (gap forward, overlap earlier). Throws
 * RangeError for an unknown zone, an invalid time or an impossible date. */
export function localTimeToInstant(timeZone: string, date: { year: number; month: number; day: number }, time: string): Date {
  const zone = zoneFor(timeZone);
  const minute = parseTime(time);
  if (minute < 0) throw new RangeError(`Not an "HH:MM" time: ${JSON.stringify(time)}`);
  const { year, month, day } = date;
  if (!Number.isInteger(year) || !Number.isInteger(month) || !Number.isInteger(day) || month < 1 || month > 12) {
    throw new RangeError("Not a calendar date");
  }
  if (day < 1 || day > daysInMonth(year, month)) throw new RangeError("Not a calendar date");
  return new Date(wallToInstant(zone, daysFromCivil(year, month, day), minute));
}

// ---------------------------------------------------------------------------------------------
// The schedule

/** The first day of the series on or after `from` (both day numbers, from >= anchorDay). */
function seriesDayOnOrAfter(type: ScheduleType, anchorDay: number, from: number): number {
  const since = from - anchorDay;
  switch (type) {
    case "every_two_days":
      return anchorDay + Math.ceil(since / 2) * 2;
    case "weekly":
      return anchorDay + Math.ceil(since / 7) * 7;
    case "bi_weekly": {
      const week = anchorDay + Math.floor(since / 7) * 7;
      if (from <= week) return week;
      if (from <= week + 3) return week + 3;
      return week + 7;
    }
    case "monthly": {
      const anchor = civilFromDays(anchorDay);
      const start = civilFromDays(from);
      let year = start.year;
      let month = start.month;
      for (;;) {
        const day = daysFromCivil(year, month, Math.min(anchor.day, daysInMonth(year, month)));
        if (day >= from) return day;
        if (++month > 12) {
          month = 1;
          year++;
        }
      }
    }
  }
}

/**
 * The first scheduled call strictly after `after` (and after the schedule's anchor). Throws
 * RangeError for an unknown schedule type, a time that is not "HH:MM", an unknown time zone or an
 * invalid date.
 */
export function nextCallAt(schedule: CallSchedule, after: Date): Date {
  const { type } = schedule;
  if (!isScheduleType(type)) throw new RangeError(`Unknown schedule type: ${JSON.stringify(type)}`);
  const minute = parseTime(schedule.time);
  if (minute < 0) throw new RangeError(`Not an "HH:MM" time: ${JSON.stringify(schedule.time)}`);
  const zone = zoneFor(schedule.timeZone);
  const anchorMs = checkedTime(schedule.anchor, "anchor");
  const afterMs = checkedTime(after, "after");

  const threshold = Math.max(anchorMs, afterMs);
  const anchorDay = localDayOf(zone, anchorMs);
  // Two local days back from the threshold's date is safely before any occurrence after it, even
  // across a transition; the loop walks the series forward from there.
  let day = Math.max(anchorDay, localDayOf(zone, threshold) - 2);
  for (;;) {
    day = seriesDayOnOrAfter(type, anchorDay, day);
    const instant = wallToInstant(zone, day, minute);
    if (instant > threshold) return new Date(instant);
    day++;
  }
}
