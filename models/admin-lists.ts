import { and, asc, count, desc, eq, isNotNull, isNull, sql } from "drizzle-orm";
import type { Db } from "./db";
import { bookings, businesses, callRefusals, calls, empathyRequests, payments, subscribers, supportTickets } from "./schema";

/** The admin's lists: one page each, newest first, with the total for the pager. */
export interface Page {
  limit: number;
  offset: number;
}

const total = (rows: { n: number }[]) => rows[0]?.n ?? 0;

/**
 * Businesses with what an admin needs at a glance: confirmation calls this plan period (from
 * activation during the starter, else since the first of the month, as the owner's page counts
 * them), bookings, and the share of bookings that ended confirmed among those whose call ended.
 */
export async function listBusinessesForAdmin(db: Db, page: Page, now = new Date()) {
  const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString();
  // Inside a subquery Drizzle writes a column without its table ("id"), which the subquery's own
  // table would capture: the outer business's columns are named with their table.
  const outer = (column: string) => sql`${businesses}.${sql.identifier(column)}`;
  const businessId = outer("id");
  const periodStart = sql`case when ${outer("plan_status")} = 'starter' and ${outer("activated_at")} is not null then ${outer("activated_at")} else ${monthStart}::timestamptz end`;
  const rows = await db
    .select({
      id: businesses.id,
      name: businesses.name,
      email: businesses.email,
      bookingLink: businesses.bookingLink,
      status: businesses.status,
      planStatus: businesses.planStatus,
      createdAt: businesses.createdAt,
      callsThisPeriod: sql<number>`(select count(*)::int from ${calls} where ${calls.businessId} = ${businessId} and ${calls.purpose} = 'booking_confirmation' and ${calls.startedAt} >= ${periodStart})`,
      bookings: sql<number>`(select count(*)::int from ${bookings} where ${bookings.businessId} = ${businessId})`,
      confirmed: sql<number>`(select count(*)::int from ${bookings} where ${bookings.businessId} = ${businessId} and ${bookings.status} = 'confirmed')`,
      decided: sql<number>`(select count(*)::int from ${bookings} where ${bookings.businessId} = ${businessId} and ${bookings.status} <> 'pending')`,
    })
    .from(businesses)
    .orderBy(desc(businesses.createdAt), desc(businesses.id))
    .limit(page.limit)
    .offset(page.offset);
  return { rows, total: total(await db.select({ n: count() }).from(businesses)) };
}

/** Moves a business between active and suspended; null when it was not in `from` (nothing changed). */
export async function setBusinessStatus(db: Db, id: number, from: "active" | "suspended", to: "active" | "suspended") {
  const [row] = await db
    .update(businesses)
    .set({ status: to })
    .where(and(eq(businesses.id, id), eq(businesses.status, from)))
    .returning({ id: businesses.id, name: businesses.name });
  return row ?? null;
}

export async function countBusinessesByStatus(db: Db, status: "suspended" | "active") {
  return total(await db.select({ n: count() }).from(businesses).where(eq(businesses.status, status)));
}

/** Subscribers a page at a time, and the counts by subscription status and of paid one-off calls. */
export async function listConsumersForAdmin(db: Db, page: Page) {
  const [rows, byStatus, paid, all] = await Promise.all([
    db
      .select({
        id: subscribers.id,
        fullName: subscribers.fullName,
        phone: subscribers.phone,
        callFrequency: subscribers.callFrequency,
        status: subscribers.status,
        createdAt: subscribers.createdAt,
      })
      .from(subscribers)
      .orderBy(desc(subscribers.createdAt), desc(subscribers.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ status: subscribers.status, n: count() }).from(subscribers).groupBy(subscribers.status).orderBy(asc(subscribers.status)),
    db.select({ n: count() }).from(empathyRequests).where(isNotNull(empathyRequests.paidAt)),
    db.select({ n: count() }).from(subscribers),
  ]);
  return { rows, byStatus, paidCalls: total(paid), total: total(all) };
}

/** Every call, or only the flagged ones, newest first. */
export async function listCallsForAdmin(db: Db, page: Page, options: { flaggedOnly?: boolean } = {}) {
  const where = options.flaggedOnly ? eq(calls.flaggedForReview, true) : undefined;
  const [rows, all] = await Promise.all([
    db
      .select({
        id: calls.id,
        purpose: calls.purpose,
        language: calls.language,
        status: calls.status,
        durationSeconds: calls.durationSeconds,
        costCents: calls.costCents,
        delivered: calls.delivered,
        undeliveredReason: calls.undeliveredReason,
        flaggedForReview: calls.flaggedForReview,
        reviewedAt: calls.reviewedAt,
        createdAt: calls.createdAt,
      })
      .from(calls)
      .where(where)
      .orderBy(desc(calls.createdAt), desc(calls.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(calls).where(where),
  ]);
  return { rows, total: total(all) };
}

const awaitingReview = and(eq(calls.flaggedForReview, true), isNull(calls.reviewedAt));

/** Flagged calls nobody has reviewed yet, oldest first (the queue's order), with their redacted transcripts. */
export async function listReviewQueue(db: Db, page: Page) {
  const [rows, all] = await Promise.all([
    db
      .select({
        id: calls.id,
        purpose: calls.purpose,
        language: calls.language,
        flagReason: calls.flagReason,
        transcript: calls.transcript,
        createdAt: calls.createdAt,
      })
      .from(calls)
      .where(awaitingReview)
      .orderBy(asc(calls.createdAt), asc(calls.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(calls).where(awaitingReview),
  ]);
  return { rows, total: total(all) };
}

/** Marks a flagged call reviewed; null when it is not flagged or was already reviewed. */
export async function markCallReviewed(db: Db, id: number, now = new Date()) {
  const [row] = await db
    .update(calls)
    .set({ reviewedAt: now })
    .where(and(eq(calls.id, id), awaitingReview))
    .returning({ id: calls.id });
  return row ?? null;
}

/** Each payment with its business and, for a paid call, its request's state (a refund that failed shows as such). */
export async function listPaymentsForAdmin(db: Db, page: Page) {
  const [rows, all] = await Promise.all([
    paymentRows(db).orderBy(desc(payments.createdAt), desc(payments.id)).limit(page.limit).offset(page.offset),
    db.select({ n: count() }).from(payments),
  ]);
  return { rows, total: total(all) };
}

/** Paid calls whose refund job gave up: money no job will move, for an admin to refund by hand. */
export async function listFailedRefundsForAdmin(db: Db) {
  return paymentRows(db).where(eq(empathyRequests.status, "refund_failed")).orderBy(asc(empathyRequests.updatedAt), asc(payments.id));
}

function paymentRows(db: Db) {
  return db
    .select({ payment: payments, businessName: businesses.name, empathyStatus: empathyRequests.status })
    .from(payments)
    .leftJoin(businesses, eq(businesses.id, payments.businessId))
    .leftJoin(empathyRequests, eq(empathyRequests.paymentIntentId, payments.providerPaymentId))
    .$dynamic();
}

/** The payment, its row locked until the caller's transaction ends (one refund decision at a time). */
export async function lockPayment(db: Db, id: number) {
  const [row] = await db.select().from(payments).where(eq(payments.id, id)).for("update");
  return row ?? null;
}

export async function markPaymentRefunded(db: Db, id: number, now = new Date()) {
  await db.update(payments).set({ status: "refunded", refundedAt: now }).where(eq(payments.id, id));
}

export async function listRefusalsForAdmin(db: Db, page: Page) {
  const [rows, all] = await Promise.all([
    db
      .select({ refusal: callRefusals, businessName: businesses.name })
      .from(callRefusals)
      .leftJoin(businesses, eq(businesses.id, callRefusals.businessId))
      .orderBy(desc(callRefusals.createdAt), desc(callRefusals.id))
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(callRefusals),
  ]);
  return { rows, total: total(all) };
}

export async function countAwaitingReview(db: Db) {
  return total(await db.select({ n: count() }).from(calls).where(awaitingReview));
}

// Support tickets.

export async function createSupportTicket(db: Db, input: typeof supportTickets.$inferInsert) {
  const [row] = await db.insert(supportTickets).values(input).returning();
  return row!;
}

/** Open tickets first, priority first among them, then the oldest first. */
export async function listSupportTickets(db: Db, page: Page) {
  const [rows, all] = await Promise.all([
    db
      .select({ ticket: supportTickets, businessName: businesses.name })
      .from(supportTickets)
      .leftJoin(businesses, eq(businesses.id, supportTickets.businessId))
      .orderBy(
        sql`${supportTickets.status} = 'open' desc`,
        desc(supportTickets.priority),
        asc(supportTickets.createdAt),
        asc(supportTickets.id),
      )
      .limit(page.limit)
      .offset(page.offset),
    db.select({ n: count() }).from(supportTickets),
  ]);
  return { rows, total: total(all) };
}

export async function closeSupportTicket(db: Db, id: number) {
  const [row] = await db
    .update(supportTickets)
    .set({ status: "closed" })
    .where(and(eq(supportTickets.id, id), eq(supportTickets.status, "open")))
    .returning({ id: supportTickets.id });
  return row ?? null;
}

export async function countOpenTickets(db: Db) {
  return total(await db.select({ n: count() }).from(supportTickets).where(eq(supportTickets.status, "open")));
}
