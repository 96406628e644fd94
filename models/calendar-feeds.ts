import { and, asc, eq, gt, ne, or } from "drizzle-orm";
import type { Db } from "./db";
import { bookings, businessServices, calendarFeeds } from "./schema";

export type CalendarFeed = typeof calendarFeeds.$inferSelect;

export async function findCalendarFeed(db: Db, businessId: number) {
  const [row] = await db.select().from(calendarFeeds).where(eq(calendarFeeds.businessId, businessId));
  return row ?? null;
}

/** The business whose feed token hashes to `tokenHash`, or null: read from the database on every request, so a rotation ends the old link in every process at once. */
export async function findBusinessIdByFeedTokenHash(db: Db, tokenHash: string) {
  const [row] = await db.select({ businessId: calendarFeeds.businessId }).from(calendarFeeds).where(eq(calendarFeeds.tokenHash, tokenHash));
  return row?.businessId ?? null;
}

/** The business's first feed; when two requests race, the one already stored wins and is returned. */
export async function createCalendarFeedOnce(db: Db, feed: Pick<CalendarFeed, "businessId" | "tokenHash" | "tokenSealed">) {
  await db.insert(calendarFeeds).values(feed).onConflictDoNothing({ target: calendarFeeds.businessId });
  return (await findCalendarFeed(db, feed.businessId))!;
}

/** A new token for the business's feed; the previous one no longer matches any row. */
export async function replaceCalendarFeed(db: Db, feed: Pick<CalendarFeed, "businessId" | "tokenHash" | "tokenSealed">) {
  const [row] = await db
    .insert(calendarFeeds)
    .values(feed)
    .onConflictDoUpdate({
      target: calendarFeeds.businessId,
      set: { tokenHash: feed.tokenHash, tokenSealed: feed.tokenSealed, createdAt: new Date() },
    })
    .returning();
  return row!;
}

/** At most this many events in one feed; a business with more sees the earliest ones. */
const FEED_LIMIT = 5_000;

/**
 * What the feed shows of a business's bookings: those that end after `since` (every upcoming one,
 * and the recent past, so an event does not vanish from the owner's calendar the moment it ends),
 * a cancelled one only when it was cancelled after `since`. Never the customer's phone, e-mail or
 * notes: they are not selected.
 */
/** What an event of the owner's calendar is made of (the feed's and the CalDAV calendar's). */
export const feedBookingColumns = {
  id: bookings.id,
  startsAt: bookings.startsAt,
  endsAt: bookings.endsAt,
  status: bookings.status,
  customerName: bookings.customerName,
  serviceName: businessServices.name,
  reference: bookings.reference,
  sequence: bookings.calendarSequence,
  createdAt: bookings.createdAt,
  updatedAt: bookings.updatedAt,
};

export async function listFeedBookings(db: Db, businessId: number, since: Date) {
  return db
    .select(feedBookingColumns)
    .from(bookings)
    .innerJoin(businessServices, eq(businessServices.id, bookings.serviceId))
    .where(
      and(
        eq(bookings.businessId, businessId),
        gt(bookings.endsAt, since),
        or(ne(bookings.status, "cancelled"), gt(bookings.updatedAt, since)),
      ),
    )
    .orderBy(asc(bookings.startsAt), asc(bookings.id))
    .limit(FEED_LIMIT);
}

export type FeedBooking = Awaited<ReturnType<typeof listFeedBookings>>[number];
