import { and, desc, eq, inArray, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { calls, empathyRequests, funnelEvents, payments } from "./schema";

export type EmpathyRequest = typeof empathyRequests.$inferSelect;
export type EmpathyStatus = EmpathyRequest["status"];
export type FunnelEventName = (typeof funnelEvents.$inferInsert)["name"];

/** A new request waiting for its payment. */
export async function createEmpathyRequest(
  db: Db,
  input: { phone: string; email: string | null; language: string; voiceGender: "female" | "male"; amountCents: number; currency: string },
) {
  const [row] = await db.insert(empathyRequests).values(input).returning();
  return row!;
}

export async function findEmpathyRequest(db: Db, id: number) {
  const [row] = await db.select().from(empathyRequests).where(eq(empathyRequests.id, id));
  return row ?? null;
}

export async function findEmpathyRequestByPaymentIntent(db: Db, paymentIntentId: string) {
  const [row] = await db.select().from(empathyRequests).where(eq(empathyRequests.paymentIntentId, paymentIntentId));
  return row ?? null;
}

export async function setEmpathyPaymentIntent(db: Db, id: number, paymentIntentId: string) {
  await db
    .update(empathyRequests)
    .set({ paymentIntentId, updatedAt: new Date() })
    .where(
      and(eq(empathyRequests.id, id), or(isNull(empathyRequests.paymentIntentId), eq(empathyRequests.paymentIntentId, paymentIntentId))),
    );
}

export async function setEmpathyCheckoutSession(db: Db, id: number, checkoutSessionId: string) {
  await db.update(empathyRequests).set({ checkoutSessionId, updatedAt: new Date() }).where(eq(empathyRequests.id, id));
}

/**
 * Marks a request paid and its first call queued, inside the caller's transaction. Only one
 * transaction can move it out of awaiting_payment (the row is locked until commit), so any number
 * of concurrent requests and webhooks get exactly one winner; the others get null.
 */
export async function claimEmpathyPayment(tx: Db, id: number, paymentIntentId: string) {
  const [row] = await tx
    .update(empathyRequests)
    .set({ status: "calling", paymentIntentId, paidAt: new Date(), updatedAt: new Date() })
    .where(and(eq(empathyRequests.id, id), eq(empathyRequests.status, "awaiting_payment")))
    .returning();
  return row ?? null;
}

export async function recordEmpathyPayment(tx: Db, request: EmpathyRequest, paymentIntentId: string) {
  await tx
    .insert(payments)
    .values({
      purpose: "empathy_call",
      providerPaymentId: paymentIntentId,
      amountCents: request.amountCents,
      currency: request.currency,
      status: "succeeded",
    })
    .onConflictDoNothing();
}

export async function markPaymentRefunded(db: Db, paymentIntentId: string, at: Date) {
  await db.update(payments).set({ status: "refunded", refundedAt: at }).where(eq(payments.providerPaymentId, paymentIntentId));
}

/** Requests waiting for their refund (the job's to send; the refund sweep looks for jobs that gave up). */
export async function refundingEmpathyRequestIds(db: Db) {
  const rows = await db.select({ id: empathyRequests.id }).from(empathyRequests).where(eq(empathyRequests.status, "refunding"));
  return rows.map((row) => row.id);
}

export async function setEmpathyStatus(
  db: Db,
  id: number,
  status: EmpathyStatus,
  from: EmpathyStatus[],
  fields: Partial<EmpathyRequest> = {},
) {
  const [row] = await db
    .update(empathyRequests)
    .set({ ...fields, status, updatedAt: new Date() })
    .where(and(eq(empathyRequests.id, id), inArray(empathyRequests.status, from)))
    .returning();
  return row ?? null;
}

export async function markFailureNotified(db: Db, id: number) {
  const [row] = await db
    .update(empathyRequests)
    .set({ failureNotifiedAt: new Date() })
    .where(and(eq(empathyRequests.id, id), isNull(empathyRequests.failureNotifiedAt)))
    .returning({ id: empathyRequests.id });
  return Boolean(row);
}

/** The request's calls, newest attempt first. */
export async function empathyCalls(db: Db, requestId: number) {
  return db.select().from(calls).where(eq(calls.empathyRequestId, requestId)).orderBy(desc(calls.attempt));
}

export async function recordFunnelEvent(db: Db, name: FunnelEventName, empathyRequestId: number | null, language: string | null) {
  await db.insert(funnelEvents).values({ name, empathyRequestId, language });
}

export const RETENTION_HOURS = 24;

/**
 * Erases the phone number and e-mail of every request whose call ended (or refund went out) more
 * than 24 hours ago, and of requests abandoned before payment for as long, together with the
 * numbers on their call records. Running it again finds nothing left to erase.
 */
export async function eraseExpiredEmpathyContacts(db: Db, now = new Date()) {
  const cutoff = new Date(now.getTime() - RETENTION_HOURS * 3_600_000);
  return db.transaction(async (tx) => {
    const expired = await tx
      .update(empathyRequests)
      .set({ phone: null, email: null, erasedAt: now, updatedAt: now })
      .where(
        and(
          isNull(empathyRequests.erasedAt),
          or(
            and(isNotNull(empathyRequests.finishedAt), lt(empathyRequests.finishedAt, cutoff)),
            and(eq(empathyRequests.status, "awaiting_payment"), lt(empathyRequests.createdAt, cutoff)),
            // A backstop for a request stuck mid-way: nothing is kept for more than a week.
            lt(empathyRequests.createdAt, new Date(now.getTime() - 7 * 24 * 3_600_000)),
          ),
        ),
      )
      .returning({ id: empathyRequests.id });
    if (expired.length > 0) {
      await tx
        .update(calls)
        .set({ toNumber: null, updatedAt: now })
        .where(
          inArray(
            calls.empathyRequestId,
            expired.map((row) => row.id),
          ),
        );
    }
    return expired.length;
  });
}

/** Money owed back: requests whose refund is on its way (and how long the oldest has waited), and those whose refund gave up (refund_failed). */
export async function refundFigures(db: Db) {
  const [row] = await db
    .select({
      waiting: sql<number>`count(*) filter (where ${empathyRequests.status} = 'refunding')::int`,
      oldestSeconds: sql<number>`coalesce(extract(epoch from now() - min(${empathyRequests.updatedAt}) filter (where ${empathyRequests.status} = 'refunding')), 0)::float8`,
      failed: sql<number>`count(*) filter (where ${empathyRequests.status} = 'refund_failed')::int`,
    })
    .from(empathyRequests)
    .where(inArray(empathyRequests.status, ["refunding", "refund_failed"]));
  return { waiting: Number(row?.waiting ?? 0), oldestSeconds: Number(row?.oldestSeconds ?? 0), failed: Number(row?.failed ?? 0) };
}
