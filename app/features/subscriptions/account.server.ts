import { deleteSubscriber, forgetSubscriberCalls, updateSubscriber, type Subscriber } from "#models/subscribers";
import { discardQueuedEmails } from "~/platform/data/email-jobs.server";
import type { AppServices } from "~/platform/services.server";
import { requireBilling } from "~/providers/billing.server";
import { nextScheduledCall } from "./allowance.server";

// The subscriber's own account: preferences, and deleting it.

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

/** Deletes the account and its data, its e-mails still waiting and its customer at Stripe (the plan is cancelled at once). The trial stays claimed. */
export async function deleteAccount(services: AppServices, subscriber: Subscriber) {
  if (subscriber.stripeSubscriptionId) await requireBilling(services.billing).cancelNow(subscriber.stripeSubscriptionId);
  if (subscriber.stripeCustomerId) await requireBilling(services.billing).deleteCustomer(subscriber.stripeCustomerId);
  await services.db.transaction(async (tx) => {
    // The call records stay for the provider's invoices, without the number or the words.
    await forgetSubscriberCalls(tx, subscriber.id);
    await deleteSubscriber(tx, subscriber.id);
  });
  await discardQueuedEmails(services, subscriber.email);
}
