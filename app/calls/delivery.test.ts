import { describe, expect, it } from "vitest";
import { deliveryOf } from "./delivery";

const at = new Date("2026-11-26T10:00:00Z");
/** A completed call on which the listener and the caller spoke for a minute. */
const conversation = {
  status: "completed" as const,
  answeredBy: null,
  outcome: null,
  durationSeconds: 60,
  streamConnectedAt: at,
  modelReadyAt: at,
  modelFailedAt: null,
  agentHeardAt: at,
  callerHeardAt: at,
  dialFailingSince: null,
  agentMinimumHeardAt: at,
  streamCutAt: null,
  farewellSaidAt: null,
};
const later = new Date(at.getTime() + 60_000);

describe("deliveryOf", () => {
  it("counts a conversation that lasted long enough", () => {
    expect(deliveryOf(conversation, 30)).toEqual({ delivered: true, reason: null });
  });

  it("does not count a call whose listener never spoke: the model was silent from the start", () => {
    expect(deliveryOf({ ...conversation, agentHeardAt: null, modelFailedAt: at }, 30)).toEqual({
      delivered: false,
      reason: "model_unreachable",
    });
  });

  it("does not count a call whose listener stopped answering, however long it lasted: the caller heard that it does not count", () => {
    expect(deliveryOf({ ...conversation, modelFailedAt: at, durationSeconds: 300 }, 30)).toEqual({
      delivered: false,
      reason: "model_stopped",
    });
  });

  describe("a call whose stream our own side cut (a bridge shutting down, a process that died)", () => {
    const cut = { ...conversation, streamCutAt: later, durationSeconds: 300 };

    it("counts once the caller had heard the minimum of the listener and was told goodbye", () => {
      expect(deliveryOf({ ...cut, farewellSaidAt: later }, 30)).toEqual({ delivered: true, reason: null });
    });

    it("does not count before the minimum of the listener's voice, however long the call lasted", () => {
      expect(deliveryOf({ ...cut, agentMinimumHeardAt: null, farewellSaidAt: later }, 30)).toEqual({
        delivered: false,
        reason: "stream_cut",
      });
    });

    it("does not count when the caller was left without an apology or a goodbye", () => {
      expect(deliveryOf(cut, 30)).toEqual({ delivered: false, reason: "stream_cut" });
    });

    it("is still judged as any call after that: too short is too short", () => {
      expect(deliveryOf({ ...cut, farewellSaidAt: later, durationSeconds: 10 }, 30)).toEqual({
        delivered: false,
        reason: "too_short",
      });
    });
  });

  it("does not ask a call our side did not cut for the listener's minimum: the caller ended it", () => {
    expect(deliveryOf({ ...conversation, agentMinimumHeardAt: null }, 30)).toEqual({ delivered: true, reason: null });
  });
});
