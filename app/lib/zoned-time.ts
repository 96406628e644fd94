// Time zones: local wall time <-> instant, for every zone Intl knows. One module for the
// booking slots, the subscribers' schedules, e-mails and pages.
//
// Local wall time to instant (the same as Temporal's "compatible" disambiguation):
//
//   - a wall time that does not exist (spring-forward gap) moves forward by the gap's length:
//     02:30 on a US spring-forward day is 03:30 daylight time;
//   - an ambiguous wall time (fall-back overlap) takes the earlier instant: 01:30 on a US
//     fall-back day is 01:30 daylight time.
//
// Performance: one Intl.DateTimeFormat per zone, created on first use and kept; UTC offsets cached
// per (zone, day), where a day's entry says "no transition within reach of this day, the offset is
// X" and costs two Intl calls once. For the few days near a transition the cache keeps the
// transition itself (its instant, found once by binary search, and the offsets either side).
// Assumption of the (zone, day) cache: a zone never has two offset transitions within ~52 hours
// of each other (bench/next-due.bench.ts checks results against a brute-force reference).
//
// Day numbers are days since 1970-01-01 (proleptic Gregorian); a "wall" value is a local date and
// time written as if it were a UTC epoch value in ms.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

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

export function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** 0 = Sunday ... 6 = Saturday; day 0 (1970-01-01) was a Thursday. */
export function weekdayOf(days: number): 0 | 1 | 2 | 3 | 4 | 5 | 6 {
  return ((((days + 4) % 7) + 7) % 7) as 0 | 1 | 2 | 3 | 4 | 5 | 6;
}

// ---------------------------------------------------------------------------------------------
// Zones and offsets

export interface Zone {
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

export function zoneFor(timeZone: string): Zone {
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

export function offsetAt(zone: Zone, ms: number): number {
  const day = Math.floor(ms / DAY);
  const offset = dayOffset(zone, day);
  if (offset === offset) return offset;
  const transition = transitionNear(zone, day);
  return ms < transition.at ? transition.before : transition.after;
}

/** The local date (day number) of an instant. */
export function localDayOf(zone: Zone, ms: number): number {
  return Math.floor((ms + offsetAt(zone, ms)) / DAY);
}

/** The instant of local date `day` at `minuteOfDay`, gap forward, overlap earlier (see top). */
export function wallToInstant(zone: Zone, day: number, minuteOfDay: number): number {
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

export function checkedTime(date: Date, what: string): number {
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

/** An IANA time zone name this runtime's Intl knows ("Asia/Tokyo", "UTC"); offsets such as "+05:00" are refused. */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== "string") return false;
  try {
    zoneFor(name);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// By zone name, on epoch ms and "YYYY-MM-DD" dates

/** The zone's offset (local minus UTC, ms) at an instant. Throws RangeError for an unknown zone. */
export function zoneOffsetAt(instant: number, timeZone: string): number {
  return offsetAt(zoneFor(timeZone), instant);
}

/** The local wall time of an instant (see "wall" above). */
export function wallTime(instant: number, timeZone: string): number {
  return instant + offsetAt(zoneFor(timeZone), instant);
}

/** The instant of a wall time in the zone (gap forward, overlap earlier). */
export function instantOfWall(wall: number, timeZone: string): number {
  const day = Math.floor(wall / DAY);
  return wallToInstant(zoneFor(timeZone), day, (wall - day * DAY) / MINUTE);
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** "YYYY-MM-DD" -> day number. Throws RangeError if it is not a calendar date. */
export function dayOfLocalDate(localDate: string): number {
  const m = DATE_RE.exec(localDate);
  if (!m) throw new RangeError(`Invalid local date: ${localDate}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) throw new RangeError(`Invalid local date: ${localDate}`);
  return daysFromCivil(year, month, day);
}

const pad = (n: number, width = 2) => String(n).padStart(width, "0");

/** Day number -> "YYYY-MM-DD" (years 0..9999). */
export function localDateOfDay(day: number): string {
  const { year, month, day: date } = civilFromDays(day);
  return `${pad(year, 4)}-${pad(month)}-${pad(date)}`;
}

/** Local date and minute of the day -> instant in a zone (gap forward: 02:30 -> 03:30 in New York; overlap: the first occurrence). */
export function zonedTimeToUtc(localDate: string, minuteOfDay: number, timeZone: string): number {
  if (!Number.isFinite(minuteOfDay)) throw new RangeError(`Invalid minute of day: ${minuteOfDay}`);
  return wallToInstant(zoneFor(timeZone), dayOfLocalDate(localDate), Math.round(minuteOfDay * MINUTE) / MINUTE);
}

/** Instant -> { date: "YYYY-MM-DD", minuteOfDay, weekday } in a zone. */
export function utcToZoned(instant: number, timeZone: string): { date: string; minuteOfDay: number; weekday: 0 | 1 | 2 | 3 | 4 | 5 | 6 } {
  const wall = wallTime(instant, timeZone);
  const day = Math.floor(wall / DAY);
  return {
    date: localDateOfDay(day),
    minuteOfDay: Math.floor((wall - day * DAY) / MINUTE),
    weekday: weekdayOf(day),
  };
}

/** The main time zone of each country the app dials (ISO 3166 code), for a first guess at a person's zone. */
const COUNTRY_ZONES: Record<string, string> = {
  US: "America/New_York",
  CA: "America/Toronto",
  GB: "Europe/London",
  IE: "Europe/Dublin",
  FR: "Europe/Paris",
  BE: "Europe/Brussels",
  CH: "Europe/Zurich",
  DE: "Europe/Berlin",
  AT: "Europe/Vienna",
  ES: "Europe/Madrid",
  IT: "Europe/Rome",
  NL: "Europe/Amsterdam",
  PT: "Europe/Lisbon",
  MX: "America/Mexico_City",
  AR: "America/Argentina/Buenos_Aires",
  CO: "America/Bogota",
  CL: "America/Santiago",
  PE: "America/Lima",
  SA: "Asia/Riyadh",
  AE: "Asia/Dubai",
  QA: "Asia/Qatar",
  KW: "Asia/Kuwait",
  BH: "Asia/Bahrain",
  OM: "Asia/Muscat",
  EG: "Africa/Cairo",
  JO: "Asia/Amman",
  MA: "Africa/Casablanca",
  AU: "Australia/Sydney",
  NZ: "Pacific/Auckland",
  JP: "Asia/Tokyo",
};

export function zoneOfCountry(country: string): string | undefined {
  return COUNTRY_ZONES[country];
}
