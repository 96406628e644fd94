import { describe, expect, it } from "vitest";
import { CallState } from "./call-state.server";

// The phone's audio: 8 bytes a millisecond, a mark every 250 ms (2000 bytes).
const frame = (bytes: number) => Buffer.alloc(bytes).toString("base64");

describe("CallState", () => {
  it("keeps the caller's early audio until the model is ready, then passes it through", () => {
    const state = new CallState(8, 2000);
    expect(state.callerAudio("a")).toBe(false);
    expect(state.callerAudio("b")).toBe(false);
    expect(state.modelReady()).toEqual(["a", "b"]);
    expect(state.callerAudio("c")).toBe(true);
    expect(state.endCall()).toBe(true);
    expect(state.endCall()).toBe(false);
    expect(state.callerAudio("d")).toBe(false);
  });

  it("marks the reply every 250 ms and at a new item, and cuts it at what the caller heard", () => {
    const state = new CallState(8, 2000);
    expect(state.replyAudio("item1", frame(1600))).toBeNull();
    expect(state.markDue()).toBeNull();
    expect(state.replyAudio("item1", frame(800))).toBeNull();
    expect(state.markDue()).toBe("m1");
    expect(state.replyAudio("item1", frame(400))).toBeNull();
    expect(state.replyAudio("item2", frame(400))).toBe("m2"); // item1's end
    expect(state.markHeard("m9")).toBe(false);
    expect(state.markHeard("m1")).toBe(true);
    // item2 still playing: it is cut at 0 ms (none of it heard).
    expect(state.playbackStopped()).toBe(0);
    expect(state.playbackStopped()).toBeNull();
    expect(state.marked()).toBeNull();
  });

  it("asks for one response at a time, and ends an agent's call once all is heard", () => {
    const state = new CallState(8, 2000);
    expect(state.responseRequested({})).toBe(true);
    const followUp = { instructions: "x" };
    expect(state.responseRequested(followUp)).toBe(false);
    expect(state.replyDone()).toBe(followUp);
    expect(state.responseRequested(followUp)).toBe(true);
    state.hangUpRequested();
    expect(state.finished).toBe(false);
    state.replyAudio("item1", frame(80));
    expect(state.replyDone()).toBeUndefined();
    expect(state.marked()).toBe("m1");
    expect(state.finished).toBe(false);
    state.markHeard("m1");
    expect(state.finished).toBe(true);
  });

  it("records each moment once, and lets the model fail once while the call is on", () => {
    const state = new CallState(8, 2000);
    expect(state.reached("streamConnectedAt")).toBe(true);
    expect(state.reached("streamConnectedAt")).toBe(false);
    expect(state.hasReached("streamConnectedAt")).toBe(true);
    expect(state.modelFailed()).toBe(true);
    expect(state.modelFailed()).toBe(false);
    const ended = new CallState(8, 2000);
    ended.endCall();
    expect(ended.modelFailed()).toBe(false);
  });

  it("hangs up once, and a model that drops while the provider hangs up is not a failure of the call", () => {
    const state = new CallState(8, 2000);
    expect(state.hangUpStarted()).toBe(true);
    expect(state.hangUpStarted()).toBe(false);
    expect(state.ending).toBe(true);
    expect(state.closed).toBe(false);
    expect(state.modelFailed()).toBe(false);
  });

  it("counts the agent's audio the caller heard, from the marks, across replies and cuts", () => {
    const state = new CallState(8, 2000);
    state.replyAudio("item1", frame(2000));
    const first = state.markDue()!;
    state.replyAudio("item1", frame(800));
    expect(state.agentHeardMs).toBe(0);
    state.markHeard(first);
    expect(state.agentHeardMs).toBe(250);
    // Barge-in: the unheard 100 ms are dropped, never counted.
    expect(state.playbackStopped()).toBe(250);
    state.replyAudio("item2", frame(400));
    state.markHeard(state.marked()!);
    expect(state.agentHeardMs).toBe(300);
  });
});
