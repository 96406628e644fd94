import { describe, expect, it } from "vitest";
import { CallQuality } from "./call-quality";

/** A CallQuality on a clock the test moves. */
function clocked() {
  let now = 1_000_000;
  const quality = new CallQuality(() => now);
  return { quality, advance: (ms: number) => (now += ms), at: () => now };
}

describe("CallQuality", () => {
  it("measures the first words, each turn's wait and interruptions from the stream's start", () => {
    const { quality, advance } = clocked();
    expect(quality.agentAudio()).toBeNull(); // nothing before the stream starts
    quality.streamStarted();
    expect(quality.waitingForAudio).toBe(true);
    advance(600);
    expect(quality.agentAudio()).toEqual({ streamStartedAt: new Date(1_000_000), firstAudioAt: new Date(1_000_600) });
    expect(quality.waitingForAudio).toBe(false);
    expect(quality.agentAudio()).toBeNull();
    advance(400);
    quality.callerStarted(true); // over the greeting
    advance(1000);
    quality.callerStopped();
    advance(300);
    quality.agentAudio();
    quality.agentAudio(); // the same reply's later audio
    advance(2000);
    quality.callerStarted(false); // after the reply had played: no interruption
    quality.callerStopped();
    advance(100);
    quality.callerStarted(false); // spoke again before the answer: the turn is measured from its new end
    advance(500);
    quality.callerStopped();
    advance(250);
    quality.agentAudio();
    quality.ended("caller_hung_up");
    quality.ended("stream_lost"); // an echo of the first cause
    advance(50);
    const report = quality.report()!;
    expect(report).toEqual({
      streamStartedAt: new Date(1_000_000),
      firstAudioAt: new Date(1_000_600),
      turns: [
        { at: 2000, latencyMs: 300 },
        { at: 4900, latencyMs: 250 },
      ],
      interruptions: [1000],
      endedAt: new Date(1_005_200),
      endedBy: "caller_hung_up",
      toolRefusals: [],
    });
  });

  it("keeps a turn the agent never answered when the agent's side ended the call, and reports nothing for a stream that never started", () => {
    const { quality, advance } = clocked();
    expect(quality.report()).toBeNull();
    quality.streamStarted();
    advance(200);
    quality.callerStopped();
    advance(8000);
    quality.ended("dead_air");
    expect(quality.report()).toMatchObject({ firstAudioAt: null, turns: [{ at: 200, latencyMs: null }], endedBy: "dead_air" });
  });

  it("owes nothing to a caller who hangs up after their last words", () => {
    const { quality, advance } = clocked();
    quality.streamStarted();
    advance(500);
    quality.agentAudio();
    advance(3000);
    quality.callerStopped();
    advance(200);
    quality.ended("caller_hung_up");
    expect(quality.report()).toMatchObject({ turns: [], endedBy: "caller_hung_up" });
  });
});
