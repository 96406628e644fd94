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

/** A local date and wall time; month 1-12, weekday 0 = Sunday ... 6 = Saturday. */
export interface LocalParts {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  weekday: number;
  /** Local time minus UTC, in minutes (Asia/Tokyo: 540, Los Angeles in winter: -480). */
  offsetMinutes: number;
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

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

/** An IANA time zone name this runtime's Intl knows ("Asia/Tokyo", "UTC"); offsets such as
 * "+05:00" are refused even where Intl would take them, the schedule needs a zone's rules. */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== "string") return false;
  if (zones.has(name)) return true;
  try {
    zoneFor(name);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Civil calendar arithmetic on day numbers (days since 1970-01-01, proleptic Gregorian), after
// Howard Hinnant's algorithms: exact for every year, unlike Date.UTC's 0-99 → 1900s mapping.

export function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** 0 = Sunday ... 6 = Saturday; day 0 (1970-01-01) was a Thursday. */
function weekdayOf(days: number): number {
  return (((days + 4) % 7) + 7) % 7;
}

// ---------------------------------------------------------------------------------------------
// Zones and offsets

interface Zone {
  dtf: Intl.DateTimeFormat;
  /** Day number → the zone's offset (ms) throughout [day - 15 h, day + 37 h] in UTC terms, which
   * covers every instant of local date `day` and of UTC date `day`; NaN when a transition falls in
   * that window, and then `transitions` has it. */
  days: Map<number, number>;
  transitions: Map<number, Transition>;
}

/** An offset change: `before` applies to instants < `at`, `after` from `at` on (ms). */
interface Transition {
  at: number;
  before: number;
  after: number;
}

const zones = new Map<string, Zone>();
// A bound on each zone's day cache; a long-running process touches a few hundred days per zone.
const MAX_CACHED_DAYS = 50_000;

function zoneFor(timeZone: string): Zone {
  let zone = zones.get(timeZone);
  if (zone) return zone;
  // A zone name starts with a letter ("UTC", "Etc/GMT+5"); newer runtimes also take "+05:00".
  const first = timeZone.charCodeAt(0) | 0x20;
  if (!(first >= 97 && first <= 122)) throw new RangeError(`Unknown time zone: ${JSON.stringify(timeZone)}`);
  let dtf: Intl.DateTimeFormat;
  try {
    dtf = new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
  } catch {
    throw new RangeError(`Unknown time zone: ${JSON.stringify(timeZone)}`);
  }
  zone = { dtf, days: new Map(), transitions: new Map() };
  zones.set(timeZone, zone);
  return zone;
}

/** The zone's offset (local minus UTC, ms) at an instant, straight from Intl. The year is not read
 * (Intl writes years before 1 AD without a sign): the local date is the UTC date or one day either
 * side, told apart by month and day. */
function intlOffset(zone: Zone, ms: number): number {
  const t = ms - (((ms % SECOND) + SECOND) % SECOND);
  let month = 0;
  let day = 0;
  let hour = 0;
  let minute = 0;
  let second = 0;
  for (const part of zone.dtf.formatToParts(t)) {
    switch (part.type) {
      case "month":
        month = Number(part.value);
        break;
      case "day":
        day = Number(part.value);
        break;
      case "hour":
        hour = Number(part.value) % 24;
        break;
      case "minute":
        minute = Number(part.value);
        break;
      case "second":
        second = Number(part.value);
        break;
    }
  }
  const utcDay = Math.floor(t / DAY);
  let localDay = utcDay;
  for (const candidate of [utcDay, utcDay - 1, utcDay + 1]) {
    const c = civilFromDays(candidate);
    if (c.month === month && c.day === day) {
      localDay = candidate;
      break;
    }
  }
  return localDay * DAY + hour * HOUR + minute * MINUTE + second * SECOND - t;
}

const WINDOW_BEFORE = 15 * HOUR;
const WINDOW_AFTER = 37 * HOUR;

/** The cached offset around `day` (see Zone.days), NaN near a transition (see transitionNear). */
function dayOffset(zone: Zone, day: number): number {
  let offset = zone.days.get(day);
  if (offset === undefined) {
    const from = day * DAY - WINDOW_BEFORE;
    const to = day * DAY + WINDOW_AFTER;
    const before = intlOffset(zone, from);
    const after = intlOffset(zone, to);
    if (before === after) {
      offset = before;
    } else {
      // Binary search for the first second with the new offset (about 18 Intl calls, once per
      // zone and day near a transition; the job runner meets these days all at once).
      let lo = from / SECOND; // offset `before`
      let hi = to / SECOND; // offset `after`
      while (hi - lo > 1) {
        const mid = Math.floor((lo + hi) / 2);
        if (intlOffset(zone, mid * SECOND) === before) lo = mid;
        else hi = mid;
      }
      offset = NaN;
      if (zone.transitions.size >= MAX_CACHED_DAYS) zone.transitions.clear();
      zone.transitions.set(day, { at: hi * SECOND, before, after });
    }
    if (zone.days.size >= MAX_CACHED_DAYS) zone.days.clear();
    zone.days.set(day, offset);
  }
  return offset;
}

/** The transition near `day`, after dayOffset(zone, day) has answered NaN. */
function transitionNear(zone: Zone, day: number): Transition {
  let transition = zone.transitions.get(day);
  if (transition === undefined) {
    // Only if the transitions cache was cleared since: start over for this day.
    zone.days.delete(day);
    dayOffset(zone, day);
    transition = zone.transitions.get(day)!;
  }
  return transition;
}

function offsetAt(zone: Zone, ms: number): number {
  const day = Math.floor(ms / DAY);
  const offset = dayOffset(zone, day);
  if (offset === offset) return offset;
  const transition = transitionNear(zone, day);
  return ms < transition.at ? transition.before : transition.after;
}

/** The local date (day number) of an instant. */
function localDayOf(zone: Zone, ms: number): number {
  return Math.floor((ms + offsetAt(zone, ms)) / DAY);
}

/** The instant of local date `day` at `minuteOfDay`, gap forward, overlap earlier (see top). */
function wallToInstant(zone: Zone, day: number, minuteOfDay: number): number {
  const local = day * DAY + minuteOfDay * MINUTE;
  const offset = dayOffset(zone, day);
  if (offset === offset) return local - offset;
  // A transition within reach: which of the offsets either side of it give this wall time.
  const { at, before, after } = transitionNear(zone, day);
  const withBefore = local - before;
  const withAfter = local - after;
  const beforeFits = withBefore < at;
  const afterFits = withAfter >= at;
  if (beforeFits && afterFits) return Math.min(withBefore, withAfter); // overlap: the earlier
  if (afterFits) return withAfter;
  // Fits the offset before (ordinary), or neither: a gap, and the offset before the transition
  // carries the wall time forward by the gap's length.
  return withBefore;
}

function checkedTime(date: Date, what: string): number {
  const ms = date instanceof Date ? date.getTime() : NaN;
  if (!Number.isFinite(ms)) throw new RangeError(`${what} is not a valid date`);
  return ms;
}

/** The local date and wall time of an instant in a zone. Throws RangeError for an unknown zone. */
export function localParts(date: Date, timeZone: string): LocalParts {
  const zone = zoneFor(timeZone);
  const ms = checkedTime(date, "date");
  const offset = offsetAt(zone, ms);
  const local = ms + offset;
  const days = Math.floor(local / DAY);
  const { year, month, day } = civilFromDays(days);
  const inDay = local - days * DAY;
  return {
    year,
    month,
    day,
    hour: Math.floor(inDay / HOUR),
    minute: Math.floor((inDay % HOUR) / MINUTE),
    second: Math.floor((inDay % MINUTE) / SECOND),
    weekday: weekdayOf(days),
    offsetMinutes: offset / MINUTE,
  };
}

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
