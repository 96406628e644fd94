import { randomBytes } from "node:crypto";
import {
  advanceCallStatus,
  callsToWake,
  claimNumberCount,
  DIAL_LEASE_SECONDS,
  callsToReconcile,
  takeLine,
  failCall,
  findCall,
  heldProviderCallIds,
  keepWaiting,
  anyCallWaiting,
  markCallPlaced,
  releaseDialClaim,
  setCallOutcome,
  setStreamToken,
  newStreamToken,
  markCallMoment,
  queuedCallIds,
  recordDialFailure,
  setCallDelivery,
  type Call,
  type CallStatus,
} from "#models/calls";
import { checkDialling } from "~/calls/dialling-policy.server";
import { findBusinessById, pausedConfirmationCalls, releasePlanCall } from "#models/businesses";
import { recordAnswer } from "#models/call-quality";
import type { AppJob } from "~/platform/services.server";
import { deliveryOf } from "~/calls/delivery";
import { callTexts } from "~/voice/call-texts.server";
import { mediaStreamUrl, streamLimits } from "~/voice/bridge.server";
import { prepareVoiceSession } from "~/voice/model-session.server";
import { bridgeReachable } from "~/voice/bridge-leases.server";
import { TelephonyError, type ProviderCallRecord } from "~/providers/telephony.server";
import type { AppServices } from "~/platform/services.server";
import { callsFinished, callsPlaced, dialFailures, paymentToDial } from "~/platform/observability/metrics.server";
import { log } from "~/platform/observability/log.server";

export const TIME_LIMITS: Record<Call["purpose"], number> = {
  empathy: 600,
  support: 600,
  booking_confirmation: 300,
  booking_reminder: 240,
  demo: 180,
  customer_service: 600,
  test: 180,
  // A caller ringing the business's own number (ADR 0041): asked at the answer to end at this limit.
  receptionist: 480,
};

/** Provider callbacks go to APP_URL (or the listening address), never to an origin a request named. */
export function publicOrigin(services: AppServices) {
  return services.publicOrigin();
}

/**
 * Dials a queued call. Over the concurrency cap the job is retried later (queued, not dropped);
 * a transient provider error is retried with backoff; a permanent one fails the call and tells
 * whoever asked for it.
 */
export const placeCallJob: AppJob<{ callId: number; origin: string }> = {
  name: "call-place",
  retryLimit: 12,
  retryDelaySeconds: 5,
  // Dialling takes seconds (the SDK gives up at 30): a job held longer lost its worker, and the
  // call is placed by a retry within a minute of it, once the dial claim's lease is over too.
  expireInSeconds: DIAL_LEASE_SECONDS + 5,
  // Dials run side by side, so a provider request that hangs delays nobody else's call; how many
  // calls are up at once is the lines' limit, kept in the database (takeLine) across processes.
  concurrency: (services) => services.env.MAX_CONCURRENT_CALLS,
  async handle({ callId, origin }, services) {
    const call = await findCall(services.db, callId);
    if (!call || call.status !== "queued" || !call.toNumber) return;
    if (call.businessId) {
      // An admin suspended the business: none of its calls is placed, whenever it was queued.
      const owner = await findBusinessById(services.db, call.businessId);
      if (owner?.status === "suspended") {
        await failCall(services.db, call.id, "The business is suspended: its calls are paused.");
        await services.callPurposes[call.purpose].notCalled?.(services, call, "suspended");
        return;
      }
    }
    // The call's purpose may hold it back (an opted-out customer, outside calling hours, the plan's
    // limit) or put it off to a later time.
    const purpose = services.callPurposes[call.purpose];
    const defer = async (until: Date) => {
      await services.jobs.enqueue(placeCallJob, { callId, origin }, { startAfter: until });
    };
    if (purpose.admit && !(await purpose.admit(services, call, defer))) return;
    // No bridge is up to carry the call's audio (it is restarting, or down): the person would
    // answer into silence. The call keeps its place and is woken with the waiting calls (every
    // minute, and within LEASE_WATCH_MS of a bridge's heartbeat, by startLeaseWatch); its page
    // says what it waits for.
    if (!(await bridgeReachable(services.db))) {
      await keepWaiting(services.db, call.id);
      return;
    }
    // A line first: over the limit the call waits, keeping its place, and is woken when one frees.
    const line = await takeLine(services.db, call.id, services.env.MAX_CONCURRENT_CALLS);
    if (!line?.ok) return;
    // Dialled before without an answer (its process died mid-dial, or the request timed out): the
    // provider may have placed it all the same. Found there, it is adopted, not dialled again.
    if (call.dialClaimedAt && (await adoptLostDial(services, call, call.dialClaimedAt, origin))) return;
    // The last line: whatever path queued it, a number the policy refuses is never dialled.
    const business = call.businessId ? await findBusinessById(services.db, call.businessId) : null;
    // Only a first attempt counts against the number's daily cap, and only its first dial: retries of
    // one request, and re-dials after provider errors, are not new calls to the person.
    const count = call.attempt === 1 && (await claimNumberCount(services.db, call.id));
    const decision = await checkDialling(services, { path: call.purpose, number: call.toNumber, business, count });
    if (!decision.ok) {
      await failCall(services.db, call.id, `The dialling policy refused this number (${decision.reason}).`);
      await releasePlanCall(services.db, call.id);
      // A purpose that records the refusal (a booking stands, marked not called so the business
      // phones itself) does; anything else hears the end like any failed call (a paid call is
      // retried and, refused again, refunded).
      if (purpose.notCalled) await purpose.notCalled(services, call, decision.reason);
      else await onCallFinished(services, (await findCall(services.db, call.id))!, origin);
      return;
    }
    const base = publicOrigin(services);
    try {
      const placed = await services.telephony.placeCall({
        to: call.toNumber,
        voiceUrl: `${base}/twilio/voice/${call.id}`,
        statusCallbackUrl: `${base}/webhooks/twilio/status/${call.id}`,
        timeLimitSeconds: call.timeLimitSeconds,
        // A purpose that leaves a voicemail waits for the beep; any other hangs up on a machine.
        machineDetection: purpose.voicemail ? "message" : "hang-up",
        // Recorded only when the deployment says so, and then by the provider (the disclosure says so too).
        ...(services.env.RECORD_CALLS ? { recordingStatusCallbackUrl: `${base}/webhooks/twilio/recording/${call.id}` } : {}),
      });
      await markCallPlaced(services.db, call.id, { providerCallId: placed.providerCallId, fromNumber: placed.from });
      callsPlaced.inc({ purpose: call.purpose });
      log.info(
        { callId: call.id, purpose: call.purpose, businessId: call.businessId ?? undefined, attempt: call.attempt },
        `call ${call.id} dialled`,
      );
      // A paid call's first attempt is queued when its payment is claimed: the wait the caller paid through.
      if (call.purpose === "empathy" && call.attempt === 1) paymentToDial.observe((Date.now() - call.createdAt.getTime()) / 1000);
      await purpose.placed?.(services, call);
    } catch (error) {
      if (error instanceof TelephonyError) {
        dialFailures.inc({ purpose: call.purpose, transient: String(error.transient) });
        log.info(
          {
            callId: call.id,
            purpose: call.purpose,
            businessId: call.businessId ?? undefined,
            transient: error.transient,
            code: error.code,
          },
          `call ${call.id}: the dial failed: ${error.message}`,
        );
      }
      if (error instanceof TelephonyError && !error.transient) {
        await failCall(services.db, call.id, `${error.code ?? ""} ${error.message}`.trim());
        await releasePlanCall(services.db, call.id);
        await onCallFinished(services, (await findCall(services.db, call.id))!, origin);
        return;
      }
      if (!(error instanceof TelephonyError)) {
        await releaseDialClaim(services.db, call.id);
        throw error;
      }
      await retryDialLater(services, call.id, error, origin);
    }
  },
};

/** How far before a lost dial's claim a call at the provider may have been created (clocks apart). */
const LOST_DIAL_SKEW_MS = 5_000;

/**
 * A call to the number created at the provider since the earlier dial, that no call here holds, is
 * the earlier dial's: its id is stored and its status applied (the status callbacks, whose URL
 * names this call, carry on from there). True when one was adopted. When the provider cannot be
 * asked, the dial goes ahead: it would fail the same way.
 */
async function adoptLostDial(services: AppServices, call: Call, claimedAt: Date, origin: string) {
  const since = new Date(claimedAt.getTime() - LOST_DIAL_SKEW_MS);
  const found = await services.telephony.recentCallsTo(call.toNumber!, since).catch(() => []);
  const held = await heldProviderCallIds(
    services.db,
    found.map((placed) => placed.providerCallId),
  );
  const lost = found.find((placed) => !held.has(placed.providerCallId));
  if (!lost || !(await markCallPlaced(services.db, call.id, { providerCallId: lost.providerCallId, fromNumber: lost.from }))) return false;
  log.warn(
    { callId: call.id },
    `call ${call.id}: an earlier dial reached the provider (${lost.providerCallId}); adopted, not dialled again`,
  );
  await applyStatusCallback(services, call.id, { CallStatus: lost.status }, origin);
  return true;
}

/**
 * A signed callback for a call whose dial never heard back (its process died while the provider
 * created it): the callback's URL names the call, so its CallSid is the call's, and is adopted.
 */
export async function adoptFromCallback(services: AppServices, call: Call, params: Record<string, string>) {
  if (call.providerCallId || !params.CallSid) return call;
  await markCallPlaced(services.db, call.id, { providerCallId: params.CallSid, fromNumber: params.From ?? "" });
  return (await findCall(services.db, call.id)) ?? call;
}

/**
 * The provider is down or overloaded: the dial is tried again after DIAL_RETRY_DELAY_SECONDS by
 * a new durable job, for DIAL_RETRY_WINDOW_SECONDS from the first failure; then the attempt fails
 * ("telephony_unavailable") and whoever asked hears of it (a paid call is refunded).
 */
async function retryDialLater(services: AppServices, callId: number, error: TelephonyError, origin: string) {
  const failing = await recordDialFailure(services.db, callId, `${error.code ?? error.status ?? ""} ${error.message}`.trim());
  if (!failing) return;
  // Its line is free while it waits to try again.
  await wakeWaitingCalls(services);
  const { DIAL_RETRY_WINDOW_SECONDS: window, DIAL_RETRY_DELAY_SECONDS: delay } = services.env;
  const next = new Date(Date.now() + delay * 1000);
  if (next.getTime() <= dialDeadline(failing, window).getTime()) {
    await services.jobs.enqueue(placeCallJob, { callId, origin }, { startAfter: next });
    return;
  }
  await failCall(services.db, callId, `The phone network did not answer for ${window} s: ${failing.lastError ?? ""}`.trim());
  await releasePlanCall(services.db, callId);
  await onCallFinished(services, (await findCall(services.db, callId))!, origin);
}

/** Until when a failing dial is retried. */
export function dialDeadline(call: Pick<Call, "dialFailingSince">, windowSeconds: number) {
  return new Date((call.dialFailingSince ?? new Date()).getTime() + windowSeconds * 1000);
}

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

/**
 * A signed status callback (or the provider's record standing in for one, `note` saying so):
 * moves the call forward (never back) and reports the end.
 */
export async function applyStatusCallback(
  services: AppServices,
  callId: number,
  params: Record<string, string>,
  origin: string,
  note?: string,
) {
  const status = TWILIO_STATUSES[params.CallStatus ?? ""];
  if (!status) return null;
  const duration = Number(params.CallDuration ?? params.Duration);
  const updated = await advanceCallStatus(services.db, callId, status, {
    ...(Number.isFinite(duration) && duration >= 0 ? { durationSeconds: duration } : {}),
    ...(params.AnsweredBy ? { answeredBy: params.AnsweredBy } : {}),
    ...(note ? { lastError: note } : {}),
  });
  if (updated && ["completed", "busy", "no-answer", "failed", "canceled"].includes(updated.status)) {
    await onCallFinished(services, updated, origin);
  }
  return updated;
}

/** Writes down whether the call was delivered, tells whatever asked for the call how it ended, and frees its line. */
async function onCallFinished(services: AppServices, call: Call, origin: string) {
  const verdict = deliveryOf(call, services.env.CALL_DELIVERED_MIN_SECONDS);
  const judged = await setCallDelivery(services.db, call.id, verdict);
  // Counted once: the first to judge the call (a repeated callback finds it judged).
  if (judged) {
    callsFinished.inc({ purpose: call.purpose, outcome: call.status });
    log.info(
      {
        callId: call.id,
        purpose: call.purpose,
        businessId: call.businessId ?? undefined,
        outcome: call.status,
        delivered: verdict.delivered,
      },
      `call ${call.id} ended: ${call.status}${call.status === "failed" && call.lastError ? ` (${call.lastError})` : ""}`,
    );
  }
  await services.callPurposes[call.purpose].finished?.(services, judged ?? call, origin);
  await wakeWaitingCalls(services);
}

/** A queued call dialled now rather than at its time (a paid call's "call me again now"); it was counted when queued. */
export async function placeNow(services: AppServices, callId: number) {
  await services.jobs.enqueue(placeCallJob, { callId, origin: publicOrigin(services) });
  services.jobs.wake(placeCallJob);
}

/** Hands the free lines to the calls waiting longest, in order. */
export async function wakeWaitingCalls(services: AppServices) {
  const waiting = await callsToWake(services.db, services.env.MAX_CONCURRENT_CALLS);
  for (const { id } of waiting) await services.jobs.enqueue(placeCallJob, { callId: id, origin: publicOrigin(services) });
  if (waiting.length > 0) services.jobs.wake(placeCallJob);
}

/**
 * Confirmation calls the plan held while it was past due go through the gate again once it is
 * not: at once when the webhook says the plan is paid, and every minute from the sweeper.
 */
export async function resumePausedCalls(services: AppServices, businessId?: number) {
  for (const { id } of await pausedConfirmationCalls(services.db, businessId)) {
    await services.jobs.enqueue(placeCallJob, { callId: id, origin: publicOrigin(services) }, { singletonKey: `plan-resume-${id}` });
  }
}

/** A call still marked live this long after its time limit lost its end report (its process died, a callback was lost). */
export const SWEEP_GRACE_SECONDS = 120;

/**
 * Past its time limit by this much, a call the provider cannot be asked about is ended without its
 * word: a guess, but its line is needed and the provider ended it long ago (it enforces the limit).
 */
export const PROVIDER_SILENT_SECONDS = 15 * 60;

/** The provider's statuses of a call that is not over yet. */
const PROVIDER_LIVE = new Set(["queued", "initiated", "ringing", "in-progress"]);

/**
 * The provider's word decides how a call ends whose last event the app missed (a lost status
 * callback, a process that died): its record (GET Calls/{sid}) is applied as its final status
 * callback would have been, so the call is judged on its real duration and whoever asked for it
 * hears the true end (a delivered paid call is neither dialled again nor refunded). A call the
 * provider has as still up is left alone while a bridge carries it; one whose bridge lease lapsed
 * (`unbridged`: its process died) is hung up there, since nobody can speak on it, and ended from
 * the record the hang-up leaves, freeing its line at once. Past its time limit plus the grace a
 * call is hung up there too, and the next look ends it. When the provider cannot be asked, the call
 * waits for the next sweep, unless it is PROVIDER_SILENT_SECONDS past its limit (or was never
 * placed there): then it ends as the sweeper guesses, completed if it was answered, failed otherwise.
 */
export async function reconcileCall(
  services: AppServices,
  call: Call,
  due: { overdue: boolean; abandoned: boolean; unbridged?: boolean },
  origin: string,
) {
  let record: ProviderCallRecord | null = null;
  let unknownThere = !call.providerCallId;
  if (call.providerCallId) {
    try {
      record = await services.telephony.fetchCall(call.providerCallId);
      if (due.unbridged && PROVIDER_LIVE.has(record.status)) record = await hangUpUnbridged(services, call, record);
    } catch (error) {
      // Twilio answering "no such call" is an answer: nothing there will ever end it.
      unknownThere = error instanceof TelephonyError && error.status === 404;
      if (!unknownThere && !due.abandoned) return null;
    }
  }
  if (record && !PROVIDER_LIVE.has(record.status)) {
    return applyStatusCallback(
      services,
      call.id,
      {
        CallStatus: record.status,
        ...(record.durationSeconds !== null ? { CallDuration: String(record.durationSeconds) } : {}),
        ...(record.answeredBy ? { AnsweredBy: record.answeredBy } : {}),
      },
      origin,
      due.unbridged
        ? "Its bridge stopped (its process died): ended from Twilio's record, hung up there if it was still up."
        : "Ended from Twilio's record: its final status callback never reached the app.",
    );
  }
  if (!due.overdue) return null;
  if (call.providerCallId) await services.telephony.hangUp(call.providerCallId).catch(() => undefined);
  if (record && !due.abandoned) return null;
  if (!unknownThere)
    log.warn({ callId: call.id }, `call ${call.id}: ended without Twilio's record, which could not be fetched, long past its time limit`);
  const ended = await advanceCallStatus(services.db, call.id, call.status === "in-progress" ? "completed" : "failed", {
    lastError: "Ended by the sweeper: no end was reported within the time limit.",
  });
  if (ended) await onCallFinished(services, ended, origin);
  return ended;
}

/**
 * A call up at the provider that no bridge carries any more: nobody hears the caller, nobody
 * speaks. It is hung up there, and the provider's record after the hang-up is its end.
 */
async function hangUpUnbridged(services: AppServices, call: Call, record: ProviderCallRecord) {
  log.warn(
    { callId: call.id },
    `call ${call.id}: no bridge renewed its lease (its process died); hung up at Twilio, which had it ${record.status}`,
  );
  await services.telephony.hangUp(call.providerCallId!);
  return services.telephony.fetchCall(call.providerCallId!);
}

/**
 * Live calls whose bridge lease lapsed, reconciled with the provider, every LEASE_WATCH_MS by each
 * process with job workers (startLeaseWatch; the minute sweep finds them too), so a process that
 * died frees its calls' lines within a minute of its death, not after their time limit; then the
 * waiting calls get the lines freed, or a bridge that came up.
 */
async function reconcileUnbridgedCalls(services: AppServices) {
  const lapsed = await callsToReconcile(services.db, { ...reconcileLimits(services), unbridgedOnly: true });
  for (const { call, overdue, abandoned } of lapsed)
    await reconcileCall(services, call, { overdue, abandoned, unbridged: true }, publicOrigin(services));
  if (lapsed.length > 0) return wakeWaitingCalls(services);
  // A call that found no bridge (one restarting, or a process whose bridge was not up yet) is
  // dialled once one is, not at the next minute's sweep.
  if ((await anyCallWaiting(services.db)) && (await bridgeReachable(services.db))) await wakeWaitingCalls(services);
}

/** How often each process with job workers looks for calls whose bridge died (one query when there are none). */
const LEASE_WATCH_MS = 10_000;

/** Starts the frequent look for lapsed bridge leases; returns its stop. A failed look is said and tried again. */
export function startLeaseWatch(services: AppServices) {
  let running: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(() => reconcileUnbridgedCalls(services))
      .catch((error: Error) => log.warn(`The look for calls whose bridge died failed: ${error.message.split("\n")[0]}`));
  }, LEASE_WATCH_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

const reconcileLimits = (services: AppServices) => ({
  quietSeconds: services.env.CALL_QUIET_CHECK_SECONDS,
  graceSeconds: SWEEP_GRACE_SECONDS,
  abandonSeconds: PROVIDER_SILENT_SECONDS,
});

/**
 * Queued calls whose dialling job ran out of retries (hours of a fault outside the provider's own
 * answers, which the job retries itself: a database error, a worker killed at every try): nothing
 * would dial them any more. Each ends as failed through the usual end-of-call path, so whoever
 * asked for it hears it (a paid call is tried again, and refunded after its last attempt). A call
 * waiting for a line, for its calling hours or for its plan has a job waiting, or none that failed.
 */
async function endGivenUpDials(services: AppServices) {
  const origin = publicOrigin(services);
  const queued = await queuedCallIds(services.db, SWEEP_GRACE_SECONDS);
  for (const { key, error } of await services.jobs.givenUp(placeCallJob, "callId", queued.map(String))) {
    const call = await findCall(services.db, Number(key));
    if (!call || call.status !== "queued") continue;
    // Its last try may have reached the provider before its worker died: that call is the person's
    // call, adopted as a retry would have, not ended (and dialled again by the next attempt).
    if (call.dialClaimedAt && call.toNumber && (await adoptLostDial(services, call, call.dialClaimedAt, origin))) continue;
    const failed = await failCall(services.db, call.id, `Its dialling job gave up after every retry: ${error}`, ["queued"]);
    if (!failed) continue;
    await releasePlanCall(services.db, failed.id);
    await onCallFinished(services, failed, origin);
  }
}

/**
 * Every minute: live calls the app heard nothing about for CALL_QUIET_CHECK_SECONDS, those whose
 * bridge lease lapsed, and those past their time limit plus the grace, are reconciled with the
 * provider's record (reconcileCall), through the same end-of-call path as a status callback (a paid
 * one is retried or refunded only when it was not delivered); queued calls whose dialling job gave
 * up are ended; then waiting calls get the free lines. A lost end is found within
 * CALL_QUIET_CHECK_SECONDS plus a minute.
 */
export const callSweeperJob: AppJob<Record<string, never>> = {
  name: "call-sweeper",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    const due = await callsToReconcile(services.db, reconcileLimits(services));
    for (const { call, overdue, abandoned, unbridged } of due) {
      await reconcileCall(services, call, { overdue, abandoned, unbridged }, publicOrigin(services));
    }
    await endGivenUpDials(services);
    await wakeWaitingCalls(services);
    await resumePausedCalls(services);
  },
};
export const CALL_SWEEPER_CRON = "* * * * *";

/** How long the media-stream handshake may come after the TwiML request. */
export const STREAM_TOKEN_TTL_MS = 2 * 60_000;

export function escapeXml(value: string) {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/**
 * The call's instructions: connect its audio to this server's media stream with a fresh
 * single-use token, or, when a machine answered a confirmation call, leave a short voicemail.
 */
export async function voiceTwiml(services: AppServices, call: Call, params: Record<string, string>) {
  // Twilio asks for this once the call is answered: the clock of the first words (ADR 0033).
  const answeredAt = new Date();
  if (params.AnsweredBy?.startsWith("machine") || params.AnsweredBy === "fax") {
    await setCallOutcome(services.db, call.id, "voicemail", params.AnsweredBy);
    // A confirmation leaves its short message; any other call (a paid one above all) says nothing
    // personal to a machine and ends, and the attempt does not count.
    const voicemail = services.callPurposes[call.purpose].voicemail;
    if (!voicemail) return HANG_UP;
    const message = await voicemail(services, call);
    return say(message, message.text);
  }
  if (!services.voiceModel.configured) {
    await markCallMoment(services.db, call.id, "modelFailedAt");
    return apologyTwiml(call);
  }
  // The greeting is prepared while Twilio connects the stream, when the stream comes to this
  // process; a bridge process of its own (MEDIA_STREAM_ORIGIN) opens the session when it connects.
  // A session whose stream has not come within the stream's own start limit is closed: the stream
  // went to another process (or never left Twilio), and a paid session must not wait for it.
  // It starts first, before this request's own writes: the caller is waiting for its words.
  if (!services.env.MEDIA_STREAM_ORIGIN) void prepareVoiceSession(services, call, streamLimits(services.env).startTimeoutMs);
  // Single-use and short-lived: Twilio connects the stream within seconds of fetching this TwiML.
  const token = newStreamToken(randomBytes(24).toString("base64url"), new Date(Date.now() + STREAM_TOKEN_TTL_MS));
  await Promise.all([setStreamToken(services.db, call.id, token), recordAnswer(services.db, call.id, answeredAt)]);
  const base = publicOrigin(services);
  const stream = mediaStreamUrl(services, call.id);
  // When the stream ends while the call goes on (the model failed), Twilio asks the action URL what next.
  const action = `${base}/twilio/stream-ended/${call.id}`;
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Connect action="${escapeXml(action)}"><Stream url="${escapeXml(stream)}"><Parameter name="token" value="${escapeXml(token)}"/></Stream></Connect></Response>`;
}

const HANG_UP = `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`;

function say(voice: { language: string; voice: string }, text: string) {
  return `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="${escapeXml(voice.language)}" voice="${escapeXml(voice.voice)}">${escapeXml(text)}</Say><Hangup/></Response>`;
}

/** The provider's own voice says sorry in the call's language and hangs up: the model could not take the call. */
function apologyTwiml(call: Call) {
  const texts = callTexts(call.language);
  return say(texts.say, texts.apology);
}

/**
 * POST /twilio/stream-ended/{id}: the media stream closed while the call was still up. After a
 * model failure the caller hears the apology. Otherwise our side cut the stream (a bridge that
 * shut down or died, its connection lost: a bridge ending a call on purpose hangs up through the
 * provider first, and then nothing is asked), and the caller hears why: the apology (it does not
 * count, we will call again) if the listener had not yet spoken the delivered minimum, else a
 * goodbye. The cut and what they were told are written first, so the call is judged on them
 * (delivery.ts).
 */
export async function afterStreamTwiml(services: AppServices, call: Call) {
  if (!call.modelFailedAt) await markCallMoment(services.db, call.id, "streamCutAt");
  await markCallMoment(services.db, call.id, "farewellSaidAt");
  const own = await services.callPurposes[call.purpose].afterStream?.(services, call);
  if (own) return own;
  if (call.modelFailedAt || !call.agentMinimumHeardAt) return apologyTwiml(call);
  const texts = callTexts(call.language);
  return say(texts.say, texts.cutGoodbye);
}
