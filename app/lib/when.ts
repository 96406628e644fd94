/**
 * The one way the owner's app writes dates and times: `Intl.DateTimeFormat` in the page's
 * language, in the business's time zone (so an owner travelling abroad still sees the times of
 * the shop). The language decides 12- or 24-hour clocks and digits; every page and list uses
 * these styles, so a time never reads differently in two places. Formatted on the server only,
 * so the browser's own ICU can never disagree with the server's rendering.
 */
import { rememberedValues } from "~/lib/sharing/remembered";
const styles = {
  dateTime: { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "numeric", minute: "2-digit" },
  /** The booking page's "When": the whole date, then the time. */
  full: { dateStyle: "full", timeStyle: "short" },
  date: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
  /** A day of the booking calendar, without its year ("Thursday 12 March"). */
  day: { weekday: "long", day: "numeric", month: "long" },
  time: { hour: "numeric", minute: "2-digit" },
  /** A month table's caption ("March 2026"). */
  month: { month: "long", year: "numeric" },
  /** A month table's column: the weekday's name, and its abbreviation. */
  weekday: { weekday: "long" },
  weekdayShort: { weekday: "short" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

export type WhenStyle = keyof typeof styles;

// Building an Intl.DateTimeFormat costs a hundred times what formatting with it does (that is what
// Date#toLocaleDateString does on every call): each locale, zone and style is built once and kept.
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(locale: string, timeZone: string, style: WhenStyle) {
  const key = `${locale}|${timeZone}|${style}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, { ...styles[style], timeZone });
    formatters.set(key, found);
  }
  return found;
}

/** An instant in the business's time zone. */
export function formatWhen(instant: Date | number | string, timeZone: string, locale: string, style: WhenStyle = "dateTime") {
  return formatter(locale, timeZone, style).format(new Date(instant));
}

/**
 * Calendar dates, months and weekdays as written, by locale, style and value: the same for every
 * page, and a booking calendar asks for about 90 of them on every render (a month table of the
 * date and time steps spent half its time formatting them again). A few languages and a
 * window of days at a time: the bound is only against an unending stream of odd locales. Zone
 * names are kept here too (zonePart).
 */
const remembered = rememberedValues<string>(10_000);

/** A calendar date ("2026-12-24") as the page's language writes it. */
export function formatLocalDate(date: string, locale: string, style: "date" | "day" = "date") {
  return remembered(`${locale}|${style}|${date}`, () => formatter(locale, "UTC", style).format(new Date(`${date}T12:00:00Z`)));
}

/** A month ("2026-03") as the page's language names it ("March 2026", "mars 2026"). */
export function formatMonth(month: string, locale: string) {
  return remembered(`${locale}|month|${month}`, () => formatter(locale, "UTC", "month").format(new Date(`${month}-15T12:00:00Z`)));
}

/** A weekday's name (0 is Sunday) in the page's language, in full or abbreviated. */
export function weekdayName(weekday: number, locale: string, style: "long" | "short" = "long") {
  return remembered(`${locale}|${style}|${weekday}`, () =>
    formatter(locale, "UTC", style === "long" ? "weekday" : "weekdayShort").format(new Date(Date.UTC(2024, 0, 7 + weekday, 12))),
  );
}

const relativeFormats = new Map<string, Intl.RelativeTimeFormat>();

/** A number of days from today in words ("tomorrow", "in 2 days", "demain"). */
export function formatRelativeDays(days: number, locale: string) {
  let found = relativeFormats.get(locale);
  if (!found) {
    found = new Intl.RelativeTimeFormat(locale, { numeric: "auto" });
    relativeFormats.set(locale, found);
  }
  return found.format(days, "day");
}

const secondFormats = new Map<string, Intl.NumberFormat>();

/** A call's length in seconds, in the page's language ("95 sec", "95 s"). */
export function formatSeconds(seconds: number, locale: string) {
  let found = secondFormats.get(locale);
  if (!found) {
    found = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short" });
    secondFormats.set(locale, found);
  }
  return found.format(seconds);
}

/** A wall-clock time of day ("09:30") as the page's language writes it ("9:30 AM", "09:30", "9:30 ص"). */
export function formatTimeOfDayLabel(minuteOfDay: number, locale: string) {
  return formatter(locale, "UTC", "time").format(new Date(Date.UTC(2024, 0, 1, 0, minuteOfDay)));
}

/** The zone `value` names, as `Intl` spells it, or null when it names none (a visitor's `?tz=`). */
export function knownTimeZone(value: unknown): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 64 || !/^[A-Za-z0-9_+\-/]+$/.test(value)) return null;
  try {
    return new Intl.DateTimeFormat("en", { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const zoneNameFormatters = new Map<string, Intl.DateTimeFormat>();

function zonePart(locale: string, timeZone: string, style: "long" | "longGeneric" | "shortOffset", at: Date) {
  // A zone's offset (and so its name) changes only at a quarter hour of UTC: every offset is whole
  // quarter hours and every change falls on a local hour or half hour. Within one quarter hour the
  // name is the same, and asking ICU for it was a thirtieth of a booking step's render.
  return remembered(`zone\u0000${locale}|${timeZone}|${style}|${Math.floor(at.getTime() / QUARTER_HOUR_MS)}`, () => {
    const key = `${locale}|${timeZone}|${style}`;
    let found = zoneNameFormatters.get(key);
    if (!found) {
      found = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: style });
      zoneNameFormatters.set(key, found);
    }
    return found.formatToParts(at).find((part) => part.type === "timeZoneName")?.value ?? timeZone;
  });
}

const QUARTER_HOUR_MS = 15 * 60_000;

/** The zone's long name at an instant ("Eastern Standard Time"), as `timeZoneName: "long"` writes it. */
export function zoneLongName(timeZone: string, locale: string, at: Date) {
  return zonePart(locale, timeZone, "long", at);
}

/**
 * A time zone named in words in the page's language ("Eastern Time", "توقيت وسط أوروبا"), never
 * its IANA id: the generic name, which holds all year round; where the language has none but an
 * offset ("GMT+00:00"), the long name if that one is words ("Coordinated Universal Time").
 */
export function zoneName(timeZone: string, locale: string, at = new Date()) {
  const generic = zonePart(locale, timeZone, "longGeneric", at);
  if (!/\d/.test(generic)) return generic;
  const long = zonePart(locale, timeZone, "long", at);
  return /\d/.test(long) ? generic : long;
}

/** The zone's name and its offset now, for a list of zones ("Eastern Time (GMT-5)"). */
export function zoneLabel(timeZone: string, locale: string, at = new Date()) {
  const name = zoneName(timeZone, locale, at);
  const offset = zonePart(locale, timeZone, "shortOffset", at);
  return name.includes(offset) ? name : `${name} (${offset})`;
}

interface ZoneGroup {
  label: string;
  /** Minutes east of UTC now, to sort the list as a map reads, west to east. */
  offset: number;
  zones: string[];
}

/** Each language's list, built for the hour it was built in: offsets change twice a year, so the list does too. */
const zoneGroups = new Map<string, { hour: number; groups: ZoneGroup[] }>();

function offsetMinutes(timeZone: string, at: Date) {
  const parts = zonePart("en", timeZone, "shortOffset", at);
  const match = /GMT([+-])(\d+)(?::(\d+))?/.exec(parts);
  if (!match) return 0;
  return (match[1] === "-" ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3] ?? 0));
}

/**
 * Every zone `Intl` knows, one entry per zone that reads the same in the language and keeps the
 * same clocks all year (New York and Detroit are both "Eastern Time"): a list a person can scan.
 * Built once per language and hour (a long-running server crosses a clock change: "Eastern Time
 * (GMT-4)" becomes "(GMT-5)" within the hour).
 */
function groupsFor(locale: string) {
  const now = new Date();
  const hour = Math.floor(now.getTime() / 3_600_000);
  const kept = zoneGroups.get(locale);
  if (kept?.hour === hour) return kept.groups;
  const year = now.getUTCFullYear();
  const january = new Date(Date.UTC(year, 0, 15));
  const july = new Date(Date.UTC(year, 6, 15));
  const byKey = new Map<string, ZoneGroup>();
  for (const zone of ["UTC", ...Intl.supportedValuesOf("timeZone")]) {
    const label = zoneLabel(zone, locale, now);
    const key = `${label}|${offsetMinutes(zone, january)}|${offsetMinutes(zone, july)}`;
    const group = byKey.get(key);
    if (group) group.zones.push(zone);
    else byKey.set(key, { label, offset: offsetMinutes(zone, now), zones: [zone] });
  }
  const groups = [...byKey.values()].sort((a, b) => a.offset - b.offset || a.label.localeCompare(b.label, locale));
  zoneGroups.set(locale, { hour, groups });
  return groups;
}

/**
 * The visitor's choice of time zone: each zone once, in words, and `keep` (the business's zone,
 * the one chosen) as the value of its entry, so the list shows it selected.
 */
export function zoneOptions(locale: string, keep: string[]) {
  const options = groupsFor(locale).map((group) => ({
    value: keep.find((zone) => group.zones.includes(zone)) ?? group.zones[0]!,
    label: group.label,
  }));
  for (const zone of keep) {
    if (!options.some((option) => option.value === zone)) options.push({ value: zone, label: zoneLabel(zone, locale) });
  }
  return options;
}

/** A booking's time in its e-mails, messages and the customer's page: the whole date and time in the business's zone, and the zone in words. */
export function formatWhenWithZone(instant: Date | number | string, timeZone: string, locale: string) {
  return `${formatWhen(instant, timeZone, locale, "full")} (${zoneName(timeZone, locale)})`;
}

/** A 12- or 24-hour clock a visitor chose, or the language's own (""). */
export type ClockChoice = "" | "12" | "24";

/**
 * The visitor's choices of how times are written, read from an address or a form (`tz`, `clock`),
 * carried by every link and form of a customer's page (the booking page, the manage page), so they
 * work without JavaScript. `zone` falls back to `fallbackZone`; `locale` is the language with the
 * chosen clock (Intl's hour-cycle extension), for `formatWhen`; `keep` holds what was chosen.
 */
export function viewChoiceOf(source: { get(name: string): unknown }, fallbackZone: string, language: string) {
  const tz = knownTimeZone(source.get("tz"));
  const clockParam = source.get("clock");
  const clock: ClockChoice = clockParam === "12" || clockParam === "24" ? clockParam : "";
  const locale = clock ? `${language}-u-hc-${clock === "24" ? "h23" : "h12"}` : language;
  const keep: Record<string, string> = {};
  if (tz) keep.tz = tz;
  if (clock) keep.clock = clock;
  return { zone: tz ?? fallbackZone, chosenZone: tz, clock, locale, keep };
}
