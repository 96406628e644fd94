import { bookingChangeEmail, ownerBookingChangeEmail, type BookingChange, type ChangedBy } from "#emails/booking-changes";
import { announceBusinessChange } from "#models/analytics";
import { formatBookingReference } from "#models/booking-reference";
import {
  CALL_STATES_IN_PROGRESS,
  cancelBusinessBooking,
  confirmBusinessBooking,
  moveBusinessBooking,
  recordBookingChange,
  replaceManageToken,
  requestBookingReschedule,
  setBookingCallStateIf,
  type Booking,
} from "#models/bookings";
import { findService } from "#models/business-services";
import type { Business } from "#models/businesses";
import { cancelQueuedBookingCalls } from "#models/calls";
import type { Db } from "#models/db";
import { formatWhenWithZone } from "~/lib/when";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import type { AppServices } from "~/platform/services.server";
import { queueConfirmationCall } from "./booking.server";
import { queueCalendarWrite } from "./calendar-sync.server";
import {
  confirmationPromise,
  describeConfirmationPromise,
  ownerCallStateOf,
  type ConfirmationPromise,
} from "./confirmation-promise.server";
import { manageLinkOf, manageTokenSealer } from "./manage-link.server";

export type { BookingChange, ChangedBy };

export type BookingChangeRequest =
  | { kind: "confirmed" }
  | { kind: "cancelled" }
  /** The customer asked for another time (on a call), in their words: the business offers one. */
  | { kind: "reschedule_requested"; preferred: string }
  /**
   * A new time; the booking keeps its length unless `end` says otherwise. `agreedOnCall`: moved on
   * a call to the business's own number, the caller agreeing to the new time there, so it is
   * confirmed and no confirmation call follows.
   */
  | { kind: "moved"; start: Date; end: Date; agreedOnCall?: boolean };

export type ChangeBookingResult =
  | { kind: "changed"; booking: Booking }
  /** It no longer can change so (over, cancelled, already confirmed): nothing was done or sent. */
  | { kind: "unchanged" }
  /** The new time was taken a moment ago by another booking. */
  | { kind: "taken" };

/** The zone a customer reads their booking in: the one they booked in, else the business's. */
export function customerZone(booking: Pick<Booking, "customerTimeZone">, business: Pick<Business, "timeZone">) {
  return booking.customerTimeZone ?? business.timeZone;
}

/**
 * The one way a booking's time or status is changed by a person: the owner confirming, moving or
 * cancelling it in the dashboard, the customer moving or cancelling it on their manage page, or
 * confirming, cancelling or asking for another time on a confirmation or reminder call.
 * Everything a change must bring commits in the change's own transaction:
 * - who made it (the owner's list says "by the customer" / "by you");
 * - the calls: a queued confirmation or reminder call for the old time is withdrawn, a move asks for
 *   the new time's confirmation call (a reminder follows the new time: the scan finds it due again);
 * - the customer's e-mail with the booking's unchanged manage link and its calendar file (same
 *   UID, the booking's next SEQUENCE; METHOD:CANCEL once cancelled), in the zone they booked in;
 * - the owner's e-mail when the customer made it (not for a confirmation: the list says it);
 * - the write to the owner's own calendar (CalDAV), when one is connected.
 * tests/unit/booking-changes.test.ts checks that nothing else in app/ changes a booking's time or
 * status this way.
 */
export async function changeBooking(
  services: AppServices,
  { booking, business, by }: { booking: Booking; business: Business; by: ChangedBy },
  change: BookingChangeRequest,
): Promise<ChangeBookingResult> {
  // Read before the transaction, which holds the embedded database's one connection.
  const service = await findService(services.db, business.id, booking.serviceId);
  const customerT = booking.customerEmail ? await translatorFor(booking.language) : null;
  const ownerT = by === "customer" ? await translatorFor(business.defaultLanguage) : null;
  // A move's confirmation call, as the booking page would promise it: the booking's status, the
  // owner's call column and the customer's e-mail all say this one answer.
  const promise: ConfirmationPromise | null =
    change.kind !== "moved" ? null : change.agreedOnCall ? { kind: "agreed_on_call" } : await confirmationPromise(services, business);
  const staysConfirmed = Boolean(promise && (promise.kind === "agreed_on_call" || keepsConfirmation(booking, by, promise)));
  const result = await services.db.transaction(async (tx): Promise<ChangeBookingResult> => {
    const changed = await apply(tx, business, booking, change, promise, staysConfirmed);
    if (changed.kind !== "changed") return changed;
    const after = changed.booking;
    await recordBookingChange(tx, after.id, change.kind, by);
    await followCalls(services, tx, after, change.kind, by, staysConfirmed);
    // The owner's own calendar (CalDAV, when connected) follows the booking.
    await queueCalendarWrite(services, tx, after);
    await announceBusinessChange(tx, business.id);
    const serviceName = service?.name ?? "";
    const reference = formatBookingReference(after.reference);
    const previous = change.kind === "moved" ? booking.startsAt : undefined;
    if (after.customerEmail && customerT) {
      const zone = customerZone(after, business);
      const manageUrl = await manageUrlOf(services, tx, after);
      const callPromise = staysConfirmed
        ? customerT("bookingChanges.movedStaysConfirmed")
        : promise && promise.kind !== "call_now"
          ? describeConfirmationPromise(customerT, after.language, business, promise, { emailed: true })
          : undefined;
      await services.jobs.enqueue(
        sendEmailJob,
        bookingChangeEmail(
          customerT,
          after.language,
          after.customerEmail,
          change.kind,
          {
            bookingId: after.id,
            businessName: business.name,
            businessPhone: formatPhone(business.phone),
            businessEmail: business.email,
            businessAddress: business.address,
            serviceName,
            customerName: after.customerName,
            when: formatWhenWithZone(after.startsAt, zone, after.language),
            ...(previous ? { previousWhen: formatWhenWithZone(previous, zone, after.language) } : {}),
            ...(callPromise ? { callPromise } : {}),
            start: after.startsAt,
            end: after.endsAt,
            sequence: after.calendarSequence,
            ...(manageUrl ? { manageUrl } : {}),
            reference,
          },
          by,
        ),
        { tx },
      );
    }
    if (ownerT && change.kind !== "confirmed") {
      await services.jobs.enqueue(
        sendEmailJob,
        ownerBookingChangeEmail(ownerT, business.defaultLanguage, business.email, change.kind, {
          customerName: after.customerName,
          serviceName,
          reference,
          when: formatWhenWithZone(after.startsAt, business.timeZone, business.defaultLanguage),
          ...(previous ? { previousWhen: formatWhenWithZone(previous, business.timeZone, business.defaultLanguage) } : {}),
          ...(change.kind === "reschedule_requested" && change.preferred ? { preferred: change.preferred } : {}),
          dashboardUrl: `${services.publicOrigin()}/dashboard/bookings/${after.id}`,
        }),
        { tx },
      );
    }
    return changed;
  });
  return result;
}

/**
 * A confirmed booking the owner moves, when no confirmation call will ring, stays confirmed: the
 * owner set the new time, and nothing would ever confirm it again ("Waiting for confirmation"
 * forever). When a call will ring, it confirms the new time with the customer; a move by the
 * customer waits for the business's confirmation as a new booking does (ADR 0038).
 */
function keepsConfirmation(booking: Booking, by: ChangedBy, promise: ConfirmationPromise) {
  return by === "owner" && booking.status === "confirmed" && promise.kind === "no_call";
}

async function apply(
  tx: Db,
  business: Business,
  booking: Booking,
  change: BookingChangeRequest,
  promise: ConfirmationPromise | null,
  staysConfirmed: boolean,
): Promise<ChangeBookingResult> {
  if (change.kind === "confirmed") {
    const row = await confirmBusinessBooking(tx, business.id, booking.id);
    return row ? { kind: "changed", booking: row } : { kind: "unchanged" };
  }
  if (change.kind === "cancelled") {
    const row = await cancelBusinessBooking(tx, business.id, booking.id);
    return row ? { kind: "changed", booking: row } : { kind: "unchanged" };
  }
  if (change.kind === "reschedule_requested") {
    const row = await requestBookingReschedule(tx, business.id, booking.id);
    return row ? { kind: "changed", booking: row } : { kind: "unchanged" };
  }
  const moved = await moveBusinessBooking(tx, business.id, booking.id, change.start, change.end, {
    status: staysConfirmed ? "confirmed" : "pending",
    callState: promise ? ownerCallStateOf(promise) : "queued",
  });
  if (moved.kind === "moved") return { kind: "changed", booking: moved.booking };
  return moved.kind === "taken" ? { kind: "taken" } : { kind: "unchanged" };
}

/**
 * The calls a change leaves: a confirmed booking needs no confirmation call (its reminder still
 * goes), nor one whose customer asked for another time (the business offers one); a cancelled one no call at all; a moved one the new time's confirmation, and none of the
 * old time's. A call already dialling is not cut; its result is for a round the booking left.
 */
async function followCalls(services: AppServices, tx: Db, booking: Booking, change: BookingChange, by: ChangedBy, staysConfirmed: boolean) {
  if (change === "confirmed" || change === "reschedule_requested") await cancelQueuedBookingCalls(tx, booking.id, ["booking_confirmation"]);
  else await cancelQueuedBookingCalls(tx, booking.id);
  if (change === "moved" && !staysConfirmed) await queueConfirmationCall(services, tx, booking, services.publicOrigin());
  else if (by === "owner") await setBookingCallStateIf(tx, booking.id, "by_owner", CALL_STATES_IN_PROGRESS);
}

/**
 * The booking's manage link, the one its first e-mail and calendar file carry: it lives as long
 * as the booking. Only when it cannot be shown again (made before links were sealed, or the
 * signing secret changed) is a new one made for this message.
 */
async function manageUrlOf(services: AppServices, tx: Db, booking: Booking) {
  const kept = manageLinkOf(services, booking.manageTokenSealed);
  if (kept) return kept;
  const token = await replaceManageToken(tx, booking.id, manageTokenSealer(services));
  return token ? `${services.publicOrigin()}/booking/${token}` : null;
}
