import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, escapeHtml, paragraphs } from "./layout";

/** The single-use link a new admin sets their password with. */
export function adminInviteEmail(t: TFunction, lang: string, input: { to: string; link: string; hours: number }): EmailMessage {
  const subject = t("admin.email.inviteSubject");
  const intro = t("admin.email.inviteBody", { hours: input.hours });
  const next = t("admin.email.inviteNext");
  return {
    to: input.to,
    subject,
    text: `${intro}\n\n${input.link}\n\n${next}\n\n${t("email.signature")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${paragraphs(intro)}${button(input.link, t("admin.email.inviteButton"))}<p style="font-size:14px;color:#475569;word-break:break-all">${escapeHtml(input.link)}</p>${paragraphs(next)}${paragraphs(t("email.signature"))}`,
    }),
  };
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
