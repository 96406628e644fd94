import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, linkEmail, paragraphs } from "./layout";

/** The single-use link a new admin sets their password with. */
export function adminInviteEmail(t: TFunction, lang: string, input: { to: string; link: string; hours: number }): EmailMessage {
  return linkEmail(t, lang, {
    to: input.to,
    subject: t("admin.email.inviteSubject"),
    intro: t("admin.email.inviteBody", { hours: input.hours }),
    link: input.link,
    buttonLabel: t("admin.email.inviteButton"),
    after: t("admin.email.inviteNext"),
  });
}

/** Tells the admins that an owner asked for help; the ticket itself is read in /admin. */
export function supportTicketEmail(
  t: TFunction,
  lang: string,
  input: { to: string; business: string; subject: string; priority: boolean; link: string },
): EmailMessage {
  const subject = `${input.priority ? `[${t("admin.support.priority")}] ` : ""}${t("admin.email.ticketSubject", { business: input.business })}`;
  const intro = t("admin.email.ticketBody", { business: input.business, subject: input.subject });
  return {
    to: input.to,
    subject,
    text: `${intro}\n\n${input.link}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: `${paragraphs(intro)}${button(input.link, t("admin.email.ticketButton"))}` }),
  };
}

/** Tells the admins that a paid call's refund job gave up: the money waits for one of them in /admin/payments. */
export function refundFailedEmail(
  t: TFunction,
  lang: string,
  input: { to: string; requestId: number; paymentIntentId: string; amount: string; error: string; link: string },
): EmailMessage {
  const subject = t("admin.email.refundFailedSubject", { amount: input.amount });
  const intro = t("admin.email.refundFailedBody", { amount: input.amount, id: input.requestId, payment: input.paymentIntentId });
  const reason = t("admin.email.refundFailedReason", { error: input.error });
  return {
    to: input.to,
    subject,
    text: `${intro}\n\n${reason}\n\n${input.link}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${paragraphs(intro)}${paragraphs(reason)}${button(input.link, t("admin.email.refundFailedButton"))}`,
    }),
  };
}
