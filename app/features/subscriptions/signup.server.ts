import { createHmac } from "node:crypto";
import { createSubscriber, findSubscriberByPhoneOrEmail, trialClaimed, updateSubscriber, type Subscriber } from "#models/subscribers";
import { zoneOfCountry } from "~/lib/zoned-time";
import { normalizePhone } from "~/platform/phone.server";
import type { AppServices } from "~/platform/services.server";
import { requireBilling } from "~/providers/billing.server";
import { PaymentsError } from "~/providers/payments.server";
import { deleteAccount } from "./account.server";
import { PLAN_CURRENCY, PLAN_PRICE_CENTS, TRIAL_DAYS, scheduleOfFrequency, type CallFrequency } from "./plans";

// Signup: the subscriber's row and the card step, in the page or on Stripe's.

export interface SignupDetails {
  fullName: string;
  email: string;
  /** E.164, already through the dialling policy. */
  phone: string;
  callFrequency: CallFrequency;
  /** The page's language: the calls and e-mails use it until the preferences change it. */
  language: string;
}

/** A signup without a card for this long is abandoned: its phone and e-mail are free again. */
const ABANDONED_SIGNUP_MS = 60 * 60_000;

export type SignupResult =
  | { ok: true; subscriber: Subscriber }
  | { ok: false; reason: "trial_used" | "exists" }
  /** An unfinished signup with this e-mail that this browser did not start: only a link sent to the address resumes it. */
  | { ok: false; reason: "check_email"; email: string };

export const claimKeys = (services: AppServices, phone: string, email: string) =>
  [`phone:${phone}`, `email:${email.toLowerCase()}`].map((key) => createHmac("sha256", services.signingSecret).update(key).digest("hex"));

/**
 * The subscriber row for a signup: a new one, or this browser's own unfinished signup (no card
 * yet; `signedInAs` is the browser's subscriber session) taken up again. Knowing an unfinished
 * signup's e-mail and phone proves nothing: anyone else who types them is told to check the
 * e-mail (ADR 0018). A phone or e-mail that has had a trial (even on a deleted account) is refused.
 */
export async function beginSignup(services: AppServices, details: SignupDetails, signedInAs: number | null): Promise<SignupResult> {
  if (await trialClaimed(services.db, claimKeys(services, details.phone, details.email))) return { ok: false, reason: "trial_used" };
  const existing = await findSubscriberByPhoneOrEmail(services.db, details.phone, details.email);
  if (existing) {
    if (existing.status !== "incomplete") return { ok: false, reason: "exists" };
    const sameEmail = existing.email === details.email.toLowerCase();
    if (sameEmail && existing.id !== signedInAs) return { ok: false, reason: "check_email", email: existing.email };
    // Someone else's signup that never got a card holds the number for an hour at most: nobody
    // can block a person's trial by typing their number first.
    if (existing.phone !== details.phone || !sameEmail) {
      if (Date.now() - existing.createdAt.getTime() < ABANDONED_SIGNUP_MS) return { ok: false, reason: "exists" };
      await deleteAccount(services, existing);
      return beginSignup(services, details, signedInAs);
    }
    const updated = await updateSubscriber(services.db, existing.id, {
      fullName: details.fullName,
      callFrequency: details.callFrequency,
      callScheduleType: scheduleOfFrequency[details.callFrequency],
    });
    return { ok: true, subscriber: updated ?? existing };
  }
  const created = await createSubscriber(services.db, {
    timeZone: timeZoneOfPhone(details.phone),
    fullName: details.fullName,
    email: details.email,
    phone: details.phone,
    callFrequency: details.callFrequency,
    callScheduleType: scheduleOfFrequency[details.callFrequency],
    preferredLanguage: details.language,
  });
  // Two signups raced for the same phone or e-mail: the other one won.
  return created ? { ok: true, subscriber: created } : { ok: false, reason: "exists" };
}

/**
 * A first guess at where the subscriber lives, from the phone number's country, so the first
 * scheduled calls do not ring at night; the preferences page changes it (the dashboard shows it).
 */
export function timeZoneOfPhone(e164: string) {
  const parsed = normalizePhone(e164);
  return (parsed.ok && parsed.country && zoneOfCountry(parsed.country)) || "UTC";
}

async function stripeCustomer(services: AppServices, subscriber: Subscriber) {
  if (subscriber.stripeCustomerId) return subscriber.stripeCustomerId;
  const payments = requireBilling(services.billing);
  const customerId = await payments.createCustomer(
    { email: subscriber.email, name: subscriber.fullName, phone: subscriber.phone, metadata: { subscriberId: String(subscriber.id) } },
    `subscriber-${subscriber.id}-customer`,
  );
  await updateSubscriber(services.db, subscriber.id, { stripeCustomerId: customerId });
  return customerId;
}

function planPrice(services: AppServices, frequency: CallFrequency) {
  return requireBilling(services.billing).ensureMonthlyPrice({
    lookupKey: `sakina_support_${frequency}_v1`,
    productName: `Sakina support calls (${frequency.replace(/_/g, " ")})`,
    amountCents: PLAN_PRICE_CENTS[frequency],
    currency: PLAN_CURRENCY,
  });
}

const subscriptionMetadata = (subscriber: Subscriber) => ({ purpose: "consumer_subscription", subscriberId: String(subscriber.id) });

/**
 * Cancels the signup's earlier card step at Stripe. It is forgotten first: the cancellation's
 * event, arriving at any moment, then belongs to no subscriber and cannot end the signup.
 */
async function withdrawEarlierAttempt(services: AppServices, subscriber: Subscriber) {
  if (!subscriber.stripeSubscriptionId) return;
  await updateSubscriber(services.db, subscriber.id, { stripeSubscriptionId: null });
  await requireBilling(services.billing).cancelNow(subscriber.stripeSubscriptionId);
}

/**
 * The card step in the page: a subscription trialing for 7 days that waits for the card, and the
 * SetupIntent's client secret for the Payment Element. An unfinished earlier attempt is cancelled.
 */
export async function startTrialInPage(services: AppServices, subscriber: Subscriber) {
  const payments = requireBilling(services.billing);
  const customerId = await stripeCustomer(services, subscriber);
  await withdrawEarlierAttempt(services, subscriber);
  const started = await payments.startTrial(
    {
      customerId,
      priceId: await planPrice(services, subscriber.callFrequency as CallFrequency),
      trialDays: TRIAL_DAYS,
      metadata: { ...subscriptionMetadata(subscriber), cardStep: "page" },
    },
    `subscriber-${subscriber.id}-trial-${Date.now()}`,
  );
  if (!started.clientSecret) {
    // Nothing for the Payment Element to collect the card with: the attempt is withdrawn and the
    // browser told to try again, as for any other refusal by the provider.
    await payments.cancelNow(started.subscriptionId);
    throw new PaymentsError(`Stripe gave subscription ${started.subscriptionId} no SetupIntent to collect the card`, false);
  }
  await updateSubscriber(services.db, subscriber.id, { stripeSubscriptionId: started.subscriptionId });
  return { clientSecret: started.clientSecret };
}

/** The card step on Stripe's hosted page (no JavaScript): Checkout in subscription mode with the trial. */
export async function startTrialCheckout(services: AppServices, subscriber: Subscriber) {
  const payments = requireBilling(services.billing);
  const customerId = await stripeCustomer(services, subscriber);
  await withdrawEarlierAttempt(services, subscriber);
  const origin = services.publicOrigin();
  return payments.createTrialCheckout({
    customerId,
    priceId: await planPrice(services, subscriber.callFrequency as CallFrequency),
    trialDays: TRIAL_DAYS,
    metadata: subscriptionMetadata(subscriber),
    successUrl: `${origin}/subscribe/complete?checkout={CHECKOUT_ID}`,
    cancelUrl: `${origin}/subscribe?step=payment`,
  });
}
