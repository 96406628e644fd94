import type { TFunction } from "i18next";
import { bookingEventUid, bookingIcs } from "~/lib/calendar/ics";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, paragraphs } from "./layout";

/** What the business did to a booking by hand; the customer hears of each, in their language. */
export type BookingChange = "confirmed" | "cancelled" | "moved";

export interface BookingChangeInput {
  bookingId: number;
  businessName: string;
  businessPhone: string;
  /** Replies go to the business, not to Sakina. */
  businessEmail: string;
  businessAddress: string | null;
  serviceName: string;
  customerName: string;
  /** The booking's time as the customer reads it (their language, the business's time zone). */
  when: string;
  /** For a move: the time it had before. */
  previousWhen?: string;
  /** A move: what the new time's confirmation call will really be, when it is not a call now. */
  callPromise?: string;
  start: Date;
  end: Date;
  /** The customer's own page of the booking (not for a cancellation: nothing is left to change). */
  manageUrl?: string;
  /** The booking's reference as it is read out, e.g. "K7M-Q4P". */
  reference: string;
}

export function bookingChangeEmail(t: TFunction, lang: string, to: string, change: BookingChange, input: BookingChangeInput): EmailMessage {
  const subject = t(`owner.email.${change}Subject`, { business: input.businessName });
  const details = [
    `${t("bookingEmail.reference")}: ${input.reference}`,
    `${t("bookingEmail.service")}: ${input.serviceName}`,
    `${t("bookingEmail.when")}: ${input.when}`,
    ...(input.previousWhen ? [`${t("owner.email.previously")}: ${input.previousWhen}`] : []),
    ...(input.businessAddress && change !== "cancelled" ? [`${t("bookingEmail.where")}: ${input.businessAddress}`] : []),
  ].join("\n");
  const lines = [
    t(`owner.email.${change}Body`, { name: input.customerName, business: input.businessName }),
    details,
    ...(change === "moved" ? [input.callPromise ?? t("owner.email.movedCall")] : []),
    t("owner.email.contact", { business: input.businessName, phone: input.businessPhone }),
  ];
  const manage = input.manageUrl ? button(input.manageUrl, t("bookingEmail.manageButton")) : "";
  const textLines = input.manageUrl ? [...lines, `${t("bookingEmail.manage")}: ${input.manageUrl}`] : lines;
  return {
    to,
    replyTo: input.businessEmail,
    subject,
    text: `${textLines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") + manage }),
    // A move carries the calendar entry again: the same UID, so calendars update the one they have.
    ...(change === "moved"
      ? {
          attachments: [
            {
              filename: "booking.ics",
              contentType: "text/calendar; charset=utf-8; method=PUBLISH",
              content: bookingIcs({
                uid: bookingEventUid(input.bookingId),
                start: input.start,
                end: input.end,
                summary: `${input.serviceName}: ${input.businessName}`,
                description: `${t("bookingEmail.reference")}: ${input.reference}\n${t("owner.email.contact", { business: input.businessName, phone: input.businessPhone })}`,
                location: input.businessAddress,
              }),
            },
          ],
        }
      : {}),
  };
}
