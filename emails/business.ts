import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, escapeHtml, linkEmail, paragraphs } from "./layout";

export function verificationEmail(
  t: TFunction,
  lang: string,
  input: { to: string; ownerName: string; businessName: string; link: string },
): EmailMessage {
  return linkEmail(t, lang, {
    to: input.to,
    subject: t("email.verifySubject", { business: input.businessName }),
    intro: t("email.verifyBody", { name: input.ownerName, business: input.businessName }),
    link: input.link,
    buttonLabel: t("email.verifyButton"),
    after: t("email.verifyExpiry"),
  });
}

/**
 * Someone registered again with the address of a business that is verified but not yet paid: the
 * owner, and only the owner, gets the way back to the payment step (the link gives the browser
 * that opens it the registration).
 */
export function continueRegistrationEmail(
  t: TFunction,
  lang: string,
  input: { to: string; ownerName: string; businessName: string; link: string },
): EmailMessage {
  return linkEmail(t, lang, {
    to: input.to,
    subject: t("email.continueSubject", { business: input.businessName }),
    intro: t("email.continueBody", { name: input.ownerName, business: input.businessName }),
    link: input.link,
    buttonLabel: t("email.continueButton"),
    after: t("email.continueExpiry"),
  });
}

export function credentialsEmail(
  t: TFunction,
  lang: string,
  input: { to: string; ownerName: string; businessName: string; temporaryPassword: string; loginUrl: string; bookingUrl: string },
): EmailMessage {
  const subject = t("email.credentialsSubject", { business: input.businessName });
  const intro = t("email.credentialsBody", { name: input.ownerName, business: input.businessName });
  const details = [
    `${t("email.credentialsLogin")}: ${input.to}`,
    `${t("email.credentialsPassword")}: ${input.temporaryPassword}`,
    `${t("email.credentialsBooking")}: ${input.bookingUrl}`,
  ];
  const notice = t("email.credentialsNotice");
  return {
    to: input.to,
    subject,
    text: `${intro}\n\n${details.join("\n")}\n\n${notice}\n\n${input.loginUrl}\n\n${t("email.signature")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${paragraphs(intro)}<table role="presentation" style="border-collapse:collapse;margin:16px 0">${details
        .map((line) => {
          const [label, ...rest] = line.split(": ");
          return `<tr><td style="padding:4px 12px 4px 0;color:#475569">${escapeHtml(label ?? "")}</td><td style="padding:4px 0;font-family:ui-monospace,Menlo,monospace">${escapeHtml(rest.join(": "))}</td></tr>`;
        })
        .join("")}</table>${paragraphs(notice)}${button(input.loginUrl, t("email.credentialsButton"))}${paragraphs(t("email.signature"))}`,
    }),
  };
}

export function passwordResetEmail(t: TFunction, lang: string, input: { to: string; link: string }): EmailMessage {
  return linkEmail(t, lang, {
    to: input.to,
    subject: t("email.resetSubject"),
    intro: t("email.resetBody"),
    link: input.link,
    buttonLabel: t("email.resetButton"),
    after: t("email.resetIgnore"),
  });
}
