import { describe, expect, it } from "vitest";
import { isRealtimeVoice, realtimeVoices, supportedVoice } from "./voices";

describe("realtime voices", () => {
  it("offers no text-to-speech-only voice", () => {
    for (const voice of ["fable", "onyx", "nova"]) expect(isRealtimeVoice(voice)).toBe(false);
  });

  it("moves a voice the model refuses to the nearest one it accepts, and keeps the others", () => {
    expect(supportedVoice("fable")).toBe("ballad");
    expect(supportedVoice("onyx")).toBe("ash");
    expect(supportedVoice("nova")).toBe("coral");
    expect(supportedVoice("something-else")).toBe("shimmer");
    for (const voice of realtimeVoices) expect(supportedVoice(voice)).toBe(voice);
  });
});
