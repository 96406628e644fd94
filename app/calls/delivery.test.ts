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
};

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
});
