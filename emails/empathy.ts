import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import type { HelpCountry } from "~/lib/help-lines";
import { helpLinesHtml, helpLinesText } from "./help-lines";
import { button, emailLayout, paragraphs } from "./layout";

/** The called number's country, when it has a row in the help-line table. */
type CallInput = { to: string; statusUrl: string; country: HelpCountry | null };

function message(t: TFunction, lang: string, input: CallInput, subject: string, body: string, action: string): EmailMessage {
  return {
    to: input.to,
    subject,
    text: `${body}\n\n${action}: ${input.statusUrl}\n\n${t("crisis.body")}\n${input.country ? `${helpLinesText(t, lang, input.country)}\n` : ""}\n${t("email.signature")}\n`,
    html: emailLayout({
      lang,
      title: subject,
      bodyHtml: `${paragraphs(body)}${button(input.statusUrl, action)}${paragraphs(t("crisis.body"))}${input.country ? helpLinesHtml(t, lang, input.country) : ""}${paragraphs(t("email.signature"))}`,
    }),
  };
}

/** After the first attempt that did not reach the caller: we try again, or they can ask now. */
export function empathyFailedEmail(t: TFunction, lang: string, input: CallInput & { minutes: number }): EmailMessage {
  return message(
    t,
    lang,
    input,
    t("empathyEmail.failedSubject"),
    t("empathyEmail.failedBody", { minutes: input.minutes }),
    t("empathyEmail.failedAction"),
  );
}

/** After the last attempt: the $5 is on its way back. */
/** `networkDown`: the phone network never took the call, rather than nobody answering. */
export function empathyRefundedEmail(t: TFunction, lang: string, input: CallInput & { networkDown?: boolean }): EmailMessage {
  const body = input.networkDown ? t("empathyEmail.refundedNetworkBody") : t("empathyEmail.refundedBody");
  return message(t, lang, input, t("empathyEmail.refundedSubject"), body, t("empathyEmail.refundedAction"));
}
