import { bookingsMissingConfirmationCall } from "#models/bookings";
import type { AppJob } from "~/platform/services.server";
import { queueConfirmationCall } from "./booking.server";

/** A booking's own job has had this long to ask for its call before the sweep does. */
export const CONFIRMATION_SWEEP_GRACE_SECONDS = 120;

/**
 * Every minute, the safety net: a pending booking with no confirmation call for its round gets its
 * job again. A booking's job is queued in the transaction that made or moved it
 * (queueConfirmationCall), so no crash leaves it without one; what remains is a job that ran out of
 * retries, or a booking written before the job was transactional. Running it twice is safe: the job
 * asks the call gate, which keeps one call per booking, round and attempt.
 */
export const bookingConfirmationSweepJob: AppJob<Record<string, never>> = {
  name: "booking-confirmation-sweep",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    for (const booking of await bookingsMissingConfirmationCall(services.db, CONFIRMATION_SWEEP_GRACE_SECONDS)) {
      await services.db.transaction((tx) => queueConfirmationCall(services, tx, booking, services.publicOrigin()));
    }
  },
};
export const BOOKING_CONFIRMATION_SWEEP_CRON = "* * * * *";
