import { bookingsMissingConfirmationCall } from "#models/bookings";
import type { AppJob } from "~/platform/services.server";
import { bookingConfirmationCallJob } from "./booking.server";

/** A booking's own job has had this long to ask for its call before the sweep does. */
export const CONFIRMATION_SWEEP_GRACE_SECONDS = 120;

/**
 * Every minute: a pending booking with no confirmation call for its round (its job was lost: the
 * process died between the booking's commit and the enqueue) gets its job. Running it twice is
 * safe: the job asks the call gate, which keeps one call per booking, round and attempt.
 */
export const bookingConfirmationSweepJob: AppJob<Record<string, never>> = {
  name: "booking-confirmation-sweep",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    for (const { id } of await bookingsMissingConfirmationCall(services.db, CONFIRMATION_SWEEP_GRACE_SECONDS)) {
      await services.jobs.enqueue(
        bookingConfirmationCallJob,
        { bookingId: id, origin: services.publicOrigin() },
        { singletonKey: `confirm-${id}` },
      );
    }
  },
};
export const BOOKING_CONFIRMATION_SWEEP_CRON = "* * * * *";
