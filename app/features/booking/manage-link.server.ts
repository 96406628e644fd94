import { newManageLinkEmail } from "#emails/booking-changes";
import { formatBookingReference } from "#models/booking-reference";
import { replaceManageToken, type Booking } from "#models/bookings";
import type { Business } from "#models/businesses";
import { bookingEventUid, bookingIcs } from "~/lib/calendar/ics";
import { googleCalendarLink, outlookCalendarLink } from "~/lib/calendar/links";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import { seal, unseal } from "~/platform/security/secret.server";
import type { AppServices } from "~/platform/services.server";

/**
 * The customer's own page of a booking is /booking/{secret}. Only the secret's hash finds the
 * booking; a sealed copy is kept with it (AES-GCM under the signing secret, as every secret at
 * rest), so every later e-mail (a change, the reminder) carries the same link the confirmation
 * e-mail and its calendar file did: the link lives as long as the booking, and only the customer's
 * own request for a new one replaces it (replaceManageLink).
 */
const MANAGE_LINK_SEAL = "booking-manage-link";

/** Seals a booking's manage-link secret: pass to createBooking and replaceManageToken. */
export function manageTokenSealer(services: Pick<AppServices, "signingSecret">) {
  return (token: string) => seal(services.signingSecret, MANAGE_LINK_SEAL, token);
}

/** The booking's manage link from its sealed secret, or null (made before reminders, or the signing secret changed). */
export function manageLinkOf(services: Pick<AppServices, "signingSecret" | "publicOrigin">, sealed: string | null) {
  const token = sealed ? unseal(services.signingSecret, MANAGE_LINK_SEAL, sealed) : null;
  return token ? `${services.publicOrigin()}/booking/${token}` : null;
}

/**
 * The customer asked for a new link (someone else may have the old one): the only way a link
 * stops working while its booking lives. The new secret, the old one's record as replaced, and
 * the e-mail carrying the new link commit together. Returns the new secret.
 */
export async function replaceManageLink(services: AppServices, booking: Booking, business: Business) {
  const t = booking.customerEmail ? await translatorFor(booking.language) : null;
  return services.db.transaction(async (tx) => {
    const token = await replaceManageToken(tx, booking.id, manageTokenSealer(services));
    if (!token) return null;
    if (booking.customerEmail && t) {
      await services.jobs.enqueue(
        sendEmailJob,
        newManageLinkEmail(t, booking.language, booking.customerEmail, {
          customerName: booking.customerName,
          businessName: business.name,
          businessEmail: business.email,
          manageUrl: `${services.publicOrigin()}/booking/${token}`,
          reference: formatBookingReference(booking.reference),
        }),
        { tx },
      );
    }
    return token;
  });
}

/**
 * The booking as its customer adds it to a calendar, from its manage link: the .ics file (the
 * same UID and SEQUENCE as the e-mails' files; CANCEL once cancelled) and Google's and Outlook's links.
 */
export function bookingCalendar(
  services: Pick<AppServices, "publicOrigin">,
  booking: Booking,
  business: Pick<Business, "name" | "address">,
  serviceName: string,
  token: string,
  describe: string,
) {
  const manageUrl = `${services.publicOrigin()}/booking/${token}`;
  const title = `${serviceName}: ${business.name}`;
  const details = `${describe}\n${manageUrl}`;
  const event = { title, start: booking.startsAt, end: booking.endsAt, details, location: business.address };
  return {
    ics: () =>
      bookingIcs({
        uid: bookingEventUid(booking.id),
        start: booking.startsAt,
        end: booking.endsAt,
        summary: title,
        description: details,
        location: business.address,
        url: manageUrl,
        sequence: booking.calendarSequence,
        cancelled: booking.status === "cancelled",
      }),
    links: {
      ics: `/booking/${token}/calendar.ics`,
      google: googleCalendarLink(event),
      outlook: outlookCalendarLink(event),
    },
  };
}
