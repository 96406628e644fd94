import { announceBusinessChange } from "#models/analytics";
import type { CallPurpose } from "~/platform/services.server";
import { findBusinessById } from "#models/businesses";
import { receptionistAgent } from "./agent.server";
import { voicemailTwiml } from "./inbound.server";

/**
 * A call someone made to the business's own number (ADR 0041). It is never dialled (no admit, no
 * voicemail of the engine's): the inbound webhook records it through the lines and the plan, and
 * the same bridge carries it to this agent; a stream that ends under the caller gives the voicemail. Its end, from the provider's status callback, tells the
 * owner's live pages.
 */
export const receptionistCallPurpose: CallPurpose = {
  agent: receptionistAgent,
  // The person on the line rang us: their number's country gives the help lines.
  crisis: { callerNumber: (call) => call.fromNumber },
  // The bridge ends the call at its limit (an inbound call has none at the provider); a minute before, the agent closes.
  cues: (call) => [
    {
      afterSeconds: call.timeLimitSeconds - 60,
      instructions: "The call has about one minute left. Finish briefly, tell the caller, and say goodbye politely.",
    },
  ],
  // The model failed, or our side cut the stream, under a caller who is still there: they may leave
  // a voicemail (the engine's apology promises a call back, which nobody would make).
  async afterStream(services, call) {
    const business = call.businessId ? await findBusinessById(services.db, call.businessId) : null;
    return business ? voicemailTwiml(services, business) : null;
  },
  async finished(services, call) {
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
};
