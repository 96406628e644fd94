/**
 * The voices the realtime model (gpt-realtime) accepts, from the Realtime API reference: the one
 * list every form that picks a voice offers and every save validates against. "fable", "onyx" and
 * "nova" are text-to-speech voices only; a realtime session refuses them.
 */
export const realtimeVoices = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"] as const;
export type RealtimeVoice = (typeof realtimeVoices)[number];

/** The realtime voice closest in character to a text-to-speech-only voice saved before. */
const replacements: Record<string, RealtimeVoice> = { fable: "ballad", onyx: "ash", nova: "coral" };

export function isRealtimeVoice(voice: string): voice is RealtimeVoice {
  return (realtimeVoices as readonly string[]).includes(voice);
}

export function supportedVoice(voice: string): RealtimeVoice {
  return isRealtimeVoice(voice) ? voice : (replacements[voice] ?? "shimmer");
}

/** A voice as every page writes it: "alloy" → "Alloy". */
export function voiceName(voice: string) {
  return voice.charAt(0).toUpperCase() + voice.slice(1);
}
