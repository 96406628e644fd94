import { and, eq, gt, lt, ne, sql } from "drizzle-orm";
import { feedBookingColumns } from "./calendar-feeds";
import type { Db } from "./db";
import { bookings, businessServices, calendarBusy, calendarConnections, calendarEvents } from "./schema";

export type CalendarConnection = typeof calendarConnections.$inferSelect;

export async function findCalendarConnection(db: Db, businessId: number) {
  const [row] = await db.select().from(calendarConnections).where(eq(calendarConnections.businessId, businessId));
  return row ?? null;
}

export async function hasCalendarConnection(db: Db, businessId: number) {
  const [row] = await db
    .select({ businessId: calendarConnections.businessId })
    .from(calendarConnections)
    .where(eq(calendarConnections.businessId, businessId));
  return Boolean(row);
}

export async function listCalendarConnections(db: Db) {
  return db.select().from(calendarConnections);
}

/** Connects (or reconnects) the business's calendar: the last sync's record starts afresh, and events written to another calendar are forgotten. */
export async function saveCalendarConnection(
  db: Db,
  connection: Pick<CalendarConnection, "businessId" | "calendarUrl" | "username" | "passwordSealed">,
) {
  await db.transaction(async (tx) => {
    const previous = await findCalendarConnection(tx, connection.businessId);
    if (previous && previous.calendarUrl !== connection.calendarUrl) {
      await tx.delete(calendarEvents).where(eq(calendarEvents.businessId, connection.businessId));
    }
    await tx.delete(calendarBusy).where(eq(calendarBusy.businessId, connection.businessId));
    await tx
      .insert(calendarConnections)
      .values({ ...connection, lastSyncAt: null, lastError: null, lastErrorAt: null })
      .onConflictDoUpdate({
        target: calendarConnections.businessId,
        set: { ...connection, lastSyncAt: null, lastError: null, lastErrorAt: null, createdAt: new Date() },
      });
  });
}

/** Disconnects: its busy times stop blocking slots at once; events already written stay on the owner's calendar. */
export async function deleteCalendarConnection(db: Db, businessId: number) {
  await db.transaction(async (tx) => {
    await tx.delete(calendarBusy).where(eq(calendarBusy.businessId, businessId));
    await tx.delete(calendarEvents).where(eq(calendarEvents.businessId, businessId));
    await tx.delete(calendarConnections).where(eq(calendarConnections.businessId, businessId));
  });
}

export async function recordCalendarSuccess(db: Db, businessId: number, at = new Date()) {
  await db
    .update(calendarConnections)
    .set({ lastSyncAt: at, lastError: null, lastErrorAt: null })
    .where(eq(calendarConnections.businessId, businessId));
}

export async function recordCalendarError(db: Db, businessId: number, error: string, at = new Date()) {
  await db
    .update(calendarConnections)
    .set({ lastError: error.slice(0, 500), lastErrorAt: at })
    .where(eq(calendarConnections.businessId, businessId));
}

/**
 * The busy times of [from, to) become `intervals`, in one transaction: a slot is never shown free
 * between the delete and the insert. True when anything changed (the caches then empty).
 */
export async function replaceCalendarBusy(db: Db, businessId: number, from: Date, to: Date, intervals: { start: number; end: number }[]) {
  return db.transaction(async (tx) => {
    const window = and(eq(calendarBusy.businessId, businessId), lt(calendarBusy.startsAt, to), gt(calendarBusy.endsAt, from));
    const before = await tx.select({ startsAt: calendarBusy.startsAt, endsAt: calendarBusy.endsAt }).from(calendarBusy).where(window);
    const key = (start: number, end: number) => `${start}-${end}`;
    const had = new Set(before.map((row) => key(row.startsAt.getTime(), row.endsAt.getTime())));
    const now = new Set(intervals.map((interval) => key(interval.start, interval.end)));
    if (had.size === now.size && [...had].every((k) => now.has(k))) return false;
    await tx.delete(calendarBusy).where(window);
    if (intervals.length > 0) {
      await tx
        .insert(calendarBusy)
        .values(intervals.map((interval) => ({ businessId, startsAt: new Date(interval.start), endsAt: new Date(interval.end) })));
    }
    return true;
  });
}

/** Adds busy times found by the check at booking time (the next sync replaces them with the calendar's whole answer). */
export async function addCalendarBusy(db: Db, businessId: number, intervals: { start: number; end: number }[]) {
  if (intervals.length === 0) return;
  await db
    .insert(calendarBusy)
    .values(intervals.map((interval) => ({ businessId, startsAt: new Date(interval.start), endsAt: new Date(interval.end) })));
}

/** What the owner's calendar gets of one booking (as the feed's event), or null when the booking is gone. */
export async function findCalendarBooking(db: Db, bookingId: number) {
  const [row] = await db
    .select({ ...feedBookingColumns, businessId: bookings.businessId })
    .from(bookings)
    .innerJoin(businessServices, eq(businessServices.id, bookings.serviceId))
    .where(eq(bookings.id, bookingId));
  return row ?? null;
}

export async function findCalendarEvent(db: Db, bookingId: number) {
  const [row] = await db.select().from(calendarEvents).where(eq(calendarEvents.bookingId, bookingId));
  return row ?? null;
}

export async function saveCalendarEvent(db: Db, event: { bookingId: number; businessId: number; href: string; etag: string | null }) {
  await db
    .insert(calendarEvents)
    .values({ ...event, updatedAt: new Date() })
    .onConflictDoUpdate({ target: calendarEvents.bookingId, set: { href: event.href, etag: event.etag, updatedAt: sql`now()` } });
}

export async function deleteCalendarEvent(db: Db, bookingId: number) {
  await db.delete(calendarEvents).where(eq(calendarEvents.bookingId, bookingId));
}

/** The business's bookings still to come and not cancelled: written to a calendar when it is connected. */
export async function listUpcomingBookingIds(db: Db, businessId: number, now = new Date()) {
  const rows = await db
    .select({ id: bookings.id })
    .from(bookings)
    .where(and(eq(bookings.businessId, businessId), gt(bookings.endsAt, now), ne(bookings.status, "cancelled")))
    .limit(2_000);
  return rows.map((row) => row.id);
}
