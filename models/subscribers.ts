import { and, asc, eq, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { calls, subscribers, supportCalls, trialClaims } from "./schema";

export type Subscriber = typeof subscribers.$inferSelect;
export type SubscriptionStatus = Subscriber["status"];
export type SupportCall = typeof supportCalls.$inferSelect;

export async function createSubscriber(
  db: Db,
  input: {
    fullName: string;
    email: string;
    phone: string;
    callFrequency: string;
    callScheduleType: string;
    preferredLanguage: string;
    timeZone: string;
  },
) {
  const [row] = await db
    .insert(subscribers)
    .values({ ...input, email: input.email.toLowerCase() })
    .onConflictDoNothing()
    .returning();
  return row ?? null;
}

export async function findSubscriber(db: Db, id: number) {
  const [row] = await db.select().from(subscribers).where(eq(subscribers.id, id));
  return row ?? null;
}

export async function findSubscriberByEmail(db: Db, email: string) {
  const [row] = await db.select().from(subscribers).where(eq(subscribers.email, email.toLowerCase()));
  return row ?? null;
}

export async function findSubscriberByPhoneOrEmail(db: Db, phone: string, email: string) {
  const [row] = await db
    .select()
    .from(subscribers)
    .where(or(eq(subscribers.phone, phone), eq(subscribers.email, email.toLowerCase())));
  return row ?? null;
}

export async function findSubscriberByStripe(db: Db, ids: { customerId?: string | null; subscriptionId?: string | null }) {
  const conditions = [
    ids.subscriptionId ? eq(subscribers.stripeSubscriptionId, ids.subscriptionId) : undefined,
    ids.customerId ? eq(subscribers.stripeCustomerId, ids.customerId) : undefined,
  ].filter(Boolean);
  if (conditions.length === 0) return null;
  const [row] = await db
    .select()
    .from(subscribers)
    .where(or(...conditions));
  return row ?? null;
}

/** Locks the subscriber's row for the rest of the transaction (one allowance decision at a time). */
export async function lockSubscriber(tx: Db, id: number) {
  const [row] = await tx.select().from(subscribers).where(eq(subscribers.id, id)).for("update");
  return row ?? null;
}

export async function updateSubscriber(db: Db, id: number, fields: Partial<Omit<Subscriber, "id" | "createdAt">>) {
  const [row] = await db.update(subscribers).set(fields).where(eq(subscribers.id, id)).returning();
  return row ?? null;
}

/**
 * Claims a trial for every key (keyed hashes of the phone and the e-mail); false when any of them
 * has started a trial before, even if that account was deleted since.
 */
export async function claimTrial(tx: Db, keyHashes: string[]) {
  const existing = await tx.select({ keyHash: trialClaims.keyHash }).from(trialClaims).where(inArray(trialClaims.keyHash, keyHashes));
  if (existing.length > 0) return false;
  const inserted = await tx
    .insert(trialClaims)
    .values(keyHashes.map((keyHash) => ({ keyHash })))
    .onConflictDoNothing()
    .returning();
  return inserted.length === keyHashes.length;
}

export async function trialClaimed(db: Db, keyHashes: string[]) {
  const [row] = await db.select({ keyHash: trialClaims.keyHash }).from(trialClaims).where(inArray(trialClaims.keyHash, keyHashes));
  return Boolean(row);
}

/** Erases the number and the transcript of every phone call placed for the subscriber. */
export async function forgetSubscriberCalls(db: Db, subscriberId: number) {
  const ids = db.select({ id: supportCalls.id }).from(supportCalls).where(eq(supportCalls.subscriberId, subscriberId));
  await db.update(calls).set({ toNumber: null, transcript: [], updatedAt: new Date() }).where(inArray(calls.supportCallId, ids));
}

/** Deletes the subscriber and everything of theirs (support calls and sessions cascade). */
export async function deleteSubscriber(db: Db, id: number) {
  await db.delete(subscribers).where(eq(subscribers.id, id));
}

/** Subscribers whose scheduled call has come due, oldest first. */
export async function subscribersDue(db: Db, now: Date, limit: number) {
  return db
    .select()
    .from(subscribers)
    .where(and(isNotNull(subscribers.nextCallAt), lte(subscribers.nextCallAt, now)))
    .orderBy(asc(subscribers.nextCallAt))
    .limit(limit);
}

/** Subscribers with reminders on whose next call is within `withinMs` and who were not reminded of it. */
export async function subscribersToRemind(db: Db, now: Date, withinMs: number, limit: number) {
  return db
    .select()
    .from(subscribers)
    .where(
      and(
        eq(subscribers.callReminders, true),
        isNotNull(subscribers.nextCallAt),
        lte(subscribers.nextCallAt, new Date(now.getTime() + withinMs)),
        sql`${subscribers.nextCallAt} > ${now}`,
        or(isNull(subscribers.remindedFor), sql`${subscribers.remindedFor} <> ${subscribers.nextCallAt}`),
      ),
    )
    .limit(limit);
}

/** Trials ending within `withinMs` whose subscriber has not been told yet. */
export async function trialsEndingSoon(db: Db, now: Date, withinMs: number) {
  return db
    .select()
    .from(subscribers)
    .where(
      and(
        eq(subscribers.status, "trialing"),
        isNull(subscribers.trialReminderSentAt),
        lte(subscribers.trialEndsAt, new Date(now.getTime() + withinMs)),
        sql`${subscribers.trialEndsAt} > ${now}`,
      ),
    );
}

// ------------------------------------------------------------------ support calls

export async function createSupportCall(
  tx: Db,
  input: {
    subscriberId: number;
    feeling: string | null;
    urgency: string;
    source: "requested" | "scheduled";
    periodStart: Date;
    plan: "trial" | "monthly";
    scheduledFor?: Date;
  },
) {
  const [row] = await tx.insert(supportCalls).values(input).onConflictDoNothing().returning();
  return row ?? null;
}

/** Drops a support call that was refused as it was asked for: nothing of it was accepted. */
export async function deleteSupportCall(tx: Db, id: number) {
  await tx.delete(supportCalls).where(eq(supportCalls.id, id));
}

/** Calls of this period: delivered ones use the allowance, queued or ringing ones hold a place in it. */
export async function periodUsage(db: Db, subscriberId: number, periodStart: Date, plan: "trial" | "monthly") {
  const [row] = await db
    .select({
      used: sql<number>`count(*) filter (where ${supportCalls.status} = 'completed')`.mapWith(Number),
      pending: sql<number>`count(*) filter (where ${supportCalls.status} in ('queued', 'calling'))`.mapWith(Number),
    })
    .from(supportCalls)
    .where(and(eq(supportCalls.subscriberId, subscriberId), eq(supportCalls.periodStart, periodStart), eq(supportCalls.plan, plan)));
  return { used: row?.used ?? 0, pending: row?.pending ?? 0 };
}

export async function recentSupportCalls(db: Db, subscriberId: number, limit = 10) {
  return db
    .select()
    .from(supportCalls)
    .where(eq(supportCalls.subscriberId, subscriberId))
    .orderBy(sql`${supportCalls.createdAt} desc, ${supportCalls.id} desc`)
    .limit(limit);
}

export async function findSupportCall(db: Db, id: number) {
  const [row] = await db.select().from(supportCalls).where(eq(supportCalls.id, id));
  return row ?? null;
}

/** Moves a support call on, only from one of `from`: the first report wins. */
export async function setSupportCallStatus(db: Db, id: number, status: SupportCall["status"], from: SupportCall["status"][]) {
  const [row] = await db
    .update(supportCalls)
    .set({ status })
    .where(and(eq(supportCalls.id, id), inArray(supportCalls.status, from)))
    .returning();
  return row ?? null;
}

export async function setSupportCallSummary(db: Db, subscriberId: number, id: number, summary: string | null) {
  const [row] = await db
    .update(supportCalls)
    .set({ summary })
    .where(and(eq(supportCalls.id, id), eq(supportCalls.subscriberId, subscriberId)))
    .returning();
  return row ?? null;
}
