import { createCallOnce, findKeyedCall, takeInboundLine, type Call, type InboundLimits, type NewCall } from "#models/calls";
import type { Booking } from "#models/bookings";
import { findBusinessById } from "#models/businesses";
import type { CallOrigin } from "#models/schema";
import { checkDialling, type RefusalReason } from "~/calls/dialling-policy.server";
import { placeCallJob, publicOrigin, TIME_LIMITS } from "~/calls/engine.server";
import type { Db } from "~/platform/db.server";
import { subjectKey } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import { TelephonyNotConfiguredError } from "~/providers/telephony.server";

export type { CallOrigin };

/**
 * The one way a call is made: every path that phones someone (booking confirmations and their
 * retries, reminders, demo, "call me now", the owner's test call, paid and subscriber calls)
 * asks `queueCall` with the origin of the request, or of the job, that caused it. Nothing else
 * inserts a call or queues its dialling job (tests/unit/call-gate.test.ts checks the sources).
 */

/** The origin of a request from `ip` (kept as its keyed hash, never the address). */
export function requestOrigin(
  services: AppServices,
  kind: CallOrigin["kind"],
  ip: string | null | undefined,
  session: string | null = null,
): CallOrigin {
  return { kind, address: ip ? subjectKey(services.signingSecret, ip) : null, session };
}

/** A public request from a visitor at `ip`: its calls count against the address's daily cap. */
export const visitorOrigin = (services: AppServices, ip: string | null | undefined, session: string | null = null) =>
  requestOrigin(services, "visitor", ip, session);

/** A job the app runs on its own, with no request behind it. */
export const scheduleOrigin = (session: string | null = null): CallOrigin => ({ kind: "schedule", address: null, session });

/** Calls and bookings from before origins were kept count nowhere, as they did then. */
const UNRECORDED: CallOrigin = { kind: "schedule", address: null, session: null };

/** Where a call counted: what its next attempt, or a booking made during it, inherits. */
export const originOfCall = (call: Pick<Call, "origin">): CallOrigin => call.origin ?? UNRECORDED;

/** Where a booking was made: its confirmation calls (after a move too) and reminders count there. */
export const originOfBooking = (booking: Pick<Booking, "origin">): CallOrigin => booking.origin ?? UNRECORDED;

export interface CallRequest {
  purpose: Call["purpose"];
  to: string;
  language: string;
  voice: string;
  /** Who caused the call; kept on it. */
  origin: CallOrigin;
  businessId?: number | null;
  bookingId?: number | null;
  /** A booking confirmation's round (see bookings.confirmationRound): with the booking and attempt, the call's key. */
  confirmationRound?: number | null;
  empathyRequestId?: number | null;
  supportCallId?: number | null;
  /** Attempt N of the same call (a confirmation or a paid call not reached): 1 by default. */
  attempt?: number;
  startAfter?: Date;
}

export type QueueResult =
  /** `created`: false when this attempt of a keyed call (booking round, paid request) was asked for already. */
  { ok: true; call: Call; created: boolean } | { ok: false; reason: RefusalReason };

/** The markets a path narrows the deployment's countries to. */
function pathCountries(services: AppServices, purpose: Call["purpose"]) {
  if (purpose === "demo") return services.env.DEMO_CALL_COUNTRIES;
  if (purpose === "empathy") return services.env.EMPATHY_CALL_COUNTRIES;
  return undefined;
}

/**
 * Records the call and queues its placement (the durable job does the dialling) in one
 * transaction: the caller's `tx` when it has one, so the call, its job and the caller's own
 * writes exist together or not at all; else one of its own, so a call row never stands without
 * the job that dials it (a crash between the two would leave it queued for nobody).
 *
 * A first attempt goes through the dialling policy here: the business's countries and opt-outs,
 * the path's markets, the number's daily cap as it will stand when the calls already waiting for
 * it are dialled (CALLS_PER_NUMBER_PER_DAY: a fourth call of the day is refused now, with its
 * reason, not accepted and dropped at dial time), and, for a visitor's origin, one call counted
 * against its address (CALLS_PER_IP_PER_DAY) however it came (the booking form, the agent's chat
 * or voice, a move on the manage page or by the owner, a reminder): refused, nothing is queued
 * and the reason comes back. A later attempt inherits its origin from the call before it and is
 * not counted again. Every attempt is checked once more when it is dialled (the engine counts
 * the number's cap then).
 */
export async function queueCall(services: AppServices, request: CallRequest, tx?: Db): Promise<QueueResult> {
  if (!services.telephony.configured) throw new TelephonyNotConfiguredError();
  if (!tx) return services.db.transaction((own) => queueCall(services, request, own));
  const row: NewCall = {
    purpose: request.purpose,
    toNumber: request.to,
    language: request.language,
    voice: request.voice,
    businessId: request.businessId ?? null,
    bookingId: request.bookingId ?? null,
    confirmationRound: request.confirmationRound ?? null,
    empathyRequestId: request.empathyRequestId ?? null,
    supportCallId: request.supportCallId ?? null,
    attempt: request.attempt ?? 1,
    timeLimitSeconds: TIME_LIMITS[request.purpose],
    origin: request.origin,
  };
  // Asked for already (a retried job): the same call, and its origin not counted twice.
  const existing = await findKeyedCall(tx, row);
  if (existing) return { ok: true, call: existing, created: false };
  if (row.attempt === 1) {
    const business = row.businessId ? await findBusinessById(tx, row.businessId) : null;
    const decision = await checkDialling(
      services,
      {
        path: request.purpose,
        number: request.to,
        business,
        origin: request.origin,
        foreseeNumberCap: true,
        countIp: request.origin.kind === "visitor",
        countries: pathCountries(services, request.purpose),
      },
      tx,
    );
    if (!decision.ok) return { ok: false, reason: decision.reason };
  }
  const call = await createCallOnce(tx, row);
  if (!call) {
    const raced = await findKeyedCall(tx, row);
    if (raced) return { ok: true, call: raced, created: false };
    throw new Error("A keyed call was neither inserted nor found.");
  }
  await services.jobs.enqueue(
    placeCallJob,
    { callId: call.id, origin: publicOrigin(services) },
    { tx, ...(request.startAfter ? { startAfter: request.startAfter } : {}) },
  );
  return { ok: true, call, created: true };
}

export interface InboundCallRequest {
  businessId: number;
  /** Twilio's CallSid of the ringing call. */
  providerCallId: string;
  /** The caller's number (From) and the business's (To), as the provider gave them. */
  from: string;
  to: string;
  language: string;
  voice: string;
  limits: InboundLimits;
  /** The purpose's admission (the plan, which counts the call), in the transaction that records it. */
  admit: (tx: Db, call: Call) => Promise<boolean>;
}

/**
 * The one way a call someone made to a business's own number is recorded (the receptionist, ADR
 * 0041): it is not dialled, so no dialling policy applies, but the lines do, under the same lock as
 * every dial (the deployment's MAX_CONCURRENT_CALLS, the business's inbound lines, the caller's
 * calls of the day), then the purpose's admission. Recorded live, with the caller's number as its
 * origin's address (keyed), so the bookings made on it count where the caller is.
 */
export async function recordInboundCall(services: AppServices, request: InboundCallRequest) {
  const now = new Date();
  return takeInboundLine(
    services.db,
    {
      purpose: "receptionist",
      status: "in-progress",
      providerCallId: request.providerCallId,
      businessId: request.businessId,
      fromNumber: request.from,
      toNumber: request.to,
      language: request.language,
      voice: request.voice,
      timeLimitSeconds: TIME_LIMITS.receptionist,
      origin: requestOrigin(services, "visitor", request.from, `inbound:${request.providerCallId}`),
      startedAt: now,
      answeredAt: now,
    },
    request.limits,
    request.admit,
  );
}
