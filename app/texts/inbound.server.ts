import { applyTextStatus, businessOfNumber, languageOfPhone, optInToTexts, optOutOfTexts } from "#models/texts";
import { escapeXml } from "~/calls/engine.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";

/**
 * Twilio's default keywords on a long code (its "opt-out keywords" support article): a message that
 * is exactly one of them, ignoring case and the spaces around it, opts out, back in, or asks for help.
 */
export const OPT_OUT_KEYWORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"];
export const OPT_IN_KEYWORDS = ["START", "YES", "UNSTOP"];
export const HELP_KEYWORDS = ["HELP", "INFO"];

export type Keyword = "opt_out" | "opt_in" | "help" | null;

export function keywordOf(body: string): Keyword {
  const word = body.trim().toUpperCase();
  if (OPT_OUT_KEYWORDS.includes(word)) return "opt_out";
  if (OPT_IN_KEYWORDS.includes(word)) return "opt_in";
  if (HELP_KEYWORDS.includes(word)) return "help";
  return null;
}

const twiml = (message?: string) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response>${message ? `<Message>${escapeXml(message)}</Message>` : ""}</Response>`;

/**
 * An incoming text (its signature checked by the route): STOP and its synonyms store an opt-out for
 * whoever owns the number it was sent to (a business's own number, else the platform's sender),
 * START and its synonyms remove it, HELP is answered. The answer is TwiML: empty for STOP and START
 * (Twilio answers those itself on a long code, and a reply to a STOP would not be delivered).
 */
export async function handleInboundText(services: AppServices, params: Record<string, string>) {
  const from = params.From ?? "";
  const to = params.To ?? "";
  const keyword = keywordOf(params.Body ?? "");
  if (!from || !keyword) return twiml();
  const owner = to && to !== services.messaging.platformSender ? await businessOfNumber(services.db, to) : null;
  const businessId = owner?.id ?? null;
  if (keyword === "opt_out") {
    await optOutOfTexts(services.db, businessId, from);
    return twiml();
  }
  if (keyword === "opt_in") {
    await optInToTexts(services.db, businessId, from);
    return twiml();
  }
  const t = await translatorFor((await languageOfPhone(services.db, from)) ?? "en");
  return twiml(t("texts.help", { name: owner?.name ?? "Sakina" }));
}

/** A message status callback (queued, sent, delivered, undelivered, failed) for the text `textId`. */
export async function handleTextStatus(services: AppServices, textId: number, params: Record<string, string>) {
  const sid = params.MessageSid ?? params.SmsSid ?? "";
  const status = params.MessageStatus ?? params.SmsStatus ?? "";
  const code = params.ErrorCode ? Number(params.ErrorCode) : null;
  if (!sid || !status) return null;
  return applyTextStatus(services.db, textId, sid, status, Number.isFinite(code) ? code : null);
}
