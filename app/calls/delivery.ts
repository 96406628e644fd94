import type { Call } from "#models/calls";

/**
 * When a call counts as delivered: the media stream connected, the model accepted the session,
 * the caller heard the agent (Twilio acknowledged a mark after agent audio), and either the caller
 * was heard and the call lasted `minSeconds`, or the caller only listened for twice that. A
 * machine, a call that never connected or ended at once is not delivered, and the reason says why.
 * Nor is a call on which the model failed or fell silent after it had spoken: the caller heard the
 * apology saying the call does not count. Nor, when our own side cut the stream (a bridge shutting
 * down, a process that died), a call that had not reached the delivered minimum of the agent's
 * voice before the cut, or whose caller was then not told why it ended: our failure is not the
 * caller's loss.
 */
export type UndeliveredReason =
  | "busy"
  | "no-answer"
  | "failed"
  | "canceled"
  | "telephony_unavailable"
  | "voicemail"
  | "stream_never_connected"
  | "model_unreachable"
  | "model_stopped"
  | "stream_cut"
  | "agent_not_heard"
  | "too_short";

export type Delivery = { delivered: true; reason: null } | { delivered: false; reason: UndeliveredReason };

type DeliveryFacts = Pick<
  Call,
  | "status"
  | "answeredBy"
  | "outcome"
  | "durationSeconds"
  | "streamConnectedAt"
  | "modelReadyAt"
  | "modelFailedAt"
  | "agentHeardAt"
  | "callerHeardAt"
  | "dialFailingSince"
  | "agentMinimumHeardAt"
  | "streamCutAt"
  | "farewellSaidAt"
>;

const no = (reason: UndeliveredReason): Delivery => ({ delivered: false, reason });

export function deliveryOf(call: DeliveryFacts, minSeconds: number): Delivery {
  if (call.answeredBy?.startsWith("machine") || call.answeredBy === "fax" || call.outcome === "voicemail") return no("voicemail");
  if (call.status === "failed" && call.dialFailingSince) return no("telephony_unavailable");
  if (call.status !== "completed")
    return no(call.status === "busy" || call.status === "no-answer" || call.status === "canceled" ? call.status : "failed");
  if (!call.streamConnectedAt) return no("stream_never_connected");
  // Never ready, or failed before the caller heard a word: the listener could not take the call.
  if (!call.modelReadyAt || (call.modelFailedAt && !call.agentHeardAt)) return no("model_unreachable");
  if (call.modelFailedAt) return no("model_stopped");
  if (call.streamCutAt && !(call.agentMinimumHeardAt && call.farewellSaidAt)) return no("stream_cut");
  if (!call.agentHeardAt) return no("agent_not_heard");
  const seconds = call.durationSeconds ?? 0;
  if (call.callerHeardAt ? seconds < minSeconds : seconds < 2 * minSeconds) return no("too_short");
  return { delivered: true, reason: null };
}
