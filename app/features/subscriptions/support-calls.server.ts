import type { Call } from "#models/calls";
import { createSupportCall, deleteSupportCall, lockSubscriber, setSupportCallStatus } from "#models/subscribers";
import type { RefusalReason } from "~/calls/dialling-policy.server";
import { placeCallJob } from "~/calls/engine.server";
import { queueCall, type CallOrigin } from "~/calls/gate.server";
import { callLanguages } from "~/lib/languages";
import type { AppServices, CallPurpose } from "~/platform/services.server";
import { subscriberAgent } from "./agent.server";
import { allowanceOf, type Allowance } from "./allowance.server";
import type { Urgency } from "./plans";

// A subscriber's support call: asked for on the dashboard or by the schedule, placed by the call engine.

export type SupportCallResult =
  | { ok: true; supportCallId: number }
  | { ok: false; reason: NonNullable<Allowance["reason"]> | "not_configured" }
  /** The dialling policy refused the subscriber's number (the deployment's countries changed since signup). */
  | { ok: false; reason: "refused"; refusal: RefusalReason };

/**
 * "Request support call": inside the allowance, one call at a time, queued through the call gate
 * with its origin (the subscriber's request, or their schedule) and placed by the call engine
 * (which puts the number through the dialling policy again when it dials).
 */
export async function requestSupportCall(
  services: AppServices,
  subscriberId: number,
  input: { feeling: string | null; urgency: Urgency; origin: CallOrigin; source?: "requested" | "scheduled"; scheduledFor?: Date },
): Promise<SupportCallResult> {
  if (!services.telephony.configured) return { ok: false, reason: "not_configured" };
  const result = await services.db.transaction(async (tx): Promise<SupportCallResult> => {
    const subscriber = await lockSubscriber(tx, subscriberId);
    if (!subscriber || !subscriber.periodStart) return { ok: false, reason: "incomplete" };
    const allowance = await allowanceOf(tx, subscriber);
    if (!allowance.canMakeCall) return { ok: false, reason: allowance.reason ?? "incomplete" };
    const support = await createSupportCall(tx, {
      subscriberId,
      feeling: input.feeling,
      urgency: input.urgency,
      source: input.source ?? "requested",
      periodStart: subscriber.periodStart,
      plan: allowance.plan ?? "trial",
      ...(input.scheduledFor ? { scheduledFor: input.scheduledFor } : {}),
    });
    if (!support) return { ok: false, reason: "pending" };
    const language = callLanguages.find((entry) => entry.code === subscriber.preferredLanguage) ?? callLanguages[0];
    const queued = await queueCall(
      services,
      {
        purpose: "support",
        to: subscriber.phone,
        language: language.code,
        voice: subscriber.voiceGender === "male" ? language.maleVoice : language.femaleVoice,
        supportCallId: support.id,
        origin: input.origin,
      },
      tx,
    );
    if (!queued.ok) {
      // Refused as it was asked for (the number's calls of the day are used up, the country is no
      // longer served): the subscriber is told why at once, and no request stands to be dropped
      // later. A scheduled call, with nobody there to be told, stays in the list as not delivered.
      if (support.source === "requested") await deleteSupportCall(tx, support.id);
      else await setSupportCallStatus(tx, support.id, "not_delivered", ["queued"]);
      return { ok: false, reason: "refused", refusal: queued.reason };
    }
    return { ok: true, supportCallId: support.id };
  });
  if (result.ok) services.jobs.wake(placeCallJob);
  return result;
}

/**
 * A subscriber's call: the listener who writes a summary for them; the call counts against the
 * allowance only when delivered.
 */
export const supportCallPurpose: CallPurpose = {
  agent: async (services, call) => subscriberAgent(services, call),
  crisis: { callerNumber: (call) => call.toNumber },
  async placed(services, call) {
    if (call.supportCallId) await setSupportCallStatus(services.db, call.supportCallId, "calling", ["queued"]);
  },
  async finished(services, call: Call) {
    if (!call.supportCallId) return;
    await setSupportCallStatus(services.db, call.supportCallId, call.delivered ? "completed" : "not_delivered", ["queued", "calling"]);
  },
};
