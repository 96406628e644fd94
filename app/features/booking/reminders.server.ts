import { customerReminderEmail } from "#emails/booking";
import { bookingsDueEmailReminder, claimEmailReminder, type ReminderWindow } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { formatWhen } from "~/features/booking/booking.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import { manageLinkOf } from "~/features/booking/manage-link.server";
import type { AppJob, AppServices } from "~/platform/services.server";
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
    await sendDueEmailReminders(services, new Date());
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
      when: formatWhen(booking.startsAt, business.timeZone, booking.language),
      start: booking.startsAt,
      end: booking.endsAt,
      customerName: booking.customerName,
      reference: formatBookingReference(booking.reference),
      manageUrl: manageLinkOf(services, booking.manageTokenSealed),
    });
    await services.jobs.enqueue(sendEmailJob, message, { tx });
    return true;
  });
}
