import { randomBytes } from "node:crypto";
import { and, asc, eq, ilike, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { slugify } from "#models/slug";
import { accounts, businesses, payments } from "./schema";

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
  const base = slugify(input.name);
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
  input: { businessId: number; paymentIntentId: string; amountCents: number; currency: string; passwordHash: string },
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
      | "confirmationVoice"
      | "confirmationLanguage"
      | "callCountries"
    >
  >,
) {
  const [row] = await db.update(businesses).set(fields).where(eq(businesses.id, businessId)).returning();
  return row ?? null;
}

export async function setBusinessSubscription(db: Db, businessId: number, subscriptionId: string) {
  await db.update(businesses).set({ stripeSubscriptionId: subscriptionId }).where(eq(businesses.id, businessId));
}

/** Starter businesses whose 7 days are over become monthly (the Stripe subscription bills them). */
export async function planFromSubscriptionStatus(db: Db, subscriptionId: string, stripeStatus: string) {
  const planStatusValue =
    stripeStatus === "trialing"
      ? "starter"
      : stripeStatus === "active"
        ? "active"
        : stripeStatus === "past_due" || stripeStatus === "unpaid"
          ? "past_due"
          : "canceled";
  await db.update(businesses).set({ planStatus: planStatusValue }).where(eq(businesses.stripeSubscriptionId, subscriptionId));
}

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
