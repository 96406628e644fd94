import { recordFunnelEventOnce } from "#models/funnel";
import type { TFunction } from "i18next";
import { findAccountByEmail, replaceTemporaryPassword } from "#models/accounts";
import {
  activateBusiness,
  findBusinessById,
  findPlanCall,
  setBusinessSubscription,
  setStarterPayment,
  type Business,
} from "#models/businesses";
import { createEmailToken } from "#models/email-tokens";
import { continueRegistrationEmail, credentialsEmail, verificationEmail } from "#emails/business";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppJob } from "~/platform/services.server";
import { generateTemporaryPassword, hashPassword } from "~/features/auth/index.server";
import { requireBilling, type Billing, type MeteredPlan } from "~/providers/billing.server";
import { requirePayments, type Payment } from "~/providers/payments.server";
import type { AppServices } from "~/platform/services.server";

export const STARTER_AMOUNT_CENTS = 100;
export const STARTER_CURRENCY = "usd";
export const MONTHLY_PRICE_CENTS = 9900;
export const OVERAGE_PRICE_CENTS = 100;
const VERIFY_TTL_MINUTES = 24 * 60;
const CONTINUE_TTL_MINUTES = 60;

/** The public origin for links in e-mails: APP_URL when set, else the address the server listens on. */
export async function sendVerificationEmail(services: AppServices, t: TFunction, lang: string, business: Business, origin: string) {
  await sendRegistrationLink(services, t, lang, business, origin, { ttlMinutes: VERIFY_TTL_MINUTES, email: verificationEmail });
}

/**
 * To the owner of a verified, unpaid business that someone registered again: a single-use link
 * (the verification link, which gives the browser that opens it the registration) back to the
 * payment step. Only the inbox's owner can use it.
 */
export async function sendContinueRegistrationEmail(services: AppServices, t: TFunction, lang: string, business: Business, origin: string) {
  await sendRegistrationLink(services, t, lang, business, origin, { ttlMinutes: CONTINUE_TTL_MINUTES, email: continueRegistrationEmail });
}

async function sendRegistrationLink(
  services: AppServices,
  t: TFunction,
  lang: string,
  business: Business,
  origin: string,
  kind: { ttlMinutes: number; email: typeof verificationEmail },
) {
  const token = await createEmailToken(services.db, {
    purpose: "verify_email",
    email: business.email,
    businessId: business.id,
    ttlMinutes: kind.ttlMinutes,
  });
  // The owner's language travels with the link: the page opens in it, whatever the browser says.
  const link = `${origin}/verify-email?token=${encodeURIComponent(token)}&email=${encodeURIComponent(business.email)}&lng=${encodeURIComponent(lang)}`;
  await services.jobs.enqueue(
    sendEmailJob,
    kind.email(t, lang, { to: business.email, ownerName: business.ownerName, businessName: business.name, link }),
  );
}

/**
 * The $1 starter PaymentIntent for a verified business: created once and reused while unpaid, so
 * reloading the payment step never creates a second charge. The card is saved for the monthly plan.
 */
export async function starterPaymentIntent(services: AppServices, business: Business) {
  const payments = requirePayments(services.payments);
  if (business.starterPaymentIntentId) {
    const existing = await payments.findPayment(business.starterPaymentIntentId);
    if (existing && existing.status !== "canceled") return existing;
  }
  const customerId = business.stripeCustomerId ?? (await createCustomer(requireBilling(services.billing), business));
  const payment = await payments.createPayment(
    { ...starterPayment(business), customerId, saveCardForLater: true },
    `starter-pi-${business.id}-${business.starterPaymentIntentId ?? "first"}`,
  );
  await setStarterPayment(services.db, business.id, { stripeCustomerId: customerId, paymentIntentId: payment.id });
  return payment;
}

function starterPayment(business: Business) {
  return {
    amountCents: STARTER_AMOUNT_CENTS,
    currency: STARTER_CURRENCY,
    description: `Sakina business starter: ${business.name}`,
    metadata: { purpose: "business_starter", businessId: String(business.id) },
  };
}

function createCustomer(billing: Billing, business: Business) {
  return billing.createCustomer(
    { email: business.email, name: business.name, phone: business.phone, metadata: { businessId: String(business.id) } },
    `business-customer-${business.id}`,
  );
}

/** A hosted checkout page for browsers without JavaScript: the same $1, the same saved card. */
export async function starterCheckoutUrl(services: AppServices, business: Business, origin: string) {
  const payments = requirePayments(services.payments);
  const customerId = business.stripeCustomerId ?? (await createCustomer(requireBilling(services.billing), business));
  if (!business.stripeCustomerId) {
    await setStarterPayment(services.db, business.id, {
      stripeCustomerId: customerId,
      paymentIntentId: business.starterPaymentIntentId ?? `pending-${business.id}`,
    });
  }
  const checkout = await payments.createCheckout({
    ...starterPayment(business),
    customerId,
    saveCardForLater: true,
    productName: "Sakina business starter: 7 days, 20 AI calls",
    successUrl: `${origin}/get-started/complete?session_id={CHECKOUT_ID}`,
    cancelUrl: `${origin}/get-started`,
  });
  return checkout.url;
}

export type StarterCheckFailure = "not_found" | "not_succeeded" | "wrong_amount" | "wrong_currency" | "wrong_business";

/** Every check the server makes before a payment activates a business; the browser is never trusted. */
export function checkStarterPayment(intent: Payment, businessId: number): StarterCheckFailure | null {
  if (intent.metadata?.purpose !== "business_starter" || intent.metadata?.businessId !== String(businessId)) {
    return "wrong_business";
  }
  if (intent.amountCents !== STARTER_AMOUNT_CENTS) return "wrong_amount";
  if (intent.currency !== STARTER_CURRENCY) return "wrong_currency";
  if (intent.status !== "succeeded") return "not_succeeded";
  return null;
}

/**
 * Retrieves the PaymentIntent from Stripe, checks it, and activates the business. Safe to call
 * from the page, the API and the webhook in any order and any number of times.
 */
export async function activateWithPayment(services: AppServices, businessId: number, paymentIntentId: string, origin: string) {
  const payments = requirePayments(services.payments);
  const business = await findBusinessById(services.db, businessId);
  if (!business) return { ok: false as const, reason: "not_found" as const };
  const intent = await payments.findPayment(paymentIntentId);
  if (!intent) return { ok: false as const, reason: "not_found" as const };
  const failure = checkStarterPayment(intent, businessId);
  if (failure) return { ok: false as const, reason: failure, status: intent.status };

  const result = await activateBusiness(services.db, {
    businessId,
    paymentIntentId: intent.id,
    amountCents: intent.amountCents,
    currency: intent.currency,
    // Unusable until the credentials job sets the e-mailed temporary password.
    passwordHash: await hashPassword(generateTemporaryPassword() + generateTemporaryPassword()),
    // The owner's credentials e-mail and the plan's subscription commit with the activation: a
    // crash right after it cannot leave a paid business with no way to sign in.
    async followUp(tx) {
      await recordFunnelEventOnce(tx, "business_activated", { businessId });
      await services.jobs.enqueue(ownerCredentialsJob, { businessId, origin }, { tx, singletonKey: `credentials-${businessId}` });
      await services.jobs.enqueue(businessSubscriptionJob, { businessId }, { tx, singletonKey: `subscription-${businessId}` });
    },
  });
  return { ok: true as const, business: result.business ?? business, activatedNow: result.activatedNow };
}

/**
 * Sets a fresh temporary password and e-mails it with the login and booking link. The password
 * is made here, not stored in the job, so no plain password ever sits in the database.
 */
export const ownerCredentialsJob: AppJob<{ businessId: number; origin: string }> = {
  name: "business-owner-credentials",
  retryLimit: 8,
  retryDelaySeconds: 30,
  async handle({ businessId, origin }, services) {
    const business = await findBusinessById(services.db, businessId);
    const account = business ? await findAccountByEmail(services.db, business.email) : null;
    if (!business || !account || !account.mustChangePassword || account.lastLoginAt) return;
    const temporaryPassword = generateTemporaryPassword();
    const replaced = await replaceTemporaryPassword(services.db, account.id, await hashPassword(temporaryPassword), account.sessionVersion);
    if (!replaced) return;
    const t = await translatorFor(business.defaultLanguage);
    await services.mailer.send(
      credentialsEmail(t, business.defaultLanguage, {
        to: business.email,
        ownerName: business.ownerName,
        businessName: business.name,
        temporaryPassword,
        loginUrl: `${origin}/login`,
        bookingUrl: `${origin}/book/${business.bookingLink}`,
      }),
    );
  },
};

/**
 * The $99/month plan that takes over when the 7 starter days end: a Stripe subscription on the
 * saved card, trialing until then, with usage-based overage ($1 a call beyond 100) on a meter.
 */
export const businessSubscriptionJob: AppJob<{ businessId: number }> = {
  name: "business-subscription",
  retryLimit: 10,
  retryDelaySeconds: 60,
  async handle({ businessId }, services) {
    const business = await findBusinessById(services.db, businessId);
    if (business) await ensureBusinessSubscription(services, business);
  },
};

/**
 * The business's subscription, created the first time (the same idempotency key, so the job and
 * an owner's upgrade never make two). Null while the starter has not been paid.
 */
export async function ensureBusinessSubscription(services: AppServices, business: Business) {
  if (business.stripeSubscriptionId) return business.stripeSubscriptionId;
  if (!business.stripeCustomerId || !business.starterPaymentIntentId) return null;
  const payments = requirePayments(services.payments);
  const billing = requireBilling(services.billing);
  const starter = await payments.findPayment(business.starterPaymentIntentId);
  const subscriptionId = await billing.subscribe(
    {
      customerId: business.stripeCustomerId,
      priceIds: await billing.ensureMeteredPlan(BUSINESS_PLAN),
      trialEnd: business.starterEndsAt ?? new Date(),
      paymentMethodId: starter?.paymentMethodId ?? null,
      metadata: { purpose: "business_plan", businessId: String(business.id) },
    },
    `business-subscription-${business.id}`,
  );
  await setBusinessSubscription(services.db, business.id, subscriptionId);
  return subscriptionId;
}

export const OVERAGE_METER_EVENT = "sakina_confirmation_calls";

/** $99 a month with 100 confirmation calls, then $1 a call, billed through a usage meter. */
export const BUSINESS_PLAN: MeteredPlan = {
  productName: "Sakina business plan",
  currency: "usd",
  monthly: { lookupKey: "sakina_business_monthly", amountCents: MONTHLY_PRICE_CENTS, nickname: "$99/month, 100 confirmation calls" },
  usage: {
    lookupKey: "sakina_business_overage",
    meterEventName: OVERAGE_METER_EVENT,
    meterName: "Confirmation calls",
    includedUnits: 100,
    unitAmountCents: OVERAGE_PRICE_CENTS,
    nickname: "$1 per confirmation call beyond 100",
  },
  version: 1,
};

/**
 * Reports one placed confirmation call of the monthly plan to Stripe's meter. Every call of the
 * month is reported and the plan's graduated price bills those beyond 100 at $1 (ADR 0012);
 * starter calls are not reported. The identifier is the call's, so a retried job is counted once:
 * Stripe refuses an identifier it has seen, and the provider takes that as already reported.
 */
export const reportCallUsageJob: AppJob<{ callId: number; businessId: number }> = {
  name: "business-call-usage",
  retryLimit: 10,
  retryDelaySeconds: 60,
  async handle({ callId, businessId }, services) {
    const [business, counted] = await Promise.all([findBusinessById(services.db, businessId), findPlanCall(services.db, callId)]);
    if (!services.billing || !business?.stripeCustomerId || !counted?.metered) return;
    await services.billing.reportUsage({
      meterEventName: OVERAGE_METER_EVENT,
      customerId: business.stripeCustomerId,
      identifier: meterIdentifier(callId),
      value: 1,
      at: counted.createdAt,
    });
  },
};

/** The meter event's identifier for a call: one per call, so Stripe counts a call once. */
export const meterIdentifier = (callId: number) => `sakina-call-${callId}`;
