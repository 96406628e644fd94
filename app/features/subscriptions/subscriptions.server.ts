import { recordFunnelEventOnce } from "#models/funnel";
import { createHmac } from "node:crypto";
import type { TFunction } from "i18next";
import {
  claimTrial,
  createSubscriber,
  createSupportCall,
  deleteSubscriber,
  forgetSubscriberCalls,
  findSubscriber,
  findSubscriberByEmail,
  findSubscriberByPhoneOrEmail,
  findSubscriberByStripe,
  lockSubscriber,
  periodUsage,
  recentSupportCalls,
  setSupportCallStatus,
  subscribersDue,
  subscribersToRemind,
  trialClaimed,
  trialsEndingSoon,
  updateSubscriber,
  type Subscriber,
  type SubscriptionStatus,
} from "#models/subscribers";
import type { Call } from "#models/calls";
import { createEmailToken } from "#models/email-tokens";
import {
  callReminderEmail,
  cancelledEmail,
  paymentFailedEmail,
  receiptEmail,
  signInEmail,
  trialEndingEmail,
  welcomeEmail,
} from "#emails/subscription";
import { callLanguages } from "~/lib/languages";
import { formatMoney } from "~/lib/money";
import { placeCallJob, queueCall } from "~/calls/engine.server";
import { normalizePhone } from "~/platform/phone.server";
import { discardQueuedEmails, sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import type { Db } from "~/platform/db.server";
import type { AppJob, AppServices, CallPurpose } from "~/platform/services.server";
import { subscriberAgent } from "./agent.server";
import type { EmailMessage } from "~/providers/email.server";
import { PaymentsError, requirePayments, type InvoiceFacts, type SubscriptionState } from "~/providers/payments.server";
import {
  MONTHLY_CALLS,
  PLAN_CURRENCY,
  PLAN_PRICE_CENTS,
  TRIAL_CALLS,
  TRIAL_DAYS,
  TRIAL_WARNING_DAYS,
  scheduleOfFrequency,
  type CallFrequency,
  type Urgency,
} from "./plans";
import { nextCallAt, type ScheduleType } from "./schedule";

// ---------------------------------------------------------------------------------------------
// Signup

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

const claimKeys = (services: AppServices, phone: string, email: string) =>
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
const COUNTRY_ZONES: Record<string, string> = {
  US: "America/New_York",
  CA: "America/Toronto",
  GB: "Europe/London",
  IE: "Europe/Dublin",
  FR: "Europe/Paris",
  BE: "Europe/Brussels",
  CH: "Europe/Zurich",
  DE: "Europe/Berlin",
  AT: "Europe/Vienna",
  ES: "Europe/Madrid",
  IT: "Europe/Rome",
  NL: "Europe/Amsterdam",
  PT: "Europe/Lisbon",
  MX: "America/Mexico_City",
  AR: "America/Argentina/Buenos_Aires",
  CO: "America/Bogota",
  CL: "America/Santiago",
  PE: "America/Lima",
  SA: "Asia/Riyadh",
  AE: "Asia/Dubai",
  QA: "Asia/Qatar",
  KW: "Asia/Kuwait",
  BH: "Asia/Bahrain",
  OM: "Asia/Muscat",
  EG: "Africa/Cairo",
  JO: "Asia/Amman",
  MA: "Africa/Casablanca",
  AU: "Australia/Sydney",
  NZ: "Pacific/Auckland",
  JP: "Asia/Tokyo",
};

export function timeZoneOfPhone(e164: string) {
  const parsed = normalizePhone(e164);
  return (parsed.ok && parsed.country && COUNTRY_ZONES[parsed.country]) || "UTC";
}

async function stripeCustomer(services: AppServices, subscriber: Subscriber) {
  if (subscriber.stripeCustomerId) return subscriber.stripeCustomerId;
  const payments = requirePayments(services.payments);
  const customerId = await payments.createCustomer(
    { email: subscriber.email, name: subscriber.fullName, phone: subscriber.phone, metadata: { subscriberId: String(subscriber.id) } },
    `subscriber-${subscriber.id}-customer`,
  );
  await updateSubscriber(services.db, subscriber.id, { stripeCustomerId: customerId });
  return customerId;
}

function planPrice(services: AppServices, frequency: CallFrequency) {
  return requirePayments(services.payments).ensureMonthlyPrice({
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
  await requirePayments(services.payments).cancelNow(subscriber.stripeSubscriptionId);
}

/**
 * The card step in the page: a subscription trialing for 7 days that waits for the card, and the
 * SetupIntent's client secret for the Payment Element. An unfinished earlier attempt is cancelled.
 */
export async function startTrialInPage(services: AppServices, subscriber: Subscriber) {
  const payments = requirePayments(services.payments);
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
  const payments = requirePayments(services.payments);
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

// ---------------------------------------------------------------------------------------------
// The billing life cycle: Stripe is the source of truth

/** Our status for Stripe's: a trial counts only once the card is on file. */
function statusOf(state: SubscriptionState): SubscriptionStatus {
  switch (state.status) {
    case "trialing":
      return state.hasCard ? "trialing" : "incomplete";
    case "active":
      return "active";
    case "past_due":
    case "unpaid":
    case "paused":
      return "past_due";
    case "canceled":
    case "incomplete_expired":
      return "canceled";
    default:
      return "incomplete";
  }
}

const callsAllowedIn = (status: SubscriptionStatus) => status === "trialing" || status === "active";

function scheduleOf(subscriber: Pick<Subscriber, "callScheduleType" | "preferredCallTime" | "timeZone" | "scheduleAnchor">) {
  return {
    type: subscriber.callScheduleType as ScheduleType,
    time: subscriber.preferredCallTime,
    timeZone: subscriber.timeZone,
    anchor: subscriber.scheduleAnchor,
  };
}

/** The next scheduled call after `after`, or none when calls are not allowed now. */
function nextScheduledCall(subscriber: Subscriber, status: SubscriptionStatus, after = new Date()) {
  return callsAllowedIn(status) ? nextCallAt(scheduleOf(subscriber), after) : null;
}

/**
 * Only the subscriber's own subscription counts: an earlier attempt of the same signup (cancelled
 * when the card step moved to Stripe's page, or withdrawn by a new card step) must not overwrite it,
 * even while none is stored. One started in the page is ours only once stored: its id is stored as
 * soon as Stripe answers, and one that never was is being withdrawn (Stripe gave it no SetupIntent).
 */
function isOurs(subscriber: Pick<Subscriber, "stripeSubscriptionId">, state: SubscriptionState) {
  return subscriber.stripeSubscriptionId
    ? subscriber.stripeSubscriptionId === state.id
    : !["canceled", "incomplete_expired"].includes(state.status) && state.metadata.cardStep !== "page";
}

/**
 * Reads the subscription from Stripe and applies it: status, trial end, billing period, card,
 * cancellation. Every event (and every return from Stripe's pages) ends here, so a replayed or
 * late event only applies what is true now. The e-mails that belong to a change are queued in the
 * same transaction as the change, so each goes once.
 */
export async function syncSubscription(services: AppServices, subscriptionId: string, hint?: { subscriberId?: number }) {
  const state = await requirePayments(services.payments).findSubscription(subscriptionId);
  if (!state) return null;
  const subscriber =
    (await findSubscriberByStripe(services.db, { subscriptionId })) ??
    (hint?.subscriberId || state.metadata.subscriberId
      ? await findSubscriber(services.db, hint?.subscriberId ?? Number(state.metadata.subscriberId))
      : null);
  if (!subscriber || (subscriber.stripeCustomerId && subscriber.stripeCustomerId !== state.customerId)) return null;
  if (!isOurs(subscriber, state)) return subscriber;

  return services.db.transaction(async (tx) => {
    const before = await lockSubscriber(tx, subscriber.id);
    if (!before) return null;
    // Asked again under the lock: a new card step may have withdrawn this attempt while Stripe was
    // read, and the state read then must not link the withdrawn attempt back to the signup.
    if (!isOurs(before, state)) return before;
    const status = statusOf(state);
    const resumed = !callsAllowedIn(before.status) && callsAllowedIn(status);
    const fields: Partial<Subscriber> = {
      stripeSubscriptionId: state.id,
      stripeCustomerId: state.customerId,
      status,
      cardOnFile: before.cardOnFile || state.hasCard,
      trialEndsAt: state.trialEnd,
      periodStart: state.periodStart,
      periodEnd: state.periodEnd,
      cancelAtPeriodEnd: state.cancelAtPeriodEnd,
      billingUpdatedAt: new Date(),
    };
    // Scheduled calls stop while payment has failed or the plan ended, and start again (from
    // now, not with a backlog) when it is paid.
    if (!callsAllowedIn(status)) fields.nextCallAt = null;
    else if (resumed || !before.nextCallAt) fields.nextCallAt = nextScheduledCall(before, status);
    const after = await updateSubscriber(tx, before.id, fields);
    if (!after) return null;

    const t = await translatorFor(after.preferredLanguage);
    const link = dashboardUrl(services, after.id);
    const mail = (message: EmailMessage) => services.jobs.enqueue(sendEmailJob, message, { tx });
    const base = { to: after.email, name: after.fullName, url: link };
    if (status === "trialing" && before.status !== "trialing")
      await recordFunnelEventOnce(tx, "subscription_trial", { subscriberId: after.id });
    if (status === "active" && before.status !== "active") await recordFunnelEventOnce(tx, "subscription_paid", { subscriberId: after.id });
    if (before.status === "incomplete" && status === "trialing") {
      await claimTrial(tx, claimKeys(services, after.phone, after.email));
      await mail(welcomeEmail(t, after.preferredLanguage, { ...base, trialEnds: formatDate(after.trialEndsAt, after) }));
    }
    if (before.status !== "past_due" && status === "past_due") {
      await mail(
        paymentFailedEmail(t, after.preferredLanguage, { ...base, url: `${services.publicOrigin()}/subscription/card?userId=${after.id}` }),
      );
    }
    if (!before.cancelAtPeriodEnd && after.cancelAtPeriodEnd && status !== "canceled") {
      await mail(cancelledEmail(t, after.preferredLanguage, { ...base, date: formatDate(after.periodEnd, after) }));
    }
    return after;
  });
}

/** An invoice was paid (a receipt is sent for money taken) or its payment failed. */
export async function invoiceEvent(services: AppServices, kind: "invoice_paid" | "invoice_failed", invoice: InvoiceFacts) {
  if (!invoice.subscriptionId) return;
  // A business's plan has invoices too: only a subscriber's is ours to handle here.
  if (!(await findSubscriberByStripe(services.db, { subscriptionId: invoice.subscriptionId, customerId: invoice.customerId }))) return;
  const subscriber = await syncSubscription(services, invoice.subscriptionId);
  if (!subscriber || kind !== "invoice_paid" || invoice.amountCents <= 0) return;
  const t = await translatorFor(subscriber.preferredLanguage);
  await services.jobs.enqueue(
    sendEmailJob,
    receiptEmail(t, subscriber.preferredLanguage, {
      to: subscriber.email,
      name: subscriber.fullName,
      url: invoice.url ?? dashboardUrl(services, subscriber.id),
      amount: formatMoney(invoice.amountCents, invoice.currency, subscriber.preferredLanguage),
    }),
  );
}

/** A card saved on Stripe's page in setup mode (an update of the card): it becomes the plan's card. */
export async function cardSaved(services: AppServices, input: { subscriberId: number; setupIntentId: string }) {
  const subscriber = await findSubscriber(services.db, input.subscriberId);
  if (!subscriber?.stripeSubscriptionId) return null;
  const state = await requirePayments(services.payments).useCardFromSetup(subscriber.stripeSubscriptionId, input.setupIntentId);
  return syncSubscription(services, state.id);
}

/** "Upgrade to monthly": the trial ends now and billing starts, with 30 calls a month. */
export async function upgradeNow(services: AppServices, subscriber: Subscriber) {
  if (subscriber.status !== "trialing" || !subscriber.stripeSubscriptionId) return null;
  await requirePayments(services.payments).endTrialNow(subscriber.stripeSubscriptionId);
  return syncSubscription(services, subscriber.stripeSubscriptionId);
}

/** "Cancel subscription": access continues until the period ends. `resume` takes it back. */
export async function cancelAtPeriodEnd(services: AppServices, subscriber: Subscriber, cancel = true) {
  if (!subscriber.stripeSubscriptionId || !["trialing", "active", "past_due"].includes(subscriber.status)) return null;
  await requirePayments(services.payments).setCancelAtPeriodEnd(subscriber.stripeSubscriptionId, cancel);
  return syncSubscription(services, subscriber.stripeSubscriptionId);
}

/** Deletes the account and its data, its e-mails still waiting and its customer at Stripe (the plan is cancelled at once). The trial stays claimed. */
export async function deleteAccount(services: AppServices, subscriber: Subscriber) {
  if (subscriber.stripeSubscriptionId) await requirePayments(services.payments).cancelNow(subscriber.stripeSubscriptionId);
  if (subscriber.stripeCustomerId) await requirePayments(services.payments).deleteCustomer(subscriber.stripeCustomerId);
  await services.db.transaction(async (tx) => {
    // The call records stay for the provider's invoices, without the number or the words.
    await forgetSubscriberCalls(tx, subscriber.id);
    await deleteSubscriber(tx, subscriber.id);
  });
  await discardQueuedEmails(services, subscriber.email);
}

// ---------------------------------------------------------------------------------------------
// The allowance

export interface Allowance {
  plan: "trial" | "monthly" | null;
  limit: number;
  used: number;
  pending: number;
  remaining: number;
  canMakeCall: boolean;
  /** Why no call can be asked for now (a translation key under subscribe.limit). */
  reason: "trial_used" | "month_used" | "past_due" | "ended" | "incomplete" | "pending" | null;
}

/** What the subscriber may still call in this period: delivered calls count, calls on their way hold a place. */
export async function allowanceOf(db: Db, subscriber: Subscriber): Promise<Allowance> {
  const plan =
    subscriber.status === "trialing" ? "trial" : subscriber.status === "active" || subscriber.status === "past_due" ? "monthly" : null;
  const limit = plan === "trial" ? TRIAL_CALLS : plan === "monthly" ? MONTHLY_CALLS : 0;
  const usage =
    subscriber.periodStart && plan ? await periodUsage(db, subscriber.id, subscriber.periodStart, plan) : { used: 0, pending: 0 };
  const remaining = Math.max(0, limit - usage.used);
  let reason: Allowance["reason"] = null;
  if (subscriber.status === "past_due") reason = "past_due";
  else if (subscriber.status === "canceled") reason = "ended";
  else if (!plan) reason = "incomplete";
  else if (usage.used >= limit) reason = plan === "trial" ? "trial_used" : "month_used";
  else if (usage.used + usage.pending >= limit || usage.pending > 0) reason = "pending";
  return { plan, limit, used: usage.used, pending: usage.pending, remaining, canMakeCall: reason === null, reason };
}

export type SupportCallResult =
  { ok: true; supportCallId: number } | { ok: false; reason: NonNullable<Allowance["reason"]> | "not_configured" };

/**
 * "Request support call": inside the allowance, one call at a time, placed through the call
 * engine (which puts the number through the dialling policy again when it dials).
 */
export async function requestSupportCall(
  services: AppServices,
  subscriberId: number,
  input: { feeling: string | null; urgency: Urgency; source?: "requested" | "scheduled"; scheduledFor?: Date },
): Promise<SupportCallResult> {
  if (!services.telephony.configured) return { ok: false, reason: "not_configured" };
  const result = await services.db.transaction(async (tx): Promise<SupportCallResult> => {
    const subscriber = await lockSubscriber(tx, subscriberId);
    if (!subscriber || !subscriber.periodStart) return { ok: false, reason: "incomplete" };
    const allowance = await allowanceOf(tx, subscriber);
    if (!allowance.canMakeCall) return { ok: false, reason: allowance.reason ?? "incomplete" };
    const support = await createSupportCall(tx, {
      subscriberId,
      feeling: input.feeling,
      urgency: input.urgency,
      source: input.source ?? "requested",
      periodStart: subscriber.periodStart,
      plan: allowance.plan ?? "trial",
      ...(input.scheduledFor ? { scheduledFor: input.scheduledFor } : {}),
    });
    if (!support) return { ok: false, reason: "pending" };
    const language = callLanguages.find((entry) => entry.code === subscriber.preferredLanguage) ?? callLanguages[0];
    await queueCall(
      services,
      {
        purpose: "support",
        to: subscriber.phone,
        language: language.code,
        voice: subscriber.voiceGender === "male" ? language.maleVoice : language.femaleVoice,
        supportCallId: support.id,
        origin: services.publicOrigin(),
      },
      tx,
    );
    return { ok: true, supportCallId: support.id };
  });
  if (result.ok) services.jobs.wake(placeCallJob);
  return result;
}

/**
 * A subscriber's call: the listener who writes a summary for them; the call counts against the
 * allowance only when delivered.
 */
export const supportCallPurpose: CallPurpose = {
  agent: async (services, call) => subscriberAgent(services, call),
  async placed(services, call) {
    if (call.supportCallId) await setSupportCallStatus(services.db, call.supportCallId, "calling", ["queued"]);
  },
  async finished(services, call: Call) {
    if (!call.supportCallId) return;
    await setSupportCallStatus(services.db, call.supportCallId, call.delivered ? "completed" : "not_delivered", ["queued", "calling"]);
  },
};

// ---------------------------------------------------------------------------------------------
// Scheduled calls, reminders and the trial's end

/** Places every scheduled call that has come due, and moves each subscriber's schedule on. */
export const scheduledCallsJob: AppJob<Record<string, never>> = {
  name: "subscriptions-scheduled-calls",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    const now = new Date();
    for (;;) {
      const due = await subscribersDue(services.db, now, 200);
      if (due.length === 0) break;
      for (const subscriber of due) {
        const dueAt = subscriber.nextCallAt!;
        // A call due long ago (the server was down) is not placed late into the night: only a
        // call at most an hour late rings; the schedule moves on either way.
        if (callsAllowedIn(subscriber.status) && now.getTime() - dueAt.getTime() <= 3_600_000) {
          await requestSupportCall(services, subscriber.id, { feeling: null, urgency: "normal", source: "scheduled", scheduledFor: dueAt });
        }
        await updateSubscriber(services.db, subscriber.id, { nextCallAt: nextScheduledCall(subscriber, subscriber.status, now) });
      }
    }
    await sendReminders(services, now);
    await warnTrialsEnding(services, now);
  },
};
export const SCHEDULED_CALLS_CRON = "* * * * *";

/**
 * One e-mail per fact: under the subscriber's row lock, `mark` says what to record (or null when
 * the e-mail went already), and the record and the e-mail's job commit together.
 */
async function mailOnce(
  services: AppServices,
  subscriberId: number,
  mark: (locked: Subscriber) => Partial<Subscriber> | null,
  message: (t: TFunction, locked: Subscriber) => EmailMessage,
) {
  await services.db.transaction(async (tx) => {
    const locked = await lockSubscriber(tx, subscriberId);
    const fields = locked ? mark(locked) : null;
    if (!locked || !fields) return;
    await updateSubscriber(tx, locked.id, fields);
    await services.jobs.enqueue(sendEmailJob, message(await translatorFor(locked.preferredLanguage), locked), { tx });
  });
}

async function sendReminders(services: AppServices, now: Date) {
  for (const subscriber of await subscribersToRemind(services.db, now, 3_600_000, 500)) {
    await mailOnce(
      services,
      subscriber.id,
      (locked) =>
        locked.nextCallAt && locked.remindedFor?.getTime() !== locked.nextCallAt.getTime() ? { remindedFor: locked.nextCallAt } : null,
      (t, locked) =>
        callReminderEmail(t, locked.preferredLanguage, {
          to: locked.email,
          name: locked.fullName,
          url: `${services.publicOrigin()}/preferences?userId=${locked.id}`,
          when: formatDateTime(locked.nextCallAt!, locked),
        }),
    );
  }
}

async function warnTrialsEnding(services: AppServices, now: Date) {
  for (const subscriber of await trialsEndingSoon(services.db, now, TRIAL_WARNING_DAYS * 86_400_000)) {
    await mailOnce(
      services,
      subscriber.id,
      (locked) => (locked.trialReminderSentAt ? null : { trialReminderSentAt: now }),
      (t, locked) =>
        trialEndingEmail(t, locked.preferredLanguage, {
          to: locked.email,
          name: locked.fullName,
          url: dashboardUrl(services, locked.id),
          trialEnds: formatDate(locked.trialEndsAt, locked),
          price: formatMoney(PLAN_PRICE_CENTS[locked.callFrequency as CallFrequency], PLAN_CURRENCY, locked.preferredLanguage),
        }),
    );
  }
}

/** New preferences: a changed schedule starts again from now. */
export async function savePreferences(
  services: AppServices,
  subscriber: Subscriber,
  input: Pick<Subscriber, "preferredLanguage" | "voiceGender" | "callScheduleType" | "preferredCallTime" | "timeZone" | "callReminders">,
) {
  const scheduleChanged =
    input.callScheduleType !== subscriber.callScheduleType ||
    input.preferredCallTime !== subscriber.preferredCallTime ||
    input.timeZone !== subscriber.timeZone;
  const anchor = scheduleChanged ? new Date() : subscriber.scheduleAnchor;
  const next = { ...subscriber, ...input, scheduleAnchor: anchor };
  return updateSubscriber(services.db, subscriber.id, {
    ...input,
    scheduleAnchor: anchor,
    ...(scheduleChanged ? { nextCallAt: nextScheduledCall(next, subscriber.status) } : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Sign-in by e-mail

export const SIGN_IN_MINUTES = 15;

/**
 * E-mails a single-use sign-in link; the same answer whether or not the address has an account.
 * For an unfinished signup the link resumes it: the address's owner is the one who may.
 */
export async function sendSignInLink(services: AppServices, email: string, t: TFunction, language: string) {
  const subscriber = await findSubscriberByEmail(services.db, email);
  if (!subscriber) return;
  const token = await createEmailToken(services.db, {
    purpose: "sign_in",
    email: subscriber.email,
    subscriberId: subscriber.id,
    ttlMinutes: SIGN_IN_MINUTES,
  });
  const url = `${services.publicOrigin()}/sign-in/confirm?token=${encodeURIComponent(token)}&email=${encodeURIComponent(subscriber.email)}`;
  await services.jobs.enqueue(sendEmailJob, signInEmail(t, language, { to: subscriber.email, name: subscriber.fullName, url }));
}

// ---------------------------------------------------------------------------------------------
// What the dashboard shows

export function dashboardUrl(services: AppServices, subscriberId: number) {
  return `${services.publicOrigin()}/dashboard?userId=${subscriberId}`;
}

/** The spec's status names: "trial", "active", "past_due", "cancelled", "incomplete". */
export function publicStatus(subscriber: Subscriber) {
  return subscriber.status === "trialing" ? "trial" : subscriber.status === "canceled" ? "cancelled" : subscriber.status;
}

/** GET /api/user/{userId}/dashboard, and the dashboard page: the spec's shape. */
export async function dashboardData(services: AppServices, subscriber: Subscriber) {
  const allowance = await allowanceOf(services.db, subscriber);
  const calls = await recentSupportCalls(services.db, subscriber.id);
  return {
    user: {
      id: subscriber.id,
      fullName: subscriber.fullName,
      phone: subscriber.phone,
      email: subscriber.email,
      subscriptionStatus: publicStatus(subscriber),
      callFrequency: subscriber.callFrequency,
      callsUsedInTrial: allowance.plan === "trial" ? allowance.used : 0,
      callsUsedThisMonth: allowance.plan === "monthly" ? allowance.used : 0,
      trialEndsAt: subscriber.status === "trialing" ? (subscriber.trialEndsAt?.toISOString() ?? null) : null,
      billingDate: subscriber.status !== "trialing" && subscriber.periodEnd ? subscriber.periodEnd.toISOString() : null,
      cancelAtPeriodEnd: subscriber.cancelAtPeriodEnd,
      nextCallAt: subscriber.nextCallAt?.toISOString() ?? null,
      timeZone: subscriber.timeZone,
      preferredLanguage: subscriber.preferredLanguage,
    },
    recentCalls: calls.map((call) => ({
      id: call.id,
      feeling: call.feeling,
      urgency: call.urgency,
      status: call.status,
      source: call.source,
      summary: call.summary,
      createdAt: call.createdAt.toISOString(),
    })),
    canMakeCall: allowance.canMakeCall && services.telephony.configured,
    callsRemaining: allowance.remaining,
    callLimit: allowance.limit,
    callsUsed: allowance.used,
    limitReason: services.telephony.configured ? allowance.reason : ("not_configured" as const),
  };
}
export type DashboardData = Awaited<ReturnType<typeof dashboardData>>;

function formatDate(date: Date | null, subscriber: Subscriber) {
  if (!date) return "";
  return new Intl.DateTimeFormat(subscriber.preferredLanguage, { dateStyle: "long", timeZone: subscriber.timeZone }).format(date);
}

function formatDateTime(date: Date, subscriber: Subscriber) {
  return new Intl.DateTimeFormat(subscriber.preferredLanguage, {
    dateStyle: "full",
    timeStyle: "short",
    timeZone: subscriber.timeZone,
  }).format(date);
}
