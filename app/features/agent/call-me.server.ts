import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import { findCall, type Call } from "#models/calls";
import { refusalMessage, screenNumber } from "~/calls/dialling-policy.server";
import { placeCallJob } from "~/calls/engine.server";
import { queueCall, visitorOrigin } from "~/calls/gate.server";
import { capabilityToken, parseCapabilityToken } from "~/platform/security/capability.server";
import { servicesContext } from "~/platform/context";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import { callMeFailure, callMeNumber } from "./phone-rules";
import { recentAnswers } from "~/lib/sharing/per-key";

/** The Saudi-dialect agent's voice on the phone. */
export const AGENT_VOICE = "ash";

export type CallMeResult = { ok: true; callId: number; token: string; phone: string } | { ok: false; status: number; message: string };

/**
 * "Call me now": the agent phones the number typed, read by the spec's rules, through the one
 * dialling policy (allowed countries, no premium ranges, caps per number and per visitor) and the
 * same limits as the free demo call: a free call to any number invites toll fraud and harassment.
 */
export async function placeCallMe(context: Readonly<RouterContextProvider>, t: TFunction, input: string): Promise<CallMeResult> {
  const services = context.get(servicesContext);
  if (!services.telephony.configured) return { ok: false, status: 503, message: t("agent.notConfigured") };
  const e164 = callMeNumber(input.slice(0, 40));
  if (!e164) return { ok: false, status: 400, message: t("agent.phoneRequired") };
  const ip = clientIp(context);
  const origin = visitorOrigin(services, ip);
  const phone = await screenNumber(services, e164, { path: "customer_service", origin });
  if (!phone.ok) {
    const message = phone.reason === "invalid" ? t("agent.failure.invalid_number") : refusalMessage(t, phone.reason);
    return { ok: false, status: phone.reason === "ip_cap" ? 429 : 400, message };
  }
  const exceeded = await firstExceededRule(context, [
    { name: "call-me:ip", subject: ip, limit: 3, windowSeconds: 3600 },
    { name: "call-me:number", subject: phoneLimitSubject(phone.e164), limit: 3, windowSeconds: 86_400 },
  ]);
  if (exceeded) return { ok: false, status: 429, message: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }) };
  const queued = await queueCall(services, { purpose: "customer_service", to: phone.e164, language: "ar", voice: AGENT_VOICE, origin });
  if (!queued.ok) return { ok: false, status: queued.reason === "ip_cap" ? 429 : 400, message: refusalMessage(t, queued.reason) };
  services.jobs.wake(placeCallJob);
  return { ok: true, callId: queued.call.id, token: callMeToken(services, queued.call.id), phone: phone.e164 };
}

export const callMeToken = (services: AppServices, id: number) => capabilityToken(services, "call-me", id);

/** The call behind a status link, only if it is a call-me call. */
export async function callMeCall(services: AppServices, token: string | null) {
  const id = parseCapabilityToken(services, "call-me", token);
  const call = id === null ? null : await findCall(services.db, id);
  return call?.purpose === "customer_service" ? call : null;
}

export type CallMeState = { state: "calling" | "started"; phone: string } | { state: "failed"; phone: string; message: string };

/** Where a call-me call stands, in the screen's terms (calling → started, or failed with the reason). */
export function callMeState(t: TFunction, call: Call): CallMeState {
  const phone = call.toNumber ?? "";
  if (call.status === "in-progress" || (call.status === "completed" && call.answeredAt)) return { state: "started", phone };
  if (call.status === "busy" || call.status === "no-answer" || (call.status === "completed" && !call.answeredAt)) {
    return { state: "failed", phone, message: t("agent.failure.not_answered") };
  }
  if (call.status === "failed" || call.status === "canceled") {
    const failure = callMeFailure(call.lastError ?? "");
    return { state: "failed", phone, message: t(`agent.failure.${failure === "other" ? "unknown" : failure}`) };
  }
  return { state: "calling", phone };
}

/** The last answer of each telephony account (of each app's services) to whether it is a trial. */
const recentTrialAnswers = recentAnswers(60_000, async (telephony: AppServices["telephony"]) => {
  const result = await telephony.checkCredentials().catch(() => ({ ok: false, message: "", trial: false }));
  return Boolean(result.trial);
});
/** Whether the telephony account is a trial (it may only call verified numbers); checked at most once a minute. */
export async function telephonyIsTrial(services: AppServices) {
  return services.telephony.configured ? recentTrialAnswers(services.telephony) : false;
}
