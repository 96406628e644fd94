import { announceBusinessChange } from "#models/analytics";
import { admitPlanCall, type Business } from "#models/businesses";
import { findCallByProviderId, setCallOutcome, TERMINAL_STATUSES, type Call } from "#models/calls";
import type { Db } from "#models/db";
import { recordCallRefusal } from "#models/call-refusals";
import { numberHash } from "~/calls/dialling-policy.server";
import { applyStatusCallback, escapeXml, voiceTwiml } from "~/calls/engine.server";
import { recordInboundCall } from "~/calls/gate.server";
import { PLAN_REASON_PREFIX, periodStartOf, planDecision, reportCallUsageJob } from "~/features/business/index.server";
import { translatorFor } from "~/platform/i18n.server";
import { log } from "~/platform/observability/log.server";
import type { AppServices } from "~/platform/services.server";
import { bridgeReachable } from "~/voice/bridge-leases.server";
import { callTexts } from "~/voice/call-texts.server";
import { recordVoicemail, voicemailTranscribed } from "./messages.server";
import { businessForCalledNumber, isOpenAt } from "./numbers.server";

/**
 * The inbound voice webhooks of a business's own number (ADR 0041), each signed by Twilio (the
 * route checks it): the call itself, its status callbacks, the voicemail's recording and
 * transcription, and the end of a transfer.
 */

const XML = `<?xml version="1.0" encoding="UTF-8"?>`;
const HANG_UP = `${XML}<Response><Hangup/></Response>`;
const CALL_SID = /^CA[0-9a-f]{32}$/i;
const RECORDING_SID = /^RE[0-9a-f]{32}$/i;

/** The maximum of a transcribed <Record>: Twilio transcribes recordings of up to two minutes. */
export const VOICEMAIL_SECONDS = 120;

export const inboundPath = (step?: "status" | "voicemail" | "transcription" | "dialled") =>
  `/webhooks/twilio/voice/inbound${step ? `/${step}` : ""}`;

async function fixedWords(business: Business) {
  const t = await translatorFor(business.defaultLanguage);
  return { t, say: callTexts(business.defaultLanguage).say };
}

const sayXml = (say: { language: string; voice: string }, text: string) =>
  `<Say language="${escapeXml(say.language)}" voice="${escapeXml(say.voice)}">${escapeXml(text)}</Say>`;

/** A short polite message in the business's language, then the end of the call. */
async function closedTwiml(business: Business) {
  const { t, say } = await fixedWords(business);
  return `${XML}<Response>${sayXml(say, t("receptionist.closed", { business: business.name }))}<Hangup/></Response>`;
}

/** Nobody can take the call (a limit, no bridge, no model, the owner did not answer): a short message and a transcribed voicemail. */
export async function voicemailTwiml(services: AppServices, business: Business) {
  const { t, say } = await fixedWords(business);
  const base = services.publicOrigin();
  const record = `<Record action="${escapeXml(base + inboundPath("voicemail"))}" method="POST" maxLength="${VOICEMAIL_SECONDS}" timeout="5" playBeep="true" transcribe="true" transcribeCallback="${escapeXml(base + inboundPath("transcription"))}"/>`;
  return `${XML}<Response>${sayXml(say, t("receptionist.busy", { business: business.name }))}${record}${sayXml(say, t("receptionist.thanks"))}<Hangup/></Response>`;
}

/**
 * The plan's word on an inbound call, in the transaction that records it: counted like every call
 * of the business (the starter's 20, the monthly plan's 100 and then $1 each, ADR 0012), or
 * refused, and the caller is offered the voicemail.
 */
async function admitInbound(services: AppServices, tx: Db, call: Call, refused: (reason: string) => void) {
  const decision = await admitPlanCall(
    tx,
    { businessId: call.businessId!, callId: call.id, bookingId: null },
    async (current, usedSince) => {
      const start = periodStartOf(current);
      return planDecision(current, start ? await usedSince(start) : 0, new Date());
    },
  );
  if (!decision.ok) {
    refused(decision.reason);
    return false;
  }
  await services.jobs.enqueue(reportCallUsageJob, { callId: call.id, businessId: call.businessId! }, { tx });
  return true;
}

/**
 * POST /webhooks/twilio/voice/inbound: someone rings a business's number. The number called picks
 * the business; a number nobody connected is hung up on; the receptionist off (or on only outside
 * opening hours, and open now) gives a short message; a limit reached (every line, the business's
 * lines, the caller's calls of the day, the plan) gives the voicemail; otherwise the call is
 * recorded and connected to the bridge with a single-use stream token, as outbound calls are.
 */
export async function answerInboundCall(services: AppServices, params: Record<string, string>) {
  const sid = params.CallSid ?? "";
  const from = params.From ?? "";
  const to = params.To ?? params.Called ?? "";
  if (!CALL_SID.test(sid)) return HANG_UP;
  const found = await businessForCalledNumber(services.db, to);
  if (!found) return HANG_UP;
  const { number, business } = found;
  const known = await findCallByProviderId(services.db, sid);
  if (known && TERMINAL_STATUSES.includes(known.status)) return HANG_UP;
  if (business.status !== "active" || number.receptionistMode === "off") return closedTwiml(business);
  if (number.receptionistMode === "outside_hours" && (await isOpenAt(services.db, business))) return closedTwiml(business);
  if (!services.voiceModel.configured || !(await bridgeReachable(services.db))) return voicemailTwiml(services, business);
  let planRefusal: string | null = null;
  const taken = await recordInboundCall(services, {
    businessId: business.id,
    providerCallId: sid,
    from,
    to,
    language: business.defaultLanguage,
    voice: business.confirmationVoice,
    limits: {
      lines: services.env.MAX_CONCURRENT_CALLS,
      businessLines: number.maxConcurrentCalls,
      callerPerDay: number.maxCallsPerCallerPerDay,
    },
    admit: (tx, call) => admitInbound(services, tx, call, (reason) => (planRefusal = reason)),
  });
  // The plan kept the call from the receptionist: the owner's plan page lists it with the others.
  if (!taken.ok && taken.reason === "plan" && planRefusal && planRefusal !== "paused" && planRefusal !== "no_business") {
    await recordCallRefusal(services.db, {
      path: "receptionist",
      reason: `${PLAN_REASON_PREFIX}${planRefusal}`,
      numberHash: from ? numberHash(services, from) : null,
      businessId: business.id,
    });
  }
  if (!taken.ok) {
    log.info(
      { businessId: business.id, reason: taken.reason },
      `inbound call to business ${business.id} not taken (${taken.reason}): voicemail`,
    );
    return voicemailTwiml(services, business);
  }
  if (!taken.again) await announceBusinessChange(services.db, business.id);
  return voiceTwiml(services, taken.call, params);
}

/** POST …/inbound/status: the number's status callbacks; the provider's end and duration are the call's. */
export async function inboundStatus(services: AppServices, params: Record<string, string>, origin: string) {
  const call = params.CallSid ? await findCallByProviderId(services.db, params.CallSid) : null;
  if (!call || call.direction !== "inbound") return;
  await applyStatusCallback(services, call.id, params, origin);
}

/** POST …/inbound/voicemail: the <Record> ended; the voicemail is kept (its text follows), and the caller thanked. */
export async function voicemailRecorded(services: AppServices, params: Record<string, string>) {
  const found = await businessForCalledNumber(services.db, params.To ?? params.Called ?? "");
  if (!found) return HANG_UP;
  const { t, say } = await fixedWords(found.business);
  if (CALL_SID.test(params.CallSid ?? "") && RECORDING_SID.test(params.RecordingSid ?? "")) {
    await recordVoicemail(services, {
      business: found.business,
      fromNumber: params.From || null,
      providerCallId: params.CallSid!,
      recordingSid: params.RecordingSid!,
    });
    await markVoicemail(services, params.CallSid!);
  }
  return `${XML}<Response>${sayXml(say, t("receptionist.thanks"))}<Hangup/></Response>`;
}

/** POST …/inbound/transcription: the voicemail's text (or its failure); the owner is e-mailed once. */
export async function voicemailTranscription(services: AppServices, params: Record<string, string>) {
  const found = await businessForCalledNumber(services.db, params.To ?? params.Called ?? "");
  if (!found || !CALL_SID.test(params.CallSid ?? "") || !RECORDING_SID.test(params.RecordingSid ?? "")) return;
  await voicemailTranscribed(services, {
    business: found.business,
    fromNumber: params.From || null,
    providerCallId: params.CallSid!,
    recordingSid: params.RecordingSid!,
    text: params.TranscriptionStatus === "completed" ? (params.TranscriptionText ?? null) : null,
  });
}

/** POST …/inbound/dialled: the transfer's <Dial> ended. Not answered there: the voicemail. */
export async function transferEnded(services: AppServices, params: Record<string, string>) {
  if (params.DialCallStatus === "completed") return HANG_UP;
  const found = await businessForCalledNumber(services.db, params.To ?? params.Called ?? "");
  if (!found) return HANG_UP;
  return voicemailTwiml(services, found.business);
}

async function markVoicemail(services: AppServices, sid: string) {
  const call = await findCallByProviderId(services.db, sid);
  if (call) await setCallOutcome(services.db, call.id, "voicemail");
}
