import { randomBytes } from "node:crypto";
import {
  advanceCallStatus,
  claimCallForDialing,
  countLiveCalls,
  createCallOnce,
  failCall,
  findCall,
  isOptedOut,
  markCallPlaced,
  releaseDialClaim,
  setCallOutcome,
  setStreamToken,
  type Call,
  type CallStatus,
} from "#models/calls";
import { findBooking, setBookingCallState, setBookingStatus } from "#models/bookings";
import { findBusinessById } from "#models/businesses";
import { utcToZoned, zonedTimeToUtc } from "~/lib/slots";
import { recordFunnelEvent } from "#models/empathy";
import { reportCallUsageJob } from "./business-onboarding.server";
import { empathyCallFinished } from "./empathy.server";
import type { JobDefinition } from "./jobs.server";
import { TelephonyError, TelephonyNotConfiguredError } from "./providers/telephony.server";
import type { Db } from "./db.server";
import type { AppServices } from "./services.server";

export const TIME_LIMITS: Record<Call["purpose"], number> = {
  empathy: 600,
  booking_confirmation: 300,
  demo: 180,
  customer_service: 600,
  test: 180,
};

/** Booking confirmation calls ring only between 08:00 and 21:00 where the customer is. */
export const CALL_HOURS = { start: 8 * 60, end: 21 * 60 };
export const CONFIRMATION_ATTEMPTS = 3;

export class CapacityError extends Error {}

export interface CallRequest {
  purpose: Call["purpose"];
  to: string;
  language: string;
  voice: string;
  businessId?: number | null;
  bookingId?: number | null;
  attempt?: number;
  /** Public origin for the provider's callbacks when APP_URL is not set. */
  origin: string;
  startAfter?: Date;
}

/** Records the call and queues its placement; the durable job does the dialling. */
export async function requestCall(services: AppServices, request: CallRequest) {
  // Without an empathy request there is no (request, attempt) pair to collide with.
  return (await queueCall(services, request))!;
}

/**
 * The same, optionally inside a transaction `tx` (the call and its job exist together, or neither
 * does), and for attempt N of a paid empathy request: null when that attempt already exists.
 */
export async function queueCall(services: AppServices, request: CallRequest & { empathyRequestId?: number }, tx?: Db) {
  if (!services.telephony.configured) throw new TelephonyNotConfiguredError();
  const call = await createCallOnce(tx ?? services.db, {
    purpose: request.purpose,
    toNumber: request.to,
    language: request.language,
    voice: request.voice,
    businessId: request.businessId ?? null,
    bookingId: request.bookingId ?? null,
    empathyRequestId: request.empathyRequestId ?? null,
    attempt: request.attempt ?? 1,
    timeLimitSeconds: TIME_LIMITS[request.purpose],
  });
  if (call) {
    await services.jobs.enqueue(placeCallJob, { callId: call.id, origin: request.origin }, {
      ...(tx ? { tx } : {}),
      ...(request.startAfter ? { startAfter: request.startAfter } : {}),
    });
  }
  return call;
}

export function publicOrigin(services: AppServices, fallback: string) {
  return services.env.APP_URL?.replace(/\/$/, "") ?? fallback;
}

/** The next moment inside calling hours in `timeZone`, or null when `now` already is. */
export function nextCallingTime(now: number, timeZone: string): Date | null {
  const local = utcToZoned(now, timeZone);
  if (local.minuteOfDay >= CALL_HOURS.start && local.minuteOfDay < CALL_HOURS.end) return null;
  const date = local.minuteOfDay < CALL_HOURS.start ? local.date : nextDate(local.date);
  return new Date(zonedTimeToUtc(date, CALL_HOURS.start, timeZone));
}

function nextDate(date: string) {
  const d = new Date(`${date}T12:00:00Z`);
  d.setUTCDate(d.getUTCDate() + 1);
  return d.toISOString().slice(0, 10);
}

/**
 * Dials a queued call. Over the concurrency cap the job is retried later (queued, not dropped);
 * a transient provider error is retried with backoff; a permanent one fails the call and tells
 * whoever asked for it.
 */
export const placeCallJob: JobDefinition<{ callId: number; origin: string }> = {
  name: "call-place",
  retryLimit: 12,
  retryDelaySeconds: 5,
  async handle({ callId, origin }, services) {
    const call = await findCall(services.db, callId);
    if (!call || call.status !== "queued" || !call.toNumber) return;
    if (call.purpose === "booking_confirmation" && call.businessId) {
      const business = await findBusinessById(services.db, call.businessId);
      if (business && (await isOptedOut(services.db, business.id, call.toNumber))) {
        await failCall(services.db, call.id, "The customer asked not to be called again.");
        if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "opted_out");
        return;
      }
      const later = business ? nextCallingTime(Date.now(), business.timeZone) : null;
      if (later) {
        await services.jobs.enqueue(placeCallJob, { callId, origin }, { startAfter: later });
        if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "scheduled");
        return;
      }
    }
    if ((await countLiveCalls(services.db)) >= services.env.MAX_CONCURRENT_CALLS) {
      throw new CapacityError("All lines are busy; the call waits for a free one.");
    }
    if (!(await claimCallForDialing(services.db, call.id))) return;
    const base = publicOrigin(services, origin);
    try {
      const placed = await services.telephony.placeCall({
        to: call.toNumber,
        voiceUrl: `${base}/twilio/voice/${call.id}`,
        statusCallbackUrl: `${base}/webhooks/twilio/status/${call.id}`,
        timeLimitSeconds: call.timeLimitSeconds,
        detectMachine: call.purpose === "booking_confirmation",
      });
      await markCallPlaced(services.db, call.id, { providerCallId: placed.providerCallId, fromNumber: placed.from });
      if (call.bookingId) await setBookingCallState(services.db, call.bookingId, "calling");
      if (call.purpose === "booking_confirmation" && call.businessId) {
        await services.jobs.enqueue(reportCallUsageJob, { callId: call.id, businessId: call.businessId });
      }
      if (call.empathyRequestId) await recordFunnelEvent(services.db, "call_initiated", call.empathyRequestId, call.language);
    } catch (error) {
      if (error instanceof TelephonyError && !error.transient) {
        await failCall(services.db, call.id, `${error.code ?? ""} ${error.message}`.trim());
        await onCallFinished(services, (await findCall(services.db, call.id))!, origin);
        return;
      }
      await releaseDialClaim(services.db, call.id);
      throw error;
    }
  },
};

const TWILIO_STATUSES: Record<string, CallStatus> = {
  queued: "initiated",
  initiated: "initiated",
  ringing: "ringing",
  "in-progress": "in-progress",
  answered: "in-progress",
  completed: "completed",
  busy: "busy",
  "no-answer": "no-answer",
  failed: "failed",
  canceled: "canceled",
};

/** A signed status callback: moves the call forward (never back) and reports the end. */
export async function applyStatusCallback(services: AppServices, callId: number, params: Record<string, string>, origin: string) {
  const status = TWILIO_STATUSES[params.CallStatus ?? ""];
  if (!status) return null;
  const duration = Number(params.CallDuration ?? params.Duration);
  const updated = await advanceCallStatus(services.db, callId, status, {
    ...(Number.isFinite(duration) && duration >= 0 ? { durationSeconds: duration } : {}),
    ...(params.AnsweredBy ? { answeredBy: params.AnsweredBy } : {}),
  });
  if (updated && ["completed", "busy", "no-answer", "failed", "canceled"].includes(updated.status)) {
    await onCallFinished(services, updated, origin);
  }
  return updated;
}

/** Tells whatever asked for the call how it ended. */
async function onCallFinished(services: AppServices, call: Call, origin: string) {
  if (call.empathyRequestId) return empathyCallFinished(services, call, origin);
  if (call.purpose !== "booking_confirmation" || !call.bookingId) return;
  const booking = await findBooking(services.db, call.bookingId);
  if (!booking || booking.status !== "pending") return;
  // A human answered (or the agent recorded an answer): done. A machine or no answer: try again.
  const machine = call.answeredBy?.startsWith("machine") || call.outcome === "voicemail";
  if (call.status === "completed" && !machine) {
    await setBookingCallState(services.db, booking.id, call.outcome ? `done:${call.outcome}` : "answered");
    return;
  }
  if (call.attempt < CONFIRMATION_ATTEMPTS && call.toNumber) {
    await requestCall(services, {
      purpose: "booking_confirmation",
      to: call.toNumber,
      language: call.language,
      voice: call.voice,
      businessId: call.businessId,
      bookingId: call.bookingId,
      attempt: call.attempt + 1,
      origin,
      startAfter: new Date(Date.now() + 30 * 60_000),
    });
    await setBookingCallState(services.db, booking.id, `retry_${call.attempt + 1}`);
    return;
  }
  await setBookingStatus(services.db, booking.id, "unreachable", "unreachable");
  await setBookingCallState(services.db, booking.id, "unreachable");
}

export function escapeXml(value: string) {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/**
 * The call's instructions: connect its audio to this server's media stream with a fresh
 * single-use token, or, when a machine answered a confirmation call, leave a short voicemail.
 */
export async function voiceTwiml(services: AppServices, call: Call, params: Record<string, string>, origin: string, voicemail: (call: Call) => Promise<{ text: string; language: string }>) {
  if (call.purpose === "booking_confirmation" && params.AnsweredBy?.startsWith("machine")) {
    const message = await voicemail(call);
    await setCallOutcome(services.db, call.id, "voicemail");
    return `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="${escapeXml(message.language)}">${escapeXml(message.text)}</Say><Hangup/></Response>`;
  }
  const token = randomBytes(24).toString("base64url");
  await setStreamToken(services.db, call.id, token);
  const base = publicOrigin(services, origin).replace(/^http/, "ws");
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${escapeXml(`${base}/media-stream/${call.id}`)}"><Parameter name="token" value="${escapeXml(token)}"/></Stream></Connect></Response>`;
}
