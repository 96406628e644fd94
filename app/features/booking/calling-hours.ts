import { dayOfLocalDate, localDateOfDay, utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";

/** Booking confirmation calls ring only between 08:00 and 21:00 where the customer is. */
export const CALL_HOURS = { start: 8 * 60, end: 21 * 60 };

/** The next moment inside calling hours in `timeZone`, or null when `now` already is. */
export function nextCallingTime(now: number, timeZone: string): Date | null {
  const local = utcToZoned(now, timeZone);
  if (local.minuteOfDay >= CALL_HOURS.start && local.minuteOfDay < CALL_HOURS.end) return null;
  const date = local.minuteOfDay < CALL_HOURS.start ? local.date : localDateOfDay(dayOfLocalDate(local.date) + 1);
  return new Date(zonedTimeToUtc(date, CALL_HOURS.start, timeZone));
}
