import type { TFunction } from "i18next";
import { findAccountByEmail, replaceTemporaryPassword } from "#models/accounts";
import {
  activateBusiness,
  findBusinessById,
  setBusinessSubscription,
  setStarterPayment,
  type Business,
} from "#models/businesses";
import { createEmailToken } from "#models/email-tokens";
import { credentialsEmail, verificationEmail } from "#emails/business";
import { sendEmailJob } from "./email-jobs.server";
import { translatorFor } from "./i18n.server";
import type { JobDefinition } from "./jobs.server";
import { generateTemporaryPassword, hashPassword } from "./passwords.server";
import { requireStripe, type PaymentIntent, type Stripe } from "./providers/payments.server";
import type { AppServices } from "./services.server";

export const STARTER_AMOUNT_CENTS = 100;
export const STARTER_CURRENCY = "usd";
export const MONTHLY_PRICE_CENTS = 9900;
export const OVERAGE_PRICE_CENTS = 100;
const VERIFY_TTL_MINUTES = 24 * 60;

/** The public origin for links in e-mails: APP_URL when set, else the address the visitor used. */
export function appOrigin(services: AppServices, request: Request) {
  return services.env.APP_URL?.replace(/\/$/, "") ?? new URL(request.url).origin;
}

export async function sendVerificationEmail(services: AppServices, t: TFunction, lang: string, business: Business, origin: string) {
  const token = await createEmailToken(services.db, {
    purpose: "verify_email",
    email: business.email,
    businessId: business.id,
    ttlMinutes: VERIFY_TTL_MINUTES,
  });
  const link = `${origin}/verify-email?token=${encodeURIComponent(token)}&email=${encodeURIComponent(business.email)}`;
  await services.jobs.enqueue(
    sendEmailJob,
    verificationEmail(t, lang, { to: business.email, ownerName: business.ownerName, businessName: business.name, link }),
  );
}

/**
 * The $1 starter PaymentIntent for a verified business: created once and reused while unpaid, so
 * reloading the payment step never creates a second charge. The card is saved for the monthly plan.
 */
export async function starterPaymentIntent(services: AppServices, business: Business) {
  const stripe = requireStripe(services.stripe);
  if (business.starterPaymentIntentId) {
    const existing = await stripe.paymentIntents.retrieve(business.starterPaymentIntentId);
    if (existing.status !== "canceled") return existing;
  }
  const customerId = business.stripeCustomerId ?? (await createCustomer(stripe, business)).id;
  const intent = await stripe.paymentIntents.create(
    {
      amount: STARTER_AMOUNT_CENTS,
      currency: STARTER_CURRENCY,
      customer: customerId,
      setup_future_usage: "off_session",
      automatic_payment_methods: { enabled: true },
      description: `Sakina business starter: ${business.name}`,
      metadata: { purpose: "business_starter", businessId: String(business.id) },
    },
    { idempotencyKey: `starter-pi-${business.id}-${business.starterPaymentIntentId ?? "first"}` },
  );
  await setStarterPayment(services.db, business.id, { stripeCustomerId: customerId, paymentIntentId: intent.id });
  return intent;
}

function createCustomer(stripe: Stripe, business: Business) {
  return stripe.customers.create(
    {
      email: business.email,
      name: business.name,
      phone: business.phone,
      metadata: { businessId: String(business.id) },
    },
    { idempotencyKey: `business-customer-${business.id}` },
  );
}

/** Stripe Checkout for browsers without JavaScript: the same $1, the same saved card. */
export async function starterCheckoutUrl(services: AppServices, business: Business, origin: string) {
  const stripe = requireStripe(services.stripe);
  const customerId = business.stripeCustomerId ?? (await createCustomer(stripe, business)).id;
  if (!business.stripeCustomerId) {
    await setStarterPayment(services.db, business.id, {
      stripeCustomerId: customerId,
      paymentIntentId: business.starterPaymentIntentId ?? `pending-${business.id}`,
    });
  }
  const session = await stripe.checkout.sessions.create({
    mode: "payment",
    customer: customerId,
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: STARTER_CURRENCY,
          unit_amount: STARTER_AMOUNT_CENTS,
          product_data: { name: "Sakina business starter: 7 days, 20 confirmation calls" },
        },
      },
    ],
    payment_intent_data: {
      setup_future_usage: "off_session",
      description: `Sakina business starter: ${business.name}`,
      metadata: { purpose: "business_starter", businessId: String(business.id) },
    },
    metadata: { purpose: "business_starter", businessId: String(business.id) },
    success_url: `${origin}/get-started/complete?session_id={CHECKOUT_SESSION_ID}`,
    cancel_url: `${origin}/get-started`,
  });
  if (!session.url) throw new Error("Stripe returned a Checkout Session without a URL");
  return session.url;
}

export type StarterCheckFailure = "not_found" | "not_succeeded" | "wrong_amount" | "wrong_currency" | "wrong_business";

/** Every check the server makes before a payment activates a business; the browser is never trusted. */
export function checkStarterPayment(intent: PaymentIntent, businessId: number): StarterCheckFailure | null {
  if (intent.metadata?.purpose !== "business_starter" || intent.metadata?.businessId !== String(businessId)) {
    return "wrong_business";
  }
  if (intent.amount !== STARTER_AMOUNT_CENTS) return "wrong_amount";
  if (intent.currency !== STARTER_CURRENCY) return "wrong_currency";
  if (intent.status !== "succeeded") return "not_succeeded";
  return null;
}

/**
 * Retrieves the PaymentIntent from Stripe, checks it, and activates the business. Safe to call
 * from the page, the API and the webhook in any order and any number of times.
 */
export async function activateWithPayment(services: AppServices, businessId: number, paymentIntentId: string, origin: string) {
  const stripe = requireStripe(services.stripe);
  const business = await findBusinessById(services.db, businessId);
  if (!business) return { ok: false as const, reason: "not_found" as const };
  let intent: PaymentIntent;
  try {
    intent = await stripe.paymentIntents.retrieve(paymentIntentId);
  } catch (error) {
    if ((error as { code?: string }).code === "resource_missing") return { ok: false as const, reason: "not_found" as const };
    throw error;
  }
  const failure = checkStarterPayment(intent, businessId);
  if (failure) return { ok: false as const, reason: failure, status: intent.status };

  const result = await activateBusiness(services.db, {
    businessId,
    paymentIntentId: intent.id,
    amountCents: intent.amount,
    currency: intent.currency,
    // Unusable until the credentials job sets the e-mailed temporary password.
    passwordHash: await hashPassword(generateTemporaryPassword() + generateTemporaryPassword()),
  });
  if (result.activatedNow) {
    await services.jobs.enqueue(ownerCredentialsJob, { businessId, origin }, { singletonKey: `credentials-${businessId}` });
    await services.jobs.enqueue(businessSubscriptionJob, { businessId }, { singletonKey: `subscription-${businessId}` });
  }
  return { ok: true as const, business: result.business ?? business, activatedNow: result.activatedNow };
}

/**
 * Sets a fresh temporary password and e-mails it with the login and booking link. The password
 * is made here, not stored in the job, so no plain password ever sits in the database.
 */
export const ownerCredentialsJob: JobDefinition<{ businessId: number; origin: string }> = {
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
export const businessSubscriptionJob: JobDefinition<{ businessId: number }> = {
  name: "business-subscription",
  retryLimit: 10,
  retryDelaySeconds: 60,
  async handle({ businessId }, services) {
    const stripe = requireStripe(services.stripe);
    const business = await findBusinessById(services.db, businessId);
    if (!business || business.stripeSubscriptionId || !business.stripeCustomerId || !business.starterPaymentIntentId) return;
    const intent = await stripe.paymentIntents.retrieve(business.starterPaymentIntentId);
    const paymentMethod = typeof intent.payment_method === "string" ? intent.payment_method : intent.payment_method?.id;
    const prices = await ensureBusinessPrices(stripe);
    const subscription = await stripe.subscriptions.create(
      {
        customer: business.stripeCustomerId,
        items: [{ price: prices.monthly }, { price: prices.overage }],
        trial_end: Math.floor((business.starterEndsAt ?? new Date()).getTime() / 1000),
        ...(paymentMethod ? { default_payment_method: paymentMethod } : {}),
        metadata: { purpose: "business_plan", businessId: String(business.id) },
      },
      { idempotencyKey: `business-subscription-${business.id}` },
    );
    await setBusinessSubscription(services.db, business.id, subscription.id);
  },
};

export const OVERAGE_METER_EVENT = "sakina_confirmation_calls";

/** Finds the plan's prices by lookup key, creating product, meter and prices the first time. */
export async function ensureBusinessPrices(stripe: Stripe) {
  const found = await stripe.prices.list({ lookup_keys: ["sakina_business_monthly", "sakina_business_overage"], active: true });
  let monthly = found.data.find((p) => p.lookup_key === "sakina_business_monthly")?.id;
  let overage = found.data.find((p) => p.lookup_key === "sakina_business_overage")?.id;
  if (monthly && overage) return { monthly, overage };
  const product = await stripe.products.create(
    { name: "Sakina business plan", metadata: { purpose: "business_plan" } },
    { idempotencyKey: "sakina-business-product-v1" },
  );
  if (!monthly) {
    monthly = (
      await stripe.prices.create(
        {
          product: product.id,
          currency: "usd",
          unit_amount: MONTHLY_PRICE_CENTS,
          recurring: { interval: "month" },
          lookup_key: "sakina_business_monthly",
          nickname: "$99/month, 100 confirmation calls",
        },
        { idempotencyKey: "sakina-business-monthly-v1" },
      )
    ).id;
  }
  if (!overage) {
    const meters = await stripe.billing.meters.list();
    const meter =
      meters.data.find((m) => m.event_name === OVERAGE_METER_EVENT) ??
      (await stripe.billing.meters.create(
        {
          display_name: "Confirmation calls",
          event_name: OVERAGE_METER_EVENT,
          default_aggregation: { formula: "sum" },
        },
        { idempotencyKey: "sakina-calls-meter-v1" },
      ));
    overage = (
      await stripe.prices.create(
        {
          product: product.id,
          currency: "usd",
          recurring: { interval: "month", usage_type: "metered", meter: meter.id },
          billing_scheme: "tiered",
          tiers_mode: "graduated",
          tiers: [
            { up_to: 100, unit_amount: 0 },
            { up_to: "inf", unit_amount: OVERAGE_PRICE_CENTS },
          ],
          lookup_key: "sakina_business_overage",
          nickname: "$1 per confirmation call beyond 100",
        },
        { idempotencyKey: "sakina-business-overage-v1" },
      )
    ).id;
  }
  return { monthly, overage };
}

/**
 * Reports one placed confirmation call to the Stripe meter of a business on the monthly plan. The
 * plan's graduated price makes the first 100 a month free and $1 each after; the identifier makes
 * a retried report count once (Stripe refuses a duplicate identifier).
 */
export const reportCallUsageJob: JobDefinition<{ callId: number; businessId: number }> = {
  name: "business-call-usage",
  retryLimit: 10,
  retryDelaySeconds: 60,
  async handle({ callId, businessId }, services) {
    const business = await findBusinessById(services.db, businessId);
    if (!services.stripe || !business?.stripeCustomerId || business.planStatus !== "active") return;
    try {
      await services.stripe.billing.meterEvents.create({
        event_name: OVERAGE_METER_EVENT,
        identifier: `sakina-call-${callId}`,
        payload: { stripe_customer_id: business.stripeCustomerId, value: "1" },
      });
    } catch (error) {
      if (/already exists with identifier/i.test((error as Error).message)) return;
      throw error;
    }
  },
};
