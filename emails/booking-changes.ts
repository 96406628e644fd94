import type { TFunction } from "i18next";
import { bookingEventUid, bookingIcs } from "~/lib/calendar/ics";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, paragraphs, shownIn } from "./layout";

/** A change of a booking's time or status; the customer hears of each, in their language. */
export type BookingChange = "confirmed" | "cancelled" | "moved" | "reschedule_requested";
/** Who made it: the business's owner (dashboard) or the customer (their manage page, or on a call). */
export type ChangedBy = "owner" | "customer";

export interface BookingChangeInput {
  bookingId: number;
  businessName: string;
  businessPhone: string;
  /** Replies go to the business, not to Sakina. */
  businessEmail: string;
  businessAddress: string | null;
  serviceName: string;
  customerName: string;
  /** The booking's time as the customer reads it (their language, the zone they booked in). */
  when: string;
  /** For a move: the time it had before. */
  previousWhen?: string;
  /** A move: what the new time's confirmation call will really be, when it is not a call now. */
  callPromise?: string;
  start: Date;
  end: Date;
  /** The booking's calendar sequence after the change: the .ics's SEQUENCE, so calendars replace their copy. */
  sequence: number;
  /** The customer's own page of the booking (the same link as in the first e-mail). */
  manageUrl?: string;
  /** The booking's reference as it is read out, e.g. "K7M-Q4P". */
  reference: string;
}

/** The calendar file of the booking as it now stands: the same UID, the next SEQUENCE, and CANCEL once cancelled. */
function changeIcs(t: TFunction, change: BookingChange, input: BookingChangeInput) {
  const cancelled = change === "cancelled";
  return {
    filename: "booking.ics",
    contentType: `text/calendar; charset=utf-8; method=${cancelled ? "CANCEL" : "PUBLISH"}`,
    content: bookingIcs({
      uid: bookingEventUid(input.bookingId),
      start: input.start,
      end: input.end,
      summary: `${input.serviceName}: ${input.businessName}`,
      description: [
        `${t("bookingEmail.reference")}: ${input.reference}`,
        ...(input.manageUrl && !cancelled ? [`${t("bookingEmail.manage")}: ${input.manageUrl}`] : []),
        t("owner.email.contact", { business: input.businessName, phone: input.businessPhone }),
      ].join("\n"),
      location: input.businessAddress,
      ...(input.manageUrl && !cancelled ? { url: input.manageUrl } : {}),
      sequence: input.sequence,
      cancelled,
    }),
  };
}

/** The customer's e-mail of a change, whoever made it: the new state, the manage link, and the updated calendar file. */
export function bookingChangeEmail(
  t: TFunction,
  lang: string,
  to: string,
  change: BookingChange,
  input: BookingChangeInput,
  by: ChangedBy = "owner",
): EmailMessage {
  const shown = shownIn(input, lang);
  // What the business did is told as theirs; what the customer did, as theirs ("you moved").
  const key = by === "customer" ? `bookingChanges.${change}ByYou` : `owner.email.${change}`;
  const subject = t(`${key}Subject` as "owner.email.movedSubject", { business: shown.businessName });
  const details = [
    `${t("bookingEmail.reference")}: ${input.reference}`,
    `${t("bookingEmail.service")}: ${shown.serviceName}`,
    `${t("bookingEmail.when")}: ${input.when}`,
    ...(input.previousWhen ? [`${t("owner.email.previously")}: ${input.previousWhen}`] : []),
    ...(shown.businessAddress && change !== "cancelled" ? [`${t("bookingEmail.where")}: ${shown.businessAddress}`] : []),
  ].join("\n");
  const lines = [
    t(`${key}Body` as "owner.email.movedBody", { name: shown.customerName, business: shown.businessName }),
    details,
    ...(change === "moved" ? [input.callPromise ?? t("owner.email.movedCall")] : []),
    ...(change === "cancelled" ? [t("bookingChanges.calendarRemoves")] : []),
    t("owner.email.contact", { business: shown.businessName, phone: input.businessPhone }),
  ];
  const manage = input.manageUrl && change !== "cancelled" ? button(input.manageUrl, t("bookingEmail.manageButton")) : "";
  const textLines = manage ? [...lines, `${t("bookingEmail.manage")}: ${input.manageUrl}`] : lines;
  return {
    to,
    replyTo: input.businessEmail,
    subject,
    text: `${textLines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") + manage }),
    // Every change carries the calendar entry again: the same UID with the next SEQUENCE, so
    // calendars update (or, cancelled, remove) the one event they have.
    attachments: [changeIcs(t, change, input)],
  };
}

export interface OwnerChangeInput {
  customerName: string;
  serviceName: string;
  reference: string;
  /** In the business's zone and language. */
  when: string;
  previousWhen?: string;
  /** Another time asked for: what the customer said they would prefer, in their words. */
  preferred?: string;
  dashboardUrl: string;
}

/** The owner's e-mail when the customer moved or cancelled their booking themselves, or asked for another time. */
export function ownerBookingChangeEmail(
  t: TFunction,
  lang: string,
  to: string,
  change: Exclude<BookingChange, "confirmed">,
  input: OwnerChangeInput,
): EmailMessage {
  const shown = shownIn(input, lang);
  const subject = t(`bookingChanges.owner.${change}Subject`, { name: shown.customerName, when: input.when });
  const lines = [
    t(`bookingChanges.owner.${change}Body`, { name: shown.customerName }),
    [
      `${t("bookingEmail.reference")}: ${input.reference}`,
      `${t("bookingEmail.service")}: ${shown.serviceName}`,
      `${t("bookingEmail.when")}: ${input.when}`,
      ...(input.previousWhen ? [`${t("owner.email.previously")}: ${input.previousWhen}`] : []),
      ...(input.preferred ? [`${t("bookingChanges.owner.preferred")}: ${input.preferred}`] : []),
    ].join("\n"),
    `${t("bookingEmail.dashboard")}: ${input.dashboardUrl}`,
  ];
  return {
    to,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") }),
  };
}

/** The new manage link the customer asked for: the old one no longer works. */
export function newManageLinkEmail(
  t: TFunction,
  lang: string,
  to: string,
  input: { customerName: string; businessName: string; businessEmail: string; manageUrl: string; reference: string },
): EmailMessage {
  const shown = shownIn(input, lang);
  const subject = t("bookingChanges.newLinkSubject", { business: shown.businessName });
  const lines = [
    t("bookingChanges.newLinkBody", { name: shown.customerName, business: shown.businessName }),
    `${t("bookingEmail.reference")}: ${input.reference}`,
  ];
  return {
    to,
    replyTo: input.businessEmail,
    subject,
    text: `${[...lines, `${t("bookingEmail.manage")}: ${input.manageUrl}`].join("\n\n")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: lines.map(paragraphs).join("") + button(input.manageUrl, t("bookingEmail.manageButton")),
    }),
  };
}
