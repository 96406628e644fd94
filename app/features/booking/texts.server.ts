import type { Booking } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import type { Db } from "#models/db";
import { bookingsDueTextReminder, claimTextReminder } from "#models/texts";
import { formatBookingReference } from "#models/booking-reference";
import { formatWhen } from "~/lib/when";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";
import { queueText } from "~/texts/gate.server";
import { manageLinkOf } from "./manage-link.server";

/** A text's words in the customer's language, ending with the opt-out line every text carries. */
async function textBody(language: string, key: "texts.confirmation" | "texts.reminder", values: Record<string, string>) {
  const t = await translatorFor(language);
  const translate = t as unknown as (key: string, values: Record<string, string>) => string;
  return `${translate(key, values)}\n${t("texts.optOut")}`;
}

/**
 * A new booking made without an e-mail address: its confirmation, with the reference and the link
 * to change or cancel, goes by text, when the business texts its customers. One agreed on a call to
 * the business's number (`agreedOnCall`) is texted to the caller in any case: they were told so on
 * the call. Queued in the booking's transaction `tx` (through queueText, the one way a text is
 * sent: the caller's STOP, the countries and number types apply).
 */
export async function queueConfirmationText(
  services: AppServices,
  tx: Db,
  business: { id: number; name: string; timeZone: string; textsEnabled: boolean },
  serviceName: string,
  booking: Pick<Booking, "id" | "customerPhone" | "startsAt" | "reference" | "language" | "customerEmail">,
  manageUrl: string,
  { agreedOnCall = false }: { agreedOnCall?: boolean } = {},
) {
  if (!agreedOnCall && (booking.customerEmail || !business.textsEnabled)) return;
  const body = await textBody(booking.language, "texts.confirmation", {
    business: business.name,
    service: serviceName,
    when: formatWhen(booking.startsAt, business.timeZone, booking.language, "dateTime"),
    reference: formatBookingReference(booking.reference),
    link: manageUrl,
  });
  await queueText(services, tx, {
    businessId: business.id,
    to: booking.customerPhone,
    body,
    purpose: "booking_confirmation",
    key: `confirmation-${booking.id}`,
  });
}

/**
 * Every reminder text due at `now` (a day before, as the reminder e-mail), for businesses that text
 * their customers; each queued once per booking and time: the record (bookings.reminder_text_for)
 * and the text's job commit in one transaction. How many were queued.
 */
export async function queueDueTextReminders(services: AppServices, now: Date) {
  if (!services.messaging.configured) return 0;
  let queued = 0;
  for (;;) {
    const due = await bookingsDueTextReminder(services.db, now, 100);
    for (const { id } of due) if (await queueReminderText(services, id, now)) queued += 1;
    if (due.length < 100) return queued;
  }
}

async function queueReminderText(services: AppServices, bookingId: number, now: Date) {
  return services.db.transaction(async (tx) => {
    const booking = await claimTextReminder(tx, bookingId, now);
    if (!booking) return false;
    const [business, service] = await Promise.all([
      findBusinessById(tx, booking.businessId),
      findService(tx, booking.businessId, booking.serviceId),
    ]);
    if (!business?.textsEnabled) return false;
    const body = await textBody(booking.language, "texts.reminder", {
      business: business.name,
      service: service?.name ?? "",
      when: formatWhen(booking.startsAt, business.timeZone, booking.language, "dateTime"),
      link: manageLinkOf(services, booking.manageTokenSealed) ?? "",
    });
    const queued = await queueText(services, tx, {
      businessId: business.id,
      to: booking.customerPhone,
      body,
      purpose: "booking_reminder",
      key: `reminder-${booking.id}-${booking.startsAt.toISOString()}`,
    });
    return queued.queued;
  });
}
