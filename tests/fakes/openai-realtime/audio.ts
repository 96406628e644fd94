// Audio: G.711 μ-law and A-law conversion, the test helpers that make caller audio and time a
// scripted utterance, the tone the model "speaks" in each format, and the RMS that server VAD uses.
import { CHUNK_MS } from "./constants";
import type { Obj } from "./types";

// ---------------------------------------------------------------------------------------------
// G.711 and audio helpers

/** 16-bit linear PCM sample to a G.711 μ-law byte. */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  s = Math.min(s, 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 μ-law byte to a 16-bit linear PCM sample (0xFF and 0x7F are 0). */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function linearToAlaw(sample: number): number {
  let pcm = Math.max(-32768, Math.min(32767, Math.round(sample))) >> 3;
  let mask = 0xd5;
  if (pcm < 0) {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const ends = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];
  const seg = ends.findIndex((end) => pcm <= end);
  if (seg < 0) return 0x7f ^ mask;
  const aval = (seg << 4) | ((seg < 2 ? pcm >> 1 : pcm >> seg) & 0x0f);
  return aval ^ mask;
}

function alawToLinear(byte: number): number {
  const a = byte ^ 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8;
  else {
    t += 0x108;
    if (seg > 1) t <<= seg - 1;
  }
  return a & 0x80 ? t : -t;
}

const MULAW_TABLE = Int16Array.from({ length: 256 }, (_, b) => mulawToLinear(b));
const ALAW_TABLE = Int16Array.from({ length: 256 }, (_, b) => alawToLinear(b));

/** Audio length of a scripted utterance: 60 ms per character, at least 400 ms, whole 20 ms chunks. */
export function audioMsForText(text: string): number {
  return Math.ceil(Math.max(400, 60 * text.length) / CHUNK_MS) * CHUNK_MS;
}

/** `ms` of μ-law silence (0xFF), whole 20 ms frames. */
export function mulawSilence(ms: number): Buffer {
  return Buffer.alloc(Math.ceil(ms / CHUNK_MS) * 160, 0xff);
}

/** `ms` of loud μ-law "speech" (a 300 Hz tone at about -10 dBFS), whole 20 ms frames. */
export function mulawSpeech(ms: number): Buffer {
  const out = Buffer.alloc(Math.ceil(ms / CHUNK_MS) * 160);
  for (let n = 0; n < out.length; n++) out[n] = linearToMulaw(10000 * Math.sin((2 * Math.PI * 300 * n) / 8000));
  return out;
}

export function bytesPerMs(format: Obj | undefined): number {
  return format?.type === "audio/pcm" ? 48 : 8;
}

const toneChunks = new Map<string, { bytes: number; base64: string }>();
/** 20 ms of a 400 Hz tone in a format (exactly 8 periods, so chunks join without clicks). */
export function toneChunk(formatType: string): { bytes: number; base64: string } {
  const cached = toneChunks.get(formatType);
  if (cached) return cached;
  const rate = formatType === "audio/pcm" ? 24000 : 8000;
  const samples = (rate * CHUNK_MS) / 1000;
  const buf = Buffer.alloc(formatType === "audio/pcm" ? samples * 2 : samples);
  for (let n = 0; n < samples; n++) {
    const s = Math.round(6000 * Math.sin((2 * Math.PI * 400 * n) / rate));
    if (formatType === "audio/pcm") buf.writeInt16LE(s, n * 2);
    else buf[n] = formatType === "audio/pcma" ? linearToAlaw(s) : linearToMulaw(s);
  }
  const chunk = { bytes: buf.length, base64: buf.toString("base64") };
  toneChunks.set(formatType, chunk);
  return chunk;
}

export function windowRms(window: Buffer, formatType: string): number {
  let sum = 0;
  let n = 0;
  if (formatType === "audio/pcm") {
    for (let i = 0; i + 1 < window.length; i += 2, n++) {
      const v = window.readInt16LE(i);
      sum += v * v;
    }
  } else {
    const table = formatType === "audio/pcma" ? ALAW_TABLE : MULAW_TABLE;
    for (const byte of window) {
      const v = table[byte]!;
      sum += v * v;
      n++;
    }
  }
  return n === 0 ? 0 : Math.sqrt(sum / n);
}
