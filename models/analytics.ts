import { sql } from "drizzle-orm";
import type { Db } from "./db";
import type { bookingStatus } from "./schema";

/**
 * The PostgreSQL channel on which a write that changes a business's figures names the business.
 * A notification is delivered when its transaction commits, to every process listening on the
 * same database (PGlite: this process), so a page open anywhere hears of a booking made anywhere.
 */
export const BUSINESS_CHANGES_CHANNEL = "sakina_business_changes";

/** Tells listeners that a business's bookings or calls changed (on commit, when inside a transaction). */
export async function announceBusinessChange(db: Db, businessId: number) {
  await db.execute(sql`select pg_notify(${BUSINESS_CHANGES_CHANNEL}, ${String(businessId)})`);
}

export type BookingStatus = (typeof bookingStatus.enumValues)[number];

export interface BookingFigures {
  byStatus: Partial<Record<BookingStatus, number>>;
  /** ISO weekday (1 Monday … 7 Sunday) of the appointments' local start; cancelled ones left out. */
  byWeekday: Record<number, number>;
  /** Local hour (0-23) of the appointments' start; cancelled ones left out. */
  byHour: Record<number, number>;
  /** Bookings made on each local date (YYYY-MM-DD), whatever became of them. */
  byDay: Record<string, number>;
}

/**
 * The local dates (the business's time zone) of `from` and `to`, and the instants they begin and
 * end: the roll-up counts whole dates, and what it holds of these two dates outside [from, to) is
 * read from the rows themselves and taken back off. A period starts at a local midnight (nothing
 * before it to take back) and ends now (nothing made after it, but for the instant since).
 */
const periodDates = (businessId: number, from: Date, to: Date) => sql`
  select time_zone as tz,
         (${from.toISOString()}::timestamptz at time zone time_zone)::date as first_day,
         (${to.toISOString()}::timestamptz at time zone time_zone)::date as last_day,
         ((${from.toISOString()}::timestamptz at time zone time_zone)::date::timestamp at time zone time_zone) as first_start,
         (((${to.toISOString()}::timestamptz at time zone time_zone)::date + 1)::timestamp at time zone time_zone) as last_end
  from businesses where id = ${businessId}`;

/**
 * The bookings a business received in [from, to), counted four ways: by status, by the weekday
 * and the hour of the appointment, and by the day the booking was made. Read from the daily
 * roll-up the database keeps (tables booking_day_*, kept by triggers: migration 0019), so the cost
 * is the number of days, not of bookings. Days and hours are the business's wall clock (its
 * current time zone), so a DST change moves nothing into the wrong bucket.
 */
export async function bookingFigures(db: Db, businessId: number, from: Date, to: Date): Promise<BookingFigures> {
  const result = (await db.execute(sql`
    with w as (${periodDates(businessId, from, to)}),
    edge as (
      select k.status, k.starts_at, k.created_at from bookings k, w
      where k.business_id = ${businessId} and k.created_at >= w.first_start and k.created_at < ${from.toISOString()}::timestamptz
      union all
      select k.status, k.starts_at, k.created_at from bookings k, w
      where k.business_id = ${businessId} and k.created_at >= ${to.toISOString()}::timestamptz and k.created_at < w.last_end
    ),
    made as (
      select s.day, s.status, s.bookings as n from booking_day_statuses s, w
      where s.business_id = ${businessId} and s.day between w.first_day and w.last_day
      union all
      select (e.created_at at time zone w.tz)::date, e.status, -1 from edge e, w
    )
    select 'status' as kind, status::text as key, sum(n)::int as n from made group by status
    union all
    select 'day', to_char(day, 'YYYY-MM-DD'), sum(n)::int from made group by day
    union all
    select 'weekday', weekday::text, sum(n)::int from (
      select d.weekday::int as weekday, d.bookings as n from booking_day_weekdays d, w
      where d.business_id = ${businessId} and d.day between w.first_day and w.last_day
      union all
      select extract(isodow from e.starts_at at time zone w.tz)::int, -1 from edge e, w where e.status <> 'cancelled'
    ) weekdays group by weekday
    union all
    select 'hour', hour::text, sum(n)::int from (
      select h.hour::int as hour, h.bookings as n from booking_day_hours h, w
      where h.business_id = ${businessId} and h.day between w.first_day and w.last_day
      union all
      select extract(hour from e.starts_at at time zone w.tz)::int, -1 from edge e, w where e.status <> 'cancelled'
    ) hours group by hour`)) as unknown as { rows: { kind: "status" | "day" | "weekday" | "hour"; key: string; n: number }[] };
  const figures: BookingFigures = { byStatus: {}, byWeekday: {}, byHour: {}, byDay: {} };
  // A bucket whose bookings all went elsewhere (or were cancelled) counts none, and is left out like an empty one.
  for (const { kind, key, n } of result.rows) {
    if (n <= 0) continue;
    if (kind === "status") figures.byStatus[key as BookingStatus] = n;
    else if (kind === "day") figures.byDay[key] = n;
    else if (kind === "weekday") figures.byWeekday[Number(key)] = n;
    else figures.byHour[Number(key)] = n;
  }
  return figures;
}

/** What came of one confirmation call, as the owner reads it. */
export const CALL_RESULTS = [
  "confirmed",
  "cancelled",
  "reschedule",
  "do_not_call",
  "no_decision",
  "voicemail",
  "not_reached",
  "in_progress",
] as const;
export type CallResult = (typeof CALL_RESULTS)[number];

export interface CallFigures {
  byResult: Partial<Record<CallResult, number>>;
  placed: number;
  seconds: number;
}

/**
 * The business's confirmation calls placed (started) in [from, to), by result, with their total
 * length, read from the daily roll-up (table call_day_results) like the bookings. The result is
 * the SQL function `analytics_call_result` (migration 0019), its only definition: what the
 * customer said on the call wins over how the call ended (a customer who confirmed and then hung
 * up confirmed); a machine, then an answer without a decision, then no answer at all. `outcome`
 * holds the agent's words (see app/voice/agents.server.ts).
 */
export async function callFigures(db: Db, businessId: number, from: Date, to: Date): Promise<CallFigures> {
  const result = (await db.execute(sql`
    with w as (${periodDates(businessId, from, to)}),
    edge as (
      select c.outcome, c.answered_by, c.status, c.duration_seconds from calls c, w
      where c.business_id = ${businessId} and c.purpose = 'booking_confirmation'
        and c.started_at >= w.first_start and c.started_at < ${from.toISOString()}::timestamptz
      union all
      select c.outcome, c.answered_by, c.status, c.duration_seconds from calls c, w
      where c.business_id = ${businessId} and c.purpose = 'booking_confirmation'
        and c.started_at >= ${to.toISOString()}::timestamptz and c.started_at < w.last_end
    )
    select result, sum(calls)::int as calls, sum(seconds)::int as seconds from (
      select r.result, r.calls, r.seconds from call_day_results r, w
      where r.business_id = ${businessId} and r.day between w.first_day and w.last_day
      union all
      select analytics_call_result(e.outcome, e.answered_by, e.status), -1, -coalesce(e.duration_seconds, 0) from edge e
    ) placed
    group by result`)) as unknown as { rows: { result: CallResult; calls: number; seconds: number }[] };
  const figures: CallFigures = { byResult: {}, placed: 0, seconds: 0 };
  for (const row of result.rows) {
    if (row.calls <= 0) continue;
    figures.byResult[row.result] = row.calls;
    figures.placed += row.calls;
    figures.seconds += row.seconds;
  }
  return figures;
}

/**
 * Calls people made to the business's own number that the receptionist took (ADR 0041), started
 * in [from, to), and the bookings made on them (their origin's session is the call's `inbound:`
 * CallSid). Read from the rows: few per business and day, found by (business, started_at).
 */
export async function inboundFigures(db: Db, businessId: number, from: Date, to: Date) {
  const result = (await db.execute(sql`
    select
      (select count(*)::int from calls c
        where c.business_id = ${businessId} and c.direction = 'inbound'
          and c.started_at >= ${from.toISOString()}::timestamptz and c.started_at < ${to.toISOString()}::timestamptz) as calls,
      (select count(*)::int from bookings k
        where k.business_id = ${businessId} and k.origin ->> 'session' like 'inbound:%'
          and k.created_at >= ${from.toISOString()}::timestamptz and k.created_at < ${to.toISOString()}::timestamptz) as bookings`)) as unknown as {
    rows: { calls: number; bookings: number }[];
  };
  const row = result.rows[0];
  return { calls: Number(row?.calls ?? 0), bookings: Number(row?.bookings ?? 0) };
}
