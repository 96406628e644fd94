import { randomBytes } from "node:crypto";
import { and, asc, eq, gte, ilike, ne, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { slugify } from "#models/slug";
import { accounts, bookings, businesses, calls, payments, planCalls } from "./schema";

export type Business = typeof businesses.$inferSelect;

export async function findBusinessById(db: Db, id: number) {
  const [row] = await db.select().from(businesses).where(eq(businesses.id, id));
  return row ?? null;
}

export async function findBusinessByEmail(db: Db, email: string) {
  const [row] = await db.select().from(businesses).where(eq(businesses.email, email.toLowerCase()));
  return row ?? null;
}

export async function findBusinessByBookingLink(db: Db, bookingLink: string) {
  const [row] = await db.select().from(businesses).where(eq(businesses.bookingLink, bookingLink.toLowerCase()));
  return row ?? null;
}

/**
 * Active businesses (those with a booking page) whose name contains `query`, or whose booking
 * link is it, case-insensitive; the exact link first, then by name. For the agent's search.
 */
export async function searchActiveBusinesses(db: Db, query: string, limit = 5) {
  const text = query.replace(/\s+/g, " ").trim().slice(0, 100);
  if (!text) return [];
  const pattern = `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return db
    .select()
    .from(businesses)
    .where(and(eq(businesses.status, "active"), or(ilike(businesses.name, pattern), eq(businesses.bookingLink, text.toLowerCase()))))
    .orderBy(sql`${businesses.bookingLink} = ${text.toLowerCase()} desc`, asc(businesses.name))
    .limit(limit);
}

export interface NewBusiness {
  name: string;
  ownerName: string;
  email: string;
  phone: string;
  industry: string;
  timeZone?: string;
  defaultLanguage?: string;
}

/**
 * Creates the business with a unique, readable booking link. Returns `existing` instead when the
 * e-mail is already registered (also when two registrations race).
 */
export async function registerBusiness(db: Db, input: NewBusiness): Promise<{ created: Business } | { existing: Business }> {
  const email = input.email.toLowerCase();
  const base = slugify(input.name, input.industry);
  for (let attempt = 0; attempt < 6; attempt++) {
    const bookingLink = attempt === 0 ? base : `${base}-${randomBytes(2).toString("hex")}`;
    const [created] = await db
      .insert(businesses)
      .values({ ...input, email, bookingLink })
      .onConflictDoNothing()
      .returning();
    if (created) return { created };
    const existing = await findBusinessByEmail(db, email);
    if (existing) return { existing };
  }
  throw new Error(`Could not find a free booking link for "${input.name}"`);
}

/** The e-mail link was opened: the business may now pay. Verifying twice changes nothing. */
export async function markBusinessVerified(db: Db, businessId: number) {
  await db
    .update(businesses)
    .set({ status: "payment_required", verifiedAt: new Date() })
    .where(and(eq(businesses.id, businessId), eq(businesses.status, "pending_verification")));
  return findBusinessById(db, businessId);
}

export async function setStarterPayment(db: Db, businessId: number, fields: { stripeCustomerId: string; paymentIntentId: string }) {
  await db
    .update(businesses)
    .set({ stripeCustomerId: fields.stripeCustomerId, starterPaymentIntentId: fields.paymentIntentId })
    .where(eq(businesses.id, businessId));
}

export const STARTER_DAYS = 7;
export const STARTER_CALLS = 20;
export const MONTHLY_CALLS = 100;

/**
 * Activates a business once its $1 starter payment succeeded: records the payment, starts the
 * 7-day starter and creates the owner's login, all in one transaction. Any number of calls
 * (the page, the API, the webhook, replays) activate it once; only the first gets
 * `activatedNow: true` and the new account.
 */
export async function activateBusiness(
  db: Db,
  input: {
    businessId: number;
    paymentIntentId: string;
    amountCents: number;
    currency: string;
    passwordHash: string;
    /** The work that must follow the activation (its jobs), written in its transaction: both commit or neither. */
    followUp?: (tx: Db, business: typeof businesses.$inferSelect) => Promise<void>;
  },
) {
  return db.transaction(async (tx) => {
    await tx
      .insert(payments)
      .values({
        purpose: "business_starter",
        providerPaymentId: input.paymentIntentId,
        amountCents: input.amountCents,
        currency: input.currency,
        status: "succeeded",
        businessId: input.businessId,
      })
      .onConflictDoNothing();
    const now = new Date();
    const [business] = await tx
      .update(businesses)
      .set({
        status: "active",
        planStatus: "starter",
        activatedAt: now,
        starterEndsAt: new Date(now.getTime() + STARTER_DAYS * 86_400_000),
        starterPaymentIntentId: input.paymentIntentId,
      })
      .where(and(eq(businesses.id, input.businessId), eq(businesses.status, "payment_required")))
      .returning();
    if (!business) {
      const current = (await tx.select().from(businesses).where(eq(businesses.id, input.businessId)))[0];
      return { activatedNow: false as const, business: current ?? null, account: null };
    }
    const [account] = await tx
      .insert(accounts)
      .values({
        businessId: business.id,
        role: "owner",
        name: business.ownerName,
        email: business.email,
        passwordHash: input.passwordHash,
        mustChangePassword: true,
      })
      .onConflictDoNothing()
      .returning();
    await input.followUp?.(tx, business);
    return { activatedNow: true as const, business, account: account ?? null };
  });
}

export async function updateBusinessProfile(
  db: Db,
  businessId: number,
  fields: Partial<
    Pick<
      Business,
      | "name"
      | "phone"
      | "address"
      | "description"
      | "timeZone"
      | "defaultLanguage"
      | "minimumNoticeMinutes"
      | "bookingWindowDays"
      | "confirmationVoice"
      | "confirmationLanguage"
      | "callCountries"
      | "reminderEmail"
      | "reminderCallHours"
      | "textsEnabled"
    >
  >,
) {
  const [row] = await db.update(businesses).set(fields).where(eq(businesses.id, businessId)).returning();
  return row ?? null;
}

export async function setBusinessSubscription(db: Db, businessId: number, subscriptionId: string) {
  await db.update(businesses).set({ stripeSubscriptionId: subscriptionId }).where(eq(businesses.id, businessId));
}

export type PlanStatus = Business["planStatus"];

/** Stripe's subscription status as the business's plan: trialing is the starter, unpaid is past_due. */
export function planStatusOf(stripeStatus: string): PlanStatus {
  if (stripeStatus === "trialing") return "starter";
  if (stripeStatus === "active") return "active";
  if (stripeStatus === "past_due" || stripeStatus === "unpaid") return "past_due";
  return "canceled";
}

/**
 * Writes the subscription as Stripe knows it now onto its business: the plan's status, its
 * billing period and whether it ends there. Returns the business before and after (null when no
 * business has this subscription).
 */
export async function applySubscriptionState(
  db: Db,
  subscriptionId: string,
  state: { status: string; periodStart: Date; periodEnd: Date; cancelAtPeriodEnd: boolean; trialEnd: Date | null },
) {
  return db.transaction(async (tx) => {
    const [before] = await tx.select().from(businesses).where(eq(businesses.stripeSubscriptionId, subscriptionId)).for("update");
    if (!before) return null;
    const planStatusValue = planStatusOf(state.status);
    const [after] = await tx
      .update(businesses)
      .set({
        planStatus: planStatusValue,
        planPeriodStart: state.periodStart,
        planPeriodEnd: state.periodEnd,
        planCancelAtPeriodEnd: state.cancelAtPeriodEnd,
        // The starter ends when the trial does: at once after an upgrade.
        ...(planStatusValue === "starter" && state.trialEnd ? { starterEndsAt: state.trialEnd } : {}),
        ...(before.planStatus === "starter" && planStatusValue !== "starter" && (before.starterEndsAt?.getTime() ?? 0) > Date.now()
          ? { starterEndsAt: new Date() }
          : {}),
      })
      .where(eq(businesses.id, before.id))
      .returning();
    return { before, after: after! };
  });
}

/**
 * Decides, under a lock on the business's row, whether one more confirmation call may be placed,
 * and counts it when it may: two bookings at once wait for each other here, so they can never
 * both take the last call of an allowance. `decide` sees the business and how many calls its
 * period has used, and answers either the start of the period to count the call in or a refusal.
 * A call already admitted (a retried job), or another attempt of a booking already counted, is
 * admitted again without being counted twice: a booking's confirmation counts once.
 */
export async function admitPlanCall<R extends string>(
  db: Db,
  input: { businessId: number; callId: number; bookingId?: number | null },
  decide: (
    business: Business,
    usedSince: (start: Date) => Promise<number>,
  ) => Promise<{ ok: true; metered: boolean } | { ok: false; reason: R }>,
): Promise<
  { ok: true; number: number; metered: boolean; again: boolean } | { ok: false; reason: R } | { ok: false; reason: "no_business" }
> {
  return db.transaction(async (tx) => {
    const [business] = await tx.select().from(businesses).where(eq(businesses.id, input.businessId)).for("update");
    if (!business) return { ok: false as const, reason: "no_business" as const };
    const [already] = await tx
      .select()
      .from(planCalls)
      .where(
        input.bookingId
          ? or(eq(planCalls.callId, input.callId), eq(planCalls.bookingId, input.bookingId))
          : eq(planCalls.callId, input.callId),
      );
    if (already) return { ok: true as const, number: already.number, metered: already.metered, again: true };
    const usedSince = (start: Date) => countPlanCallsSince(tx, business.id, start);
    let counted = 0;
    const decision = await decide(business, async (start) => (counted = await usedSince(start)));
    if (!decision.ok) return decision;
    const number = counted + 1;
    await tx
      .insert(planCalls)
      .values({ callId: input.callId, businessId: business.id, bookingId: input.bookingId ?? null, number, metered: decision.metered });
    return { ok: true as const, number, metered: decision.metered, again: false };
  });
}

/** The calls a plan counted since `start`. */
export async function countPlanCallsSince(db: Db, businessId: number, start: Date) {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(planCalls)
    .where(and(eq(planCalls.businessId, businessId), gte(planCalls.createdAt, start)));
  return row?.count ?? 0;
}

/** A call admitted but never dialled (refused by the dialling policy, a permanent provider error) gives its place back. */
export async function releasePlanCall(db: Db, callId: number) {
  await db.delete(planCalls).where(eq(planCalls.callId, callId));
}

/** How a call was counted by its plan, or null when it was not counted. */
export async function findPlanCall(db: Db, callId: number) {
  const [row] = await db.select().from(planCalls).where(eq(planCalls.callId, callId));
  return row ?? null;
}

/**
 * Confirmation calls held while the plan was past due (still queued, their booking marked
 * `plan_paused`) whose plan no longer is: they go through the gate again.
 */
export async function pausedConfirmationCalls(db: Db, businessId?: number) {
  return db
    .select({ id: calls.id })
    .from(calls)
    .innerJoin(bookings, eq(bookings.id, calls.bookingId))
    .innerJoin(businesses, eq(businesses.id, calls.businessId))
    .where(
      and(
        businessId === undefined ? undefined : eq(calls.businessId, businessId),
        ne(businesses.planStatus, "past_due"),
        eq(calls.purpose, "booking_confirmation"),
        eq(calls.status, "queued"),
        eq(bookings.callState, PLAN_PAUSED_STATE),
      ),
    );
}

/** The booking's call state while its confirmation call waits for the plan to be paid. */
export const PLAN_PAUSED_STATE = "plan_paused";

export async function countBusinesses(db: Db) {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(businesses);
  return row?.count ?? 0;
}

/** The voice settings (spec screen 14); the confirmation calls speak with them from the next call on. */
export async function setVoiceSettings(
  db: Db,
  businessId: number,
  settings: { voice: string; locale: string; speed: number; creativity: number },
) {
  const [row] = await db
    .update(businesses)
    .set({
      confirmationVoice: settings.voice,
      voiceLocale: settings.locale,
      confirmationLanguage: settings.locale.slice(0, 2),
      voiceSpeed: settings.speed,
      voiceCreativity: settings.creativity,
    })
    .where(eq(businesses.id, businessId))
    .returning();
  return row ?? null;
}
