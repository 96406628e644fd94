import { recordFunnelEventOnce } from "#models/funnel";
import {
  claimTrial,
  findSubscriber,
  findSubscriberByStripe,
  lockSubscriber,
  updateSubscriber,
  type Subscriber,
  type SubscriptionStatus,
} from "#models/subscribers";
import { cancelledEmail, paymentFailedEmail, receiptEmail, welcomeEmail } from "#emails/subscription";
import { formatMoney } from "~/lib/money";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";
import type { EmailMessage } from "~/providers/email.server";
import { requireBilling, type SubscriptionState } from "~/providers/billing.server";
import type { InvoiceFacts } from "~/providers/payments.server";
import { callsAllowedIn, nextScheduledCall } from "./allowance.server";
import { dashboardUrl, formatDate } from "./emails.server";
import { claimKeys } from "./signup.server";

// The billing life cycle: Stripe is the source of truth.

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
  const state = await requireBilling(services.billing).findSubscription(subscriptionId);
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
  const state = await requireBilling(services.billing).useCardFromSetup(subscriber.stripeSubscriptionId, input.setupIntentId);
  return syncSubscription(services, state.id);
}

/** "Upgrade to monthly": the trial ends now and billing starts, with 30 calls a month. */
export async function upgradeNow(services: AppServices, subscriber: Subscriber) {
  if (subscriber.status !== "trialing" || !subscriber.stripeSubscriptionId) return null;
  await requireBilling(services.billing).endTrialNow(subscriber.stripeSubscriptionId);
  return syncSubscription(services, subscriber.stripeSubscriptionId);
}

/** "Cancel subscription": access continues until the period ends. `resume` takes it back. */
export async function cancelAtPeriodEnd(services: AppServices, subscriber: Subscriber, cancel = true) {
  if (!subscriber.stripeSubscriptionId || !["trialing", "active", "past_due"].includes(subscriber.status)) return null;
  await requireBilling(services.billing).setCancelAtPeriodEnd(subscriber.stripeSubscriptionId, cancel);
  return syncSubscription(services, subscriber.stripeSubscriptionId);
}
