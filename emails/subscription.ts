import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { button, emailLayout, paragraphs } from "./layout";

/** Every subscriber e-mail: a greeting, the body, one button, the crisis lines and the signature. */
function message(
  t: TFunction,
  lang: string,
  input: { to: string; name: string; url: string },
  subject: string,
  body: string,
  action: string,
): EmailMessage {
  const greeting = t("subscribe.email.greeting", { name: input.name });
  return {
    to: input.to,
    subject,
    text: `${greeting}\n\n${body}\n\n${action}: ${input.url}\n\n${t("crisis.body")}\n\n${t("email.signature")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${paragraphs(greeting)}${paragraphs(body)}${button(input.url, action)}${paragraphs(t("crisis.body"))}${paragraphs(t("email.signature"))}`,
    }),
  };
}

type Input = { to: string; name: string; url: string };

export const welcomeEmail = (t: TFunction, lang: string, input: Input & { trialEnds: string }) =>
  message(
    t,
    lang,
    input,
    t("subscribe.email.welcomeSubject"),
    t("subscribe.email.welcomeBody", { date: input.trialEnds }),
    t("subscribe.email.toDashboard"),
  );

export const trialEndingEmail = (t: TFunction, lang: string, input: Input & { trialEnds: string; price: string }) =>
  message(
    t,
    lang,
    input,
    t("subscribe.email.trialEndingSubject"),
    t("subscribe.email.trialEndingBody", { date: input.trialEnds, price: input.price }),
    t("subscribe.email.toDashboard"),
  );

export const receiptEmail = (t: TFunction, lang: string, input: Input & { amount: string }) =>
  message(
    t,
    lang,
    input,
    t("subscribe.email.receiptSubject"),
    t("subscribe.email.receiptBody", { amount: input.amount }),
    t("subscribe.email.viewReceipt"),
  );

export const paymentFailedEmail = (t: TFunction, lang: string, input: Input) =>
  message(t, lang, input, t("subscribe.email.failedSubject"), t("subscribe.email.failedBody"), t("subscribe.email.updateCard"));

export const cancelledEmail = (t: TFunction, lang: string, input: Input & { date: string }) =>
  message(
    t,
    lang,
    input,
    t("subscribe.email.cancelledSubject"),
    t("subscribe.email.cancelledBody", { date: input.date }),
    t("subscribe.email.toDashboard"),
  );

export const signInEmail = (t: TFunction, lang: string, input: Input) =>
  message(t, lang, input, t("subscribe.email.signInSubject"), t("subscribe.email.signInBody"), t("subscribe.email.signInAction"));

export const callReminderEmail = (t: TFunction, lang: string, input: Input & { when: string }) =>
  message(
    t,
    lang,
    input,
    t("subscribe.email.reminderSubject"),
    t("subscribe.email.reminderBody", { when: input.when }),
    t("subscribe.email.preferences"),
  );
