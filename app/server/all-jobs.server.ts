import type { AppJob } from "~/platform/services.server";
import { businessSubscriptionJob, ownerCredentialsJob, reportCallUsageJob } from "~/features/business/signup/onboarding.server";
import { bookingConfirmationCallJob } from "~/features/booking/booking.server";
import { bookingRemindersJob } from "~/features/booking/reminders.server";
import { calendarReadJob, calendarSyncJob, calendarWriteJob } from "~/features/booking/calendar-sync.server";
import { bookingConfirmationSweepJob } from "~/features/booking/confirmation-sweep.server";
import { callSweeperJob, placeCallJob } from "~/calls/engine.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { sendTextJob } from "~/texts/gate.server";
import { empathyErasureJob, empathyRefundJob, empathyRefundSweepJob } from "~/features/empathy/empathy.server";
import { retentionJob } from "~/features/retention/retention.server";
import { scheduledCallsJob } from "~/features/subscriptions/index.server";
import { voicemailEmailJob } from "~/features/receptionist/index.server";

/** Every kind of background work the workers run. */
export const allJobs: AppJob<object>[] = [
  sendEmailJob,
  ownerCredentialsJob,
  businessSubscriptionJob,
  bookingConfirmationCallJob,
  bookingConfirmationSweepJob,
  placeCallJob,
  callSweeperJob,
  reportCallUsageJob,
  empathyRefundJob,
  empathyRefundSweepJob,
  // No longer scheduled (the retention job does its work); kept so a job already queued still runs.
  empathyErasureJob,
  retentionJob,
  scheduledCallsJob,
  bookingRemindersJob,
  calendarWriteJob,
  calendarReadJob,
  calendarSyncJob,
  sendTextJob,
  voicemailEmailJob,
];
