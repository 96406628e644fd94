import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { emailLayout, escapeHtml, paragraphs } from "./layout";

export interface ContactDetails {
  email: string;
  subject: string;
  message: string;
  urgency: "low" | "normal" | "high" | "urgent";
}

/** The message as the support team receives it; replying goes straight to the sender. */
export function contactReceivedEmail(t: TFunction, supportEmail: string, contact: ContactDetails): EmailMessage {
  const subject = t("email.contactReceivedSubject", {
    urgency: contact.urgency.toUpperCase(),
    subject: contact.subject,
    lng: "en",
  });
  const text = `From: ${contact.email}\nUrgency: ${contact.urgency}\nSubject: ${contact.subject}\n\n${contact.message}\n`;
  return {
    to: supportEmail,
    replyTo: contact.email,
    subject,
    text,
    html: emailLayout({
      lang: "en",
      title: subject,
      bodyHtml: `<p style="margin:0 0 8px"><strong>From:</strong> ${escapeHtml(contact.email)}<br><strong>Urgency:</strong> ${escapeHtml(contact.urgency)}<br><strong>Subject:</strong> ${escapeHtml(contact.subject)}</p><hr style="border:none;border-top:1px solid #e2e8f0;margin:16px 0">${paragraphs(contact.message)}`,
    }),
  };
}

/** The acknowledgement the sender receives, in the language they wrote in. */
export function contactAcknowledgementEmail(t: TFunction, lang: string, contact: ContactDetails): EmailMessage {
  const subject = t("email.contactAckSubject", { subject: contact.subject });
  const lines = [
    t("email.greeting"),
    t("email.contactAckBody"),
    t("email.contactAckCrisis"),
    `${t("email.contactAckCopy")}\n${contact.message}`,
    t("email.signature"),
  ];
  return {
    to: contact.email,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") }),
  };
}
