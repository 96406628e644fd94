import { announceBusinessChange } from "#models/analytics";
import { findBooking, markBookingNotCalled, setBookingCallState, setBookingStatus } from "#models/bookings";
import { findBusinessById } from "#models/businesses";
import { failCall, isOptedOut, type Call } from "#models/calls";
import { originOfCall, queueCall } from "~/calls/gate.server";
import { admitConfirmationCall, reportCallUsageJob } from "~/features/business/index.server";
import type { AppServices, CallPurpose } from "~/platform/services.server";
import { bookingAgent, voicemailFor } from "./agent.server";
import { nextCallingTime } from "./calling-hours";

export const CONFIRMATION_ATTEMPTS = 3;

/**
 * A booking's confirmation call: the business's assistant speaks and leaves a voicemail for a
 * machine. It is dialled only to a customer who did not opt out, within calling hours where the
 * business is (put off until then otherwise), and when the plan admits it. Then it makes its
 * booking "calling" once placed (and one call counted against the plan), done when a person
 * answered, another attempt half an hour later when nobody or a machine did, and "unreachable"
 * after the last attempt.
 */
export const confirmationCallPurpose: CallPurpose = {
  agent: bookingAgent,
  voicemail: voicemailFor,
  async admit(services, call, defer) {
    if (!call.businessId || !call.toNumber) return true;
    const business = await findBusinessById(services.db, call.businessId);
    if (business && (await isOptedOut(services.db, business.id, call.toNumber))) {
      await failCall(services.db, call.id, "The customer asked not to be called again.");
      if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "opted_out");
      return false;
    }
    const later = business ? nextCallingTime(Date.now(), business.timeZone) : null;
    if (later) {
      await defer(later);
      if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "scheduled");
      return false;
    }
    // The plan decides, under a lock, whether this call may be placed (and counts it once).
    return admitConfirmationCall(services, call);
  },
  async notCalled(services, call, reason) {
    if (call.bookingId) await markBookingNotCalled(services.db, call.bookingId, reason);
  },
  async placed(services, call) {
    if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "calling");
    if (call.businessId) await services.jobs.enqueue(reportCallUsageJob, { callId: call.id, businessId: call.businessId });
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
  async finished(services, call) {
    await confirmationCallFinished(services, call);
    // The call's length and result, and perhaps the booking (unreachable), changed.
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
};

/** The free demo call: the same assistant, confirming a pretend booking (a demo call has none). */
export const demoCallPurpose: CallPurpose = { agent: bookingAgent };

async function confirmationCallFinished(services: AppServices, call: Call) {
  if (!call.bookingId) return;
  const booking = await findBooking(services.db, call.bookingId);
  if (!booking || booking.status !== "pending") return;
  const machine = call.answeredBy?.startsWith("machine") || call.outcome === "voicemail";
  if (call.status === "completed" && !machine) {
    await setBookingCallState(services.db, booking.id, call.outcome ? `done:${call.outcome}` : "answered");
    return;
  }
  // A call for a time the booking has since moved from: the new time has its own calls.
  if (call.confirmationRound !== null && call.confirmationRound !== booking.confirmationRound) return;
  if (call.attempt < CONFIRMATION_ATTEMPTS && call.toNumber) {
    // Told twice that the call ended (a replayed callback, the sweeper), the next attempt is made once.
    const next = await queueCall(services, {
      purpose: "booking_confirmation",
      to: call.toNumber,
      language: call.language,
      voice: call.voice,
      businessId: call.businessId,
      bookingId: call.bookingId,
      confirmationRound: booking.confirmationRound,
      attempt: call.attempt + 1,
      origin: originOfCall(call),
      startAfter: new Date(Date.now() + 30 * 60_000),
    });
    if (next.ok && next.created) await setBookingCallState(services.db, booking.id, `retry_${call.attempt + 1}`);
    return;
  }
  await setBookingStatus(services.db, booking.id, "unreachable", "unreachable");
  await setBookingCallState(services.db, booking.id, "unreachable");
}
