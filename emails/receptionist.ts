import type { TFunction } from "i18next";
import type { EmailMessage } from "~/providers/email.server";
import { emailLayout, paragraphs } from "./layout";

export interface OwnerMessageDetails {
  kind: "message" | "voicemail";
  businessName: string;
  fromNumber: string | null;
  callerName: string | null;
  /** The message as taken down, or the voicemail's transcription; null when it could not be transcribed. */
  body: string | null;
  recordingSid: string | null;
  callsUrl: string;
}

/** The owner's e-mail for one message or voicemail the receptionist took (ADR 0041), in the business's language. */
export function ownerMessageEmail(t: TFunction, lang: string, to: string, message: OwnerMessageDetails): EmailMessage {
  const subject = t(message.kind === "voicemail" ? "receptionist.voicemailSubject" : "receptionist.messageSubject", {
    business: message.businessName,
  });
  const lines = [
    t("receptionist.emailIntro", { business: message.businessName }),
    [
      message.fromNumber ? t("receptionist.emailFrom", { from: message.fromNumber }) : "",
      message.callerName ? t("receptionist.emailName", { name: message.callerName }) : "",
    ]
      .filter(Boolean)
      .join("\n"),
    message.body
      ? `${t("receptionist.emailMessage")}\n${message.body}`
      : t("receptionist.emailNoTranscript", { sid: message.recordingSid ?? "" }),
    t("receptionist.emailLink", { link: message.callsUrl }),
  ].filter(Boolean);
  return {
    to,
    subject,
    text: `${lines.join("\n\n")}\n`,
    html: emailLayout({ lang, title: subject, bodyHtml: lines.map(paragraphs).join("") }),
  };
}
