import type { TFunction } from "i18next";
import { lockSubscriber, subscribersToRemind, trialsEndingSoon, updateSubscriber, type Subscriber } from "#models/subscribers";
import { callReminderEmail, trialEndingEmail } from "#emails/subscription";
import { formatMoney } from "~/lib/money";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";
import type { EmailMessage } from "~/providers/email.server";
import { dashboardUrl, formatDate, formatDateTime } from "./emails.server";
import { PLAN_CURRENCY, PLAN_PRICE_CENTS, TRIAL_WARNING_DAYS, type CallFrequency } from "./plans";

// The e-mails before a scheduled call and before the trial ends, each sent once.

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

export async function sendReminders(services: AppServices, now: Date) {
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

export async function warnTrialsEnding(services: AppServices, now: Date) {
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
