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
 * The bookings a business received in [from, to), counted four ways in one pass over the
 * (business_id, created_at) index: by status, by the weekday and the hour of the appointment,
 * and by the day the booking was made. Days and hours are the business's wall clock
 * (`timeZone`, IANA), so a DST change moves nothing into the wrong bucket.
 */
export async function bookingFigures(db: Db, businessId: number, timeZone: string, from: Date, to: Date): Promise<BookingFigures> {
  const result = (await db.execute(sql`
    select status, dow, hour, day, count(*)::int as made, (count(*) filter (where status <> 'cancelled'))::int as live
    from (
      select status::text as status,
             extract(isodow from starts_at at time zone ${timeZone})::int as dow,
             extract(hour from starts_at at time zone ${timeZone})::int as hour,
             to_char(created_at at time zone ${timeZone}, 'YYYY-MM-DD') as day
      from bookings
      where business_id = ${businessId}
        and created_at >= ${from.toISOString()}::timestamptz
        and created_at < ${to.toISOString()}::timestamptz
    ) made
    group by grouping sets ((status), (dow), (hour), (day))`)) as unknown as {
    rows: { status: string | null; dow: number | null; hour: number | null; day: string | null; made: number; live: number }[];
  };
  const figures: BookingFigures = { byStatus: {}, byWeekday: {}, byHour: {}, byDay: {} };
  // Each row belongs to one grouping set: the one column it is grouped by is the only one set.
  // A weekday or hour with cancelled bookings only counts none, and is left out like an empty one.
  for (const row of result.rows) {
    if (row.status !== null) figures.byStatus[row.status as BookingStatus] = row.made;
    else if (row.dow !== null) {
      if (row.live > 0) figures.byWeekday[row.dow] = row.live;
    } else if (row.hour !== null) {
      if (row.live > 0) figures.byHour[row.hour] = row.live;
    } else if (row.day !== null) figures.byDay[row.day] = row.made;
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
 * length. What the customer said on the call wins over how the call ended (a customer who
 * confirmed and then hung up confirmed); a machine, then an answer without a decision, then no
 * answer at all. `outcome` holds the agent's words (see app/features/voice/agents.server.ts).
 */
export async function callFigures(db: Db, businessId: number, from: Date, to: Date): Promise<CallFigures> {
  const result = (await db.execute(sql`
    select result, count(*)::int as calls, coalesce(sum(duration_seconds), 0)::int as seconds
    from (
      select duration_seconds,
        case
          when outcome = 'confirmed' then 'confirmed'
          when outcome = 'cancelled' then 'cancelled'
          when outcome like 'reschedule requested%' then 'reschedule'
          when outcome = 'do not call' then 'do_not_call'
          when outcome = 'voicemail' or answered_by like 'machine%' or answered_by = 'fax' then 'voicemail'
          when status in ('queued', 'initiated', 'ringing', 'in-progress') then 'in_progress'
          when status = 'completed' then 'no_decision'
          else 'not_reached'
        end as result
      from calls
      where business_id = ${businessId}
        and purpose = 'booking_confirmation'
        and started_at >= ${from.toISOString()}::timestamptz
        and started_at < ${to.toISOString()}::timestamptz
    ) placed
    group by result`)) as unknown as { rows: { result: CallResult; calls: number; seconds: number }[] };
  const figures: CallFigures = { byResult: {}, placed: 0, seconds: 0 };
  for (const row of result.rows) {
    figures.byResult[row.result] = row.calls;
    figures.placed += row.calls;
    figures.seconds += row.seconds;
  }
  return figures;
}
