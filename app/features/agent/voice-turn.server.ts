import type { WebCall } from "#models/web-calls";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";
import { AiError } from "~/providers/ai.server";
import { MAX_MESSAGE_LENGTH } from "./chat";
import { converseInWebCall } from "./conversation.server";

/** The longest recording one voice turn takes (at the spec's 128 kbit/s, about two minutes). */
export const MAX_RECORDING_BYTES = 2 * 1024 * 1024;

/** What a browser's MediaRecorder (or a script) may send; the speech model reads all of them. */
export const RECORDING_TYPES = ["audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/wav"] as const;

/** The spec's voice for the agent's spoken replies. */
export const REPLY_VOICE = { voice: "ash", speed: 1 } as const;

/** The recording held no words: the caller is asked to speak again, and nothing is kept. */
export class EmptyTranscriptError extends Error {}

/** The type without its parameters (`audio/webm;codecs=opus` → `audio/webm`), if it is one we take. */
export function recordingType(mimeType: string): (typeof RECORDING_TYPES)[number] | null {
  const type = mimeType.split(";")[0]!.trim().toLowerCase();
  return (RECORDING_TYPES as readonly string[]).includes(type) ? (type as (typeof RECORDING_TYPES)[number]) : null;
}

/**
 * The spec's voice turn: record → speech to text → reply → text to speech. The transcript is the
 * caller's message and goes through the same turn as a typed one (kept with the conversation,
 * crisis language answered with the safety text); the reply comes back spoken as MP3.
 *
 * Throws EmptyTranscriptError (its message in Arabic) when the recording held no words, and the
 * provider's AiError / AiNotConfiguredError. `audio` is null when only the speech failed: the
 * turn is already kept, so the caller reads the reply instead of sending it again.
 */
export async function voiceTurn(
  services: AppServices,
  call: WebCall,
  audio: Uint8Array,
  mimeType: string,
  options: { ip?: string | null } = {},
) {
  const heard = await services.speech.transcribe({ audio, mimeType, language: "ar" });
  // Silence comes back as "" or as stray punctuation ("…", "."): no letter or digit, nothing said.
  if (!/[\p{L}\p{N}]/u.test(heard)) {
    const t = await translatorFor("ar");
    throw new EmptyTranscriptError(t("agent.voiceEmpty"));
  }
  const transcript = heard.slice(0, MAX_MESSAGE_LENGTH);
  const turn = await converseInWebCall(services, call, transcript, options);
  let speech: { audio: Uint8Array; mimeType: string } | null = null;
  try {
    speech = await services.speech.synthesize({ text: turn.reply, ...REPLY_VOICE });
  } catch (error) {
    if (!(error instanceof AiError)) throw error;
  }
  return {
    transcript,
    reply: turn.reply,
    audio: speech ? Buffer.from(speech.audio).toString("base64") : null,
    mimeType: speech?.mimeType ?? null,
  };
}
