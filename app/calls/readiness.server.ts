import type { AppServices } from "~/platform/services.server";

/**
 * Why no phone call can be placed from this server, or null when one can: a call needs the
 * telephony provider (Twilio) and the voice model that speaks on it. Every form that asks for a
 * call reads this before the visitor types anything, and says it the same way (`CallsUnavailable`).
 */
export type CallsUnavailableReason = "telephony" | "voice";

export function callsUnavailable(services: Pick<AppServices, "telephony" | "voiceModel">): CallsUnavailableReason | null {
  if (!services.telephony.configured) return "telephony";
  if (!services.voiceModel.configured) return "voice";
  return null;
}
