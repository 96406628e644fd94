import { customerReminderEmail } from "#emails/booking";
import { announceBusinessChange } from "#models/analytics";
import {
  bookingsDueCallReminder,
  bookingsDueEmailReminder,
  claimCallReminder,
  claimEmailReminder,
  findBooking,
  REMINDER_CALL_LATEST_MINUTES,
  type ReminderWindow,
} from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { failCall, isOptedOut } from "#models/calls";
import { originOfBooking, queueCall } from "~/calls/gate.server";
import { callsUnavailable } from "~/calls/readiness.server";
import { admitReminderCall, reportCallUsageJob } from "~/features/business/index.server";
import { reminderAgent, reminderVoicemailFor } from "./agent.server";
import { nextCallingTime } from "./calling-hours";
import { formatWhenWithZone as formatWhen } from "~/lib/when";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import { manageLinkOf } from "~/features/booking/manage-link.server";
import { queueDueTextReminders } from "./texts.server";
import type { AppJob, AppServices, CallPurpose } from "~/platform/services.server";
import { formatBookingReference } from "#models/booking-reference";

/**
 * The customer's e-mail a day before the appointment (per business, on unless the owner turned
 * it off). Sent once per booking and time: the record that it went and the e-mail's job commit in
 * one transaction, so a restart, a retried scan or two processes scanning together send it once.
 * A reminder the server missed (it was down) goes late only while there is an hour left; never
 * for a cancelled booking, and not for one made or moved within the day (its e-mail just went).
 */
export const EMAIL_REMINDER: ReminderWindow = { hoursBefore: 24, latestMinutesBefore: 60 };

/** Runs every minute (stored by pg-boss: one run per minute across processes). */
export const REMINDERS_CRON = "* * * * *";

export const bookingRemindersJob: AppJob<Record<string, never>> = {
  name: "booking-reminders",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    const now = new Date();
    await sendDueEmailReminders(services, now);
    await queueDueCallReminders(services, now);
    await queueDueTextReminders(services, now);
  },
};

/** Every reminder e-mail due at `now`, each once; how many went. */
export async function sendDueEmailReminders(services: AppServices, now: Date) {
  let sent = 0;
  for (;;) {
    const due = await bookingsDueEmailReminder(services.db, now, EMAIL_REMINDER, 100);
    for (const { id } of due) if (await sendEmailReminder(services, id, now)) sent += 1;
    if (due.length < 100) return sent;
  }
}

async function sendEmailReminder(services: AppServices, bookingId: number, now: Date) {
  return services.db.transaction(async (tx) => {
    const booking = await claimEmailReminder(tx, bookingId, now, EMAIL_REMINDER);
    if (!booking?.customerEmail) return false;
    const [business, service] = await Promise.all([
      findBusinessById(tx, booking.businessId),
      findService(tx, booking.businessId, booking.serviceId),
    ]);
    if (!business) return false;
    const t = await translatorFor(booking.language);
    const message = customerReminderEmail(t, booking.language, booking.customerEmail, {
      bookingId: booking.id,
      businessName: business.name,
      businessAddress: business.address,
      businessPhone: formatPhone(business.phone),
      serviceName: service?.name ?? "",
      when: formatWhen(booking.startsAt, booking.customerTimeZone ?? business.timeZone, booking.language),
      start: booking.startsAt,
      end: booking.endsAt,
      customerName: booking.customerName,
      reference: formatBookingReference(booking.reference),
      manageUrl: manageLinkOf(services, booking.manageTokenSealed),
      sequence: booking.calendarSequence,
    });
    await services.jobs.enqueue(sendEmailJob, message, { tx });
    return true;
  });
}

/** The hours before an appointment an owner may choose for the AI reminder call (null: none). */
export const REMINDER_CALL_HOURS = [2, 4, 12, 24] as const;

/**
 * Every AI reminder call due at `now` queued, each once per booking and time; how many were.
 * Durable like the e-mail: the record that it was queued (bookings.reminder_call_for) and the call
 * with its placing job commit in one transaction. One due outside calling hours where the business
 * is stays unclaimed, so a later scan queues it once they open, if it is still of use then (more
 * than half an hour before the start); otherwise it is never made. Nothing is queued by a server
 * that cannot place calls (the owner is not offered the setting there either).
 */
export async function queueDueCallReminders(services: AppServices, now: Date) {
  if (callsUnavailable(services)) return 0;
  let queued = 0;
  let after = 0;
  for (;;) {
    const due = await bookingsDueCallReminder(services.db, now, after, 100);
    for (const { id, timeZone } of due) {
      after = id;
      if (nextCallingTime(now.getTime(), timeZone)) continue;
      if (await queueReminderCall(services, id, now)) queued += 1;
    }
    if (due.length < 100) return queued;
  }
}

async function queueReminderCall(services: AppServices, bookingId: number, now: Date) {
  return services.db.transaction(async (tx) => {
    const booking = await claimCallReminder(tx, bookingId, now);
    if (!booking) return false;
    const business = await findBusinessById(tx, booking.businessId);
    if (!business) return false;
    // Counted where the booking was made, as its confirmation was: refused there (the address's
    // calls of the day are used up, an opt-out), the reminder is not made, and the refusal is recorded.
    const queued = await queueCall(
      services,
      {
        purpose: "booking_reminder",
        to: booking.customerPhone,
        language: booking.language,
        voice: business.confirmationVoice,
        businessId: business.id,
        bookingId: booking.id,
        origin: originOfBooking(booking),
      },
      tx,
    );
    return queued.ok;
  });
}

/**
 * The reminder call: the confirmation agent's voice in the booking's language, with its reminder
 * script and voicemail. Checked again right before it is dialled: the booking is still live, at the
 * time the reminder was for, and more than half an hour away; the customer did not opt out; inside
 * calling hours (put off until they open while that is still of use, else skipped); and the plan
 * admits it, counting it as one call. One attempt: no answer is not tried again.
 */
export const reminderCallPurpose: CallPurpose = {
  agent: reminderAgent,
  voicemail: reminderVoicemailFor,
  async admit(services, call, defer) {
    const booking = call.bookingId ? await findBooking(services.db, call.bookingId) : null;
    const now = Date.now();
    const latest = booking ? booking.startsAt.getTime() - REMINDER_CALL_LATEST_MINUTES * 60_000 : 0;
    if (
      !booking ||
      (booking.status !== "pending" && booking.status !== "confirmed") ||
      booking.reminderCallFor?.getTime() !== booking.startsAt.getTime() ||
      now >= latest
    ) {
      await failCall(services.db, call.id, "No longer needed: the booking was cancelled or moved, or starts too soon.");
      return false;
    }
    const business = await findBusinessById(services.db, booking.businessId);
    if (!business) return false;
    if (await isOptedOut(services.db, business.id, booking.customerPhone)) {
      await failCall(services.db, call.id, "The customer asked not to be called again.");
      return false;
    }
    const later = nextCallingTime(now, business.timeZone);
    if (later) {
      if (later.getTime() < latest) {
        await defer(later);
        return false;
      }
      await failCall(services.db, call.id, "Skipped: calling hours open too close to the appointment.");
      return false;
    }
    return admitReminderCall(services, call);
  },
  async placed(services, call) {
    if (call.businessId) await services.jobs.enqueue(reportCallUsageJob, { callId: call.id, businessId: call.businessId });
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
  async finished(services, call) {
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
};
