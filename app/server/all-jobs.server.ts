import type { JobDefinition } from "./jobs.server";
import { businessSubscriptionJob, ownerCredentialsJob, reportCallUsageJob } from "./business-onboarding.server";
import { bookingConfirmationCallJob } from "./booking.server";
import { placeCallJob } from "./calls.server";
import { sendEmailJob } from "./email-jobs.server";
import { empathyErasureJob, empathyRefundJob } from "./empathy.server";

/** Every kind of background work the workers run. */
export const allJobs: JobDefinition<any>[] = [
  sendEmailJob,
  ownerCredentialsJob,
  businessSubscriptionJob,
  bookingConfirmationCallJob,
  placeCallJob,
  reportCallUsageJob,
  empathyRefundJob,
  empathyErasureJob,
];
