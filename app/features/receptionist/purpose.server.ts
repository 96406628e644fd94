import { announceBusinessChange } from "#models/analytics";
import type { CallPurpose } from "~/platform/services.server";
import { receptionistAgent } from "./agent.server";

/**
 * A call someone made to the business's own number (ADR 0041). It is never dialled (no admit, no
 * voicemail of the engine's): the inbound webhook records it through the lines and the plan, and
 * the same bridge carries it to this agent. Its end, from the provider's status callback, tells the
 * owner's live pages.
 */
export const receptionistCallPurpose: CallPurpose = {
  agent: receptionistAgent,
  async finished(services, call) {
    if (call.businessId) await announceBusinessChange(services.db, call.businessId);
  },
};
