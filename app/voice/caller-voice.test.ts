import { describe, expect, it } from "vitest";
import { mulawSilence, mulawSpeech } from "../../tests/fakes/openai-realtime/audio";
import { CallerVoice } from "./caller-voice";
import { PHONE_AUDIO, BROWSER_AUDIO } from "./model-session.server";

/** 20 ms frames of μ-law audio, base64, as Twilio's stream carries them. */
const frames = (audio: Buffer) =>
  Array.from({ length: audio.length / 160 }, (_, i) => audio.subarray(i * 160, (i + 1) * 160).toString("base64"));
const heardOf = (voice: CallerVoice, audio: Buffer) => frames(audio).map((frame) => voice.heard(frame));

describe("CallerVoice", () => {
  it("hears speech once 200 ms of it came, and not the line's silence", () => {
    const voice = new CallerVoice(PHONE_AUDIO);
    expect(heardOf(voice, mulawSilence(1000)).some(Boolean)).toBe(false);
    const heard = heardOf(voice, mulawSpeech(400));
    expect(heard.indexOf(true)).toBe(9);
    expect(heard.slice(9).every(Boolean)).toBe(true);
  });

  it("does not take a click or a cough for a turn, and forgets it after a pause", () => {
    const voice = new CallerVoice(PHONE_AUDIO);
    expect(heardOf(voice, mulawSpeech(100)).some(Boolean)).toBe(false);
    heardOf(voice, mulawSilence(400));
    expect(heardOf(voice, mulawSpeech(100)).some(Boolean)).toBe(false);
  });

  it("keeps one utterance across the short gaps between syllables", () => {
    const voice = new CallerVoice(PHONE_AUDIO);
    heardOf(voice, mulawSpeech(120));
    heardOf(voice, mulawSilence(200));
    expect(heardOf(voice, mulawSpeech(100)).at(-1)).toBe(true);
  });

  it("reads a browser's 16-bit PCM at 24 kHz", () => {
    const voice = new CallerVoice(BROWSER_AUDIO);
    const frame = Buffer.alloc(960);
    expect(voice.heard(frame.toString("base64"))).toBe(false);
    for (let n = 0; n < 480; n++) frame.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 300 * n) / 24000)), n * 2);
    const heard = Array.from({ length: 10 }, () => voice.heard(frame.toString("base64")));
    expect(heard.indexOf(true)).toBe(9);
  });
});
