/**
 * Whether the caller is speaking, judged here from the energy of their own audio, so that a model
 * which stopped sending anything (not even that it heard them) can be told from a pause (ADR 0022).
 * Plain arithmetic on each frame, no I/O, no timers: the bridge keeps the clock.
 */

/** A frame is voiced above this RMS (16-bit scale, about -30 dBFS): a phone line's hiss and μ-law's idle bytes are far below. */
const VOICED_RMS = 1000;
/** Speech is this much voiced audio in one utterance: a click or a cough is not a turn the model owes an answer to. */
const MIN_SPEECH_MS = 200;
/** A quiet stretch this long ends the utterance (audio time); shorter ones are the gaps between syllables. */
const UTTERANCE_GAP_MS = 300;

/** G.711 μ-law byte to a 16-bit linear sample, squared: the sums of squares the RMS needs. */
const MULAW_SQUARES = Float64Array.from({ length: 256 }, (_, byte) => {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return magnitude * magnitude;
});

/** The caller's audio format, as the bridge's leg names it: μ-law at 8 kHz, or 16-bit PCM at 24 kHz. */
export interface CallerVoiceFormat {
  format: { type: "audio/pcmu" } | { type: "audio/pcm"; rate: number };
  bytesPerMs: number;
}

/** The RMS of one frame of audio, 16-bit scale. */
export function frameRms(frame: Buffer, format: CallerVoiceFormat["format"]) {
  let sum = 0;
  let samples = 0;
  if (format.type === "audio/pcm") {
    for (let i = 0; i + 1 < frame.length; i += 2, samples++) sum += frame.readInt16LE(i) ** 2;
  } else {
    for (const byte of frame) sum += MULAW_SQUARES[byte]!;
    samples = frame.length;
  }
  return samples === 0 ? 0 : Math.sqrt(sum / samples);
}

export class CallerVoice {
  private voicedMs = 0;
  private quietMs = 0;

  constructor(private readonly audio: CallerVoiceFormat) {}

  /** A frame of the caller's audio (base64, as the stream carries it): true if it is part of their speech. */
  heard(payload: string) {
    const frame = Buffer.from(payload, "base64");
    const ms = frame.length / this.audio.bytesPerMs;
    if (frameRms(frame, this.audio.format) < VOICED_RMS) {
      this.quietMs += ms;
      if (this.quietMs >= UTTERANCE_GAP_MS) this.voicedMs = 0;
      return false;
    }
    this.quietMs = 0;
    this.voicedMs += ms;
    return this.voicedMs >= MIN_SPEECH_MS;
  }
}
