import { subscribersDue, updateSubscriber } from "#models/subscribers";
import { scheduleOrigin } from "~/calls/gate.server";
import type { AppJob } from "~/platform/services.server";
import { callsAllowedIn, nextScheduledCall } from "./allowance.server";
import { sendReminders, warnTrialsEnding } from "./reminders.server";
import { requestSupportCall } from "./support-calls.server";

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
          await requestSupportCall(services, subscriber.id, {
            feeling: null,
            urgency: "normal",
            origin: scheduleOrigin(`subscriber:${subscriber.id}`),
            source: "scheduled",
            scheduledFor: dueAt,
          });
        }
        await updateSubscriber(services.db, subscriber.id, { nextCallAt: nextScheduledCall(subscriber, subscriber.status, now) });
      }
    }
    await sendReminders(services, now);
    await warnTrialsEnding(services, now);
  },
};
export const SCHEDULED_CALLS_CRON = "* * * * *";
