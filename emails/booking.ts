import type { TFunction } from "i18next";
import { bookingEventUid, bookingIcs } from "~/lib/calendar/ics";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, paragraphs, shownIn } from "./layout";

export interface BookingEmailInput {
  bookingId: number;
  businessName: string;
  businessAddress: string | null;
  serviceName: string;
  when: string;
  start: Date;
  end: Date;
  customerName: string;
  customerPhone: string;
  customerEmail: string | null;
  notes: string | null;
  manageUrl: string;
  dashboardUrl: string;
  /** The booking's reference as it is read out, e.g. "K7M-Q4P". */
  reference: string;
}

/** `callPromise`: what the confirmation call will really be, told to the owner (the call now when not given). */
export function ownerBookingEmail(
  t: TFunction,
  lang: string,
  to: string,
  input: BookingEmailInput & { callPromise?: string },
): EmailMessage {
  const shown = shownIn(input, lang);
  const subject = t("bookingEmail.ownerSubject", { service: shown.serviceName, when: input.when });
  const lines = [
    t("bookingEmail.ownerBody", { name: shown.customerName }),
    [
      `${t("bookingEmail.reference")}: ${input.reference}`,
      `${t("bookingEmail.service")}: ${shown.serviceName}`,
      `${t("bookingEmail.when")}: ${input.when}`,
      `${t("bookingEmail.customer")}: ${shown.customerName}, ${input.customerPhone}${shown.customerEmail ? `, ${shown.customerEmail}` : ""}`,
      ...(shown.notes ? [`${t("bookingEmail.notes")}: ${shown.notes}`] : []),
    ].join("\n"),
    input.callPromise ?? t("bookingEmail.ownerCall"),
    `${t("bookingEmail.dashboard")}: ${input.dashboardUrl}`,
  ];
  return {
    to,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") }),
  };
}

/** `callPromise`: what the confirmation call will really be (now, at a stated time, or none), in words. */
export function customerBookingEmail(
  t: TFunction,
  lang: string,
  to: string,
  input: BookingEmailInput & { callPromise: string },
): EmailMessage {
  const shown = shownIn(input, lang);
  const subject = t("bookingEmail.customerSubject", { business: shown.businessName });
  const details = [
    `${t("bookingEmail.reference")}: ${input.reference}`,
    `${t("bookingEmail.service")}: ${shown.serviceName}`,
    `${t("bookingEmail.when")}: ${input.when}`,
    ...(shown.businessAddress ? [`${t("bookingEmail.where")}: ${shown.businessAddress}`] : []),
  ].join("\n");
  const lines = [
    t("bookingEmail.customerBody", { name: shown.customerName, business: shown.businessName }),
    details,
    `${input.callPromise} ${t("bookingEmail.calendarAttached")}`,
    t("bookingEmail.referenceHint"),
    `${t("bookingEmail.manage")}: ${input.manageUrl}`,
  ];
  return {
    to,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${lines.slice(0, 4).map(paragraphs).join("")}${button(input.manageUrl, t("bookingEmail.manageButton"))}`,
    }),
    attachments: [
      {
        filename: "booking.ics",
        contentType: "text/calendar; charset=utf-8; method=PUBLISH",
        content: bookingIcs({
          uid: bookingEventUid(input.bookingId),
          start: input.start,
          end: input.end,
          summary: `${input.serviceName}: ${input.businessName}`,
          description: `${t("bookingEmail.reference")}: ${input.reference}\n${t("bookingEmail.manage")}: ${input.manageUrl}`,
          location: input.businessAddress,
          url: input.manageUrl,
        }),
      },
    ],
  };
}

/**
 * The customer's reminder a day before: the appointment, where, and the way to change or cancel
 * it (the booking's own page when its link is known, else the business's phone), with the
 * calendar file again.
 */
export function customerReminderEmail(
  t: TFunction,
  lang: string,
  to: string,
  input: Pick<
    BookingEmailInput,
    "bookingId" | "businessName" | "businessAddress" | "serviceName" | "when" | "start" | "end" | "customerName" | "reference"
  > & {
    manageUrl: string | null;
    businessPhone: string;
    /** The booking's calendar sequence: the file replaces the copy a calendar holds after a change. */
    sequence?: number;
  },
): EmailMessage {
  const shown = shownIn(input, lang);
  const subject = t("bookingEmail.reminderSubject", { service: shown.serviceName, business: shown.businessName, when: input.when });
  const details = [
    `${t("bookingEmail.reference")}: ${input.reference}`,
    `${t("bookingEmail.service")}: ${shown.serviceName}`,
    `${t("bookingEmail.when")}: ${input.when}`,
    ...(shown.businessAddress ? [`${t("bookingEmail.where")}: ${shown.businessAddress}`] : []),
  ].join("\n");
  const change = input.manageUrl
    ? `${t("bookingEmail.reminderChange")} ${input.manageUrl}`
    : t("bookingEmail.reminderChangeByPhone", { phone: input.businessPhone });
  const lines = [
    t("bookingEmail.reminderBody", { name: shown.customerName, business: shown.businessName }),
    details,
    `${change} ${t("bookingEmail.calendarAttached")}`,
  ];
  return {
    to,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${lines.map(paragraphs).join("")}${input.manageUrl ? button(input.manageUrl, t("bookingEmail.manageButton")) : ""}`,
    }),
    attachments: [
      {
        filename: "booking.ics",
        contentType: "text/calendar; charset=utf-8; method=PUBLISH",
        content: bookingIcs({
          uid: bookingEventUid(input.bookingId),
          start: input.start,
          end: input.end,
          summary: `${input.serviceName}: ${input.businessName}`,
          description: `${t("bookingEmail.reference")}: ${input.reference}\n${input.manageUrl ? `${t("bookingEmail.manage")}: ${input.manageUrl}` : input.businessName}`,
          location: input.businessAddress,
          ...(input.manageUrl ? { url: input.manageUrl } : {}),
          sequence: input.sequence ?? 0,
        }),
      },
    ],
  };
}
