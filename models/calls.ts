import { createHash } from "node:crypto";
import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "./db";
import { preparedPerDb } from "./prepared";
import { callOptOuts, calls } from "./schema";

export type Call = typeof calls.$inferSelect;
export type CallStatus = Call["status"];
export type NewCall = typeof calls.$inferInsert;

export const TERMINAL_STATUSES: CallStatus[] = ["completed", "busy", "no-answer", "failed", "canceled"];
export const LIVE_STATUSES: CallStatus[] = ["initiated", "ringing", "in-progress"];

/** Later states rank higher; a callback never moves a call back, and terminal states are final. */
export function statusRank(status: CallStatus) {
  if (TERMINAL_STATUSES.includes(status)) return 4;
  return { queued: 0, initiated: 1, ringing: 2, "in-progress": 3 }[status as "queued"] ?? 0;
}

export const hashStreamToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function createCall(db: Db, call: NewCall) {
  const [row] = await db.insert(calls).values(call).returning();
  return row!;
}

/**
 * Inserts the call unless one with the same key exists: (empathy request, attempt) or (booking,
 * confirmation round, attempt). Null then: a retried job never makes a second call. Only the call
 * gate (app/calls/gate.server.ts) calls it: a call made anywhere else would skip its caps.
 */
export async function createCallOnce(db: Db, call: NewCall) {
  const [row] = await db.insert(calls).values(call).onConflictDoNothing().returning();
  return row ?? null;
}

/**
 * The call with `call`'s key, if it was asked for already: the same attempt of its empathy
 * request, or of its booking's confirmation round. Null for a call without a key.
 */
export async function findKeyedCall(db: Db, call: Pick<NewCall, "empathyRequestId" | "bookingId" | "confirmationRound" | "attempt">) {
  const attempt = call.attempt ?? 1;
  if (call.empathyRequestId) {
    const [row] = await db
      .select()
      .from(calls)
      .where(and(eq(calls.empathyRequestId, call.empathyRequestId), eq(calls.attempt, attempt)));
    return row ?? null;
  }
  if (call.bookingId && call.confirmationRound !== null && call.confirmationRound !== undefined) {
    return findConfirmationCall(db, call.bookingId, call.confirmationRound, attempt);
  }
  return null;
}

/** Attempt `attempt` of a booking's confirmation round, if it was asked for already. */
export async function findConfirmationCall(db: Db, bookingId: number, round: number, attempt: number) {
  const [row] = await db
    .select()
    .from(calls)
    .where(and(eq(calls.bookingId, bookingId), eq(calls.confirmationRound, round), eq(calls.attempt, attempt)));
  return row ?? null;
}

/**
 * Marks the call as counted against its number's daily cap: true the first time only, so every
 * later dial of the same call (after a provider error, a lost worker) is not a new call to the person.
 */
export async function claimNumberCount(db: Db, id: number) {
  const [row] = await db
    .update(calls)
    .set({ numberCountedAt: new Date() })
    .where(and(eq(calls.id, id), isNull(calls.numberCountedAt)))
    .returning({ id: calls.id });
  return Boolean(row);
}

/**
 * First attempts to `toNumber` still waiting to be dialled, not yet counted against the number's
 * daily cap (the engine counts a call when it dials it): with the cap's count, what the cap will
 * stand at when they are dialled.
 */
export async function countUndialledFirstCalls(db: Db, toNumber: string) {
  const [row] = await db
    .select({ waiting: sql<number>`count(*)::int` })
    .from(calls)
    .where(and(eq(calls.toNumber, toNumber), eq(calls.status, "queued"), eq(calls.attempt, 1), isNull(calls.numberCountedAt)));
  return Number(row?.waiting ?? 0);
}

export async function findCall(db: Db, id: number) {
  const [row] = await db.select().from(calls).where(eq(calls.id, id));
  return row ?? null;
}

/**
 * A dial claim younger than this holds a line: the dial request is in flight (the provider's SDK
 * gives up after 30 s). An older one is from a worker that died mid-dial, and may be taken over.
 */
export const DIAL_LEASE_SECONDS = 35;

/**
 * The provider answers a dial in a second or two. One unanswered this long is lost or hanging: its
 * page says the call is being checked with the provider (a retried dial adopts what it finds
 * there), never that it is placed again.
 */
export const DIAL_STALLED_SECONDS = 10;

/** Whether `call` is a dial that has waited DIAL_STALLED_SECONDS without the provider's answer. */
export function dialStalled(call: Pick<Call, "status" | "providerCallId" | "dialClaimedAt">, now = Date.now()) {
  return (
    call.status === "queued" &&
    !call.providerCallId &&
    call.dialClaimedAt !== null &&
    now - call.dialClaimedAt.getTime() >= DIAL_STALLED_SECONDS * 1000
  );
}

/** One lock for the line count, so two workers never both take the last free line. */
const LINES_LOCK = 7_210_301;

export type LineResult = { ok: true } | { ok: false; position: number };

/**
 * The global limit on simultaneous calls, kept in the database (so it holds across processes):
 * under one advisory lock, the lines in use (live calls, and dial claims within their lease) and
 * the calls waiting ahead of this one are counted; the call either takes a line (its dial claim)
 * or is marked waiting, keeping its place (its id). Waiting calls are woken in order when a line
 * frees (see lines waking in the call engine); nothing is retried in a loop.
 */
export async function takeLine(db: Db, id: number, lines: number): Promise<LineResult | null> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LINES_LOCK})`);
    const [call] = await tx.select().from(calls).where(eq(calls.id, id));
    if (!call || call.status !== "queued") return null;
    if (call.dialClaimedAt && call.dialClaimedAt.getTime() > Date.now() - DIAL_LEASE_SECONDS * 1000) return null;
    const [usage] = await tx
      .execute(
        sql`
      select
        (select count(*)::int from ${calls}
          where ${calls.status} in ('initiated', 'ringing', 'in-progress')
             or (${calls.status} = 'queued' and ${calls.id} <> ${id}
                 and ${calls.dialClaimedAt} > now() - make_interval(secs => ${DIAL_LEASE_SECONDS}))) as in_use,
        (select count(*)::int from ${calls}
          where ${calls.status} = 'queued' and ${calls.waitingSince} is not null and ${calls.id} < ${id}) as ahead`,
      )
      .then((result) => rowsOf<{ in_use: number; ahead: number }>(result));
    const inUse = Number(usage?.in_use ?? 0);
    const ahead = Number(usage?.ahead ?? 0);
    if (inUse + ahead >= lines) {
      await tx
        .update(calls)
        .set({ waitingSince: call.waitingSince ?? new Date() })
        .where(eq(calls.id, id));
      return { ok: false, position: ahead + 1 };
    }
    await tx.update(calls).set({ dialClaimedAt: new Date(), waitingSince: null }).where(eq(calls.id, id));
    return { ok: true };
  });
}

/**
 * Puts a queued call in the line queue without taking a line (no bridge is up to carry its audio):
 * it keeps its place, and is woken with the waiting calls.
 */
export async function keepWaiting(db: Db, id: number) {
  await db
    .update(calls)
    .set({ waitingSince: sql`coalesce(${calls.waitingSince}, now())` })
    .where(and(eq(calls.id, id), eq(calls.status, "queued")));
}

/** The waiting calls that may take the lines free now, oldest first. */
export async function callsToWake(db: Db, lines: number) {
  const [usage] = await db
    .execute(
      sql`select count(*)::int as in_use from ${calls}
          where ${calls.status} in ('initiated', 'ringing', 'in-progress')
             or (${calls.status} = 'queued' and ${calls.dialClaimedAt} > now() - make_interval(secs => ${DIAL_LEASE_SECONDS}))`,
    )
    .then((result) => rowsOf<{ in_use: number }>(result));
  const free = lines - Number(usage?.in_use ?? 0);
  if (free <= 0) return [];
  return db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.status, "queued"), isNotNull(calls.waitingSince)))
    .orderBy(asc(calls.id))
    .limit(free);
}

/** Whether any queued call waits for a line or for a bridge (one indexed look, for the frequent check). */
export async function anyCallWaiting(db: Db) {
  const [row] = await db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.status, "queued"), isNotNull(calls.waitingSince)))
    .limit(1);
  return row !== undefined;
}

/** Where a waiting call is in the queue for a line (1 = next), or null when it is not waiting. */
export async function queuePosition(db: Db, call: Pick<Call, "id" | "status" | "waitingSince">) {
  if (call.status !== "queued" || !call.waitingSince) return null;
  const [row] = await db
    .select({ ahead: sql<number>`count(*)::int` })
    .from(calls)
    .where(and(eq(calls.status, "queued"), isNotNull(calls.waitingSince), lt(calls.id, call.id)));
  return Number(row?.ahead ?? 0) + 1;
}

/** A live call whose bridge lease ran out: the process that carried its audio stopped renewing it (it died). */
const leaseLapsed = sql<boolean>`coalesce(${calls.bridgeLeaseUntil} < now(), false)`;

/**
 * Live calls whose end may have been missed, for the sweeper to check with the provider: those
 * the app has heard nothing about (no status, transcript or other write) for `quietSeconds`, those
 * whose bridge lease lapsed (`unbridged`), and those past their time limit plus `graceSeconds`
 * (`overdue`); `abandoned` when past it by `abandonSeconds` too, when the provider's silence no
 * longer stops the call from being ended. `unbridgedOnly`: the lapsed leases alone (the frequent look).
 */
export async function callsToReconcile(
  db: Db,
  limits: { quietSeconds: number; graceSeconds: number; abandonSeconds: number; unbridgedOnly?: boolean },
) {
  const deadline = sql`coalesce(${calls.answeredAt}, ${calls.startedAt}, ${calls.createdAt}) + make_interval(secs => ${calls.timeLimitSeconds})`;
  const overdue = sql<boolean>`${deadline} + make_interval(secs => ${limits.graceSeconds}) < now()`;
  const due = limits.unbridgedOnly
    ? leaseLapsed
    : sql`(${overdue} or ${leaseLapsed} or (${calls.providerCallId} is not null
              and ${calls.updatedAt} < now() - make_interval(secs => ${limits.quietSeconds})))`;
  return db
    .select({
      call: calls,
      overdue,
      abandoned: sql<boolean>`${deadline} + make_interval(secs => ${limits.abandonSeconds}) < now()`,
      unbridged: leaseLapsed,
    })
    .from(calls)
    .where(and(inArray(calls.status, LIVE_STATUSES), due));
}

/**
 * Keeps the bridge leases of the calls a process carries for another `ttlSeconds`, in one
 * statement (a call that ended meanwhile keeps what it had: nothing looks at an ended call's lease).
 */
export async function renewBridgeLeases(db: Db, ids: number[], ttlSeconds: number) {
  if (ids.length === 0) return;
  await db
    .update(calls)
    .set({ bridgeLeaseUntil: sql`now() + make_interval(secs => ${ttlSeconds})` })
    .where(and(inArray(calls.id, ids), inArray(calls.status, LIVE_STATUSES)));
}

/** drizzle's execute answers `{ rows }` on node-postgres and PGlite alike. */
function rowsOf<T>(result: unknown): T[] {
  return ((result as { rows?: T[] }).rows ?? (result as T[])) as T[];
}

export async function releaseDialClaim(db: Db, id: number) {
  await db
    .update(calls)
    .set({ dialClaimedAt: null })
    .where(and(eq(calls.id, id), eq(calls.status, "queued")));
}

/**
 * Records the provider's id for the call. The provider's first status callback can arrive before
 * this runs (it is sent as soon as the call is created), so the id is stored whatever the status,
 * and the status only moves from queued to initiated, never back.
 */
/** Of these provider call ids, the ones some call here already holds. */
export async function heldProviderCallIds(db: Db, providerCallIds: string[]) {
  if (providerCallIds.length === 0) return new Set<string>();
  const rows = await db.select({ id: calls.providerCallId }).from(calls).where(inArray(calls.providerCallId, providerCallIds));
  return new Set(rows.map((row) => row.id!));
}

/** Stores the provider's id of a call (once: a call whose id is known keeps it); true when stored now. */
export async function markCallPlaced(db: Db, id: number, fields: { providerCallId: string; fromNumber: string }) {
  const updated = await db
    .update(calls)
    .set({
      ...fields,
      status: sql`case when ${calls.status} = 'queued' then 'initiated'::call_status else ${calls.status} end`,
      startedAt: sql`coalesce(${calls.startedAt}, now())`,
      updatedAt: new Date(),
    })
    .where(and(eq(calls.id, id), isNull(calls.providerCallId)))
    .returning({ id: calls.id });
  return updated.length > 0;
}

/**
 * Applies a provider status only if it moves the call forward, in one statement, so repeated
 * and out-of-order callbacks are harmless. Returns the updated call, or null when nothing changed.
 */
export async function advanceCallStatus(
  db: Db,
  id: number,
  status: CallStatus,
  fields: Partial<Pick<Call, "durationSeconds" | "answeredBy" | "costCents" | "lastError">> = {},
) {
  const rank = statusRank(status);
  const now = new Date();
  const [row] = await db
    .update(calls)
    .set({
      status,
      ...fields,
      ...(status === "in-progress" ? { answeredAt: now } : {}),
      ...(rank === 4 ? { endedAt: now } : {}),
      updatedAt: now,
    })
    .where(
      and(
        eq(calls.id, id),
        sql`(case ${calls.status}
               when 'queued' then 0 when 'initiated' then 1 when 'ringing' then 2 when 'in-progress' then 3
               else 4 end) < ${rank}`,
      ),
    )
    .returning();
  return row ?? null;
}

/** Stores the hash of a fresh stream token (a new one per TwiML request). */
export async function setStreamToken(db: Db, id: number, token: string) {
  await db
    .update(calls)
    .set({ streamTokenHash: hashStreamToken(token), streamTokenUsedAt: null })
    .where(eq(calls.id, id));
}

/**
 * A stream token carries its own expiry (`<expires at, ms, base36>.<random>`); only its hash is
 * stored, so the expiry cannot be changed without the hash no longer matching.
 */
export function newStreamToken(random: string, expiresAt: Date) {
  return `${expiresAt.getTime().toString(36)}.${random}`;
}

/** Uses the token: true once per token and only before it expires, so a replayed or late stream connection is refused. */
export async function consumeStreamToken(db: Db, id: number, token: string, now = new Date()) {
  const expiresAt = parseInt(token.split(".")[0] ?? "", 36);
  if (!Number.isFinite(expiresAt) || expiresAt <= now.getTime()) return false;
  const [row] = await db
    .update(calls)
    .set({ streamTokenUsedAt: new Date() })
    .where(and(eq(calls.id, id), eq(calls.streamTokenHash, hashStreamToken(token)), isNull(calls.streamTokenUsedAt)))
    .returning({ id: calls.id });
  return Boolean(row);
}

export async function appendTranscript(db: Db, id: number, entries: Call["transcript"]) {
  if (entries.length === 0) return;
  await db
    .update(calls)
    .set({ transcript: sql`${calls.transcript} || ${JSON.stringify(entries)}::jsonb`, updatedAt: new Date() })
    .where(eq(calls.id, id));
}

export async function flagCall(db: Db, id: number, reason: string) {
  await db.update(calls).set({ flaggedForReview: true, flagReason: reason, updatedAt: new Date() }).where(eq(calls.id, id));
}

export async function setCallOutcome(db: Db, id: number, outcome: string, answeredBy?: string) {
  await db
    .update(calls)
    .set({ outcome, ...(answeredBy ? { answeredBy } : {}), updatedAt: new Date() })
    .where(eq(calls.id, id));
}

/** The summary the booking agent wrote for the owner, already redacted and cut to length. */
export async function setCallSummary(db: Db, id: number, summary: string) {
  await db.update(calls).set({ summary, updatedAt: new Date() }).where(eq(calls.id, id));
}

/** Calls waiting to be dialled (queued) since before `olderThanSeconds` ago: the ones whose dialling could have been given up. */
export async function queuedCallIds(db: Db, olderThanSeconds: number) {
  const rows = await db
    .select({ id: calls.id })
    .from(calls)
    .where(and(eq(calls.status, "queued"), sql`${calls.createdAt} < now() - make_interval(secs => ${olderThanSeconds})`));
  return rows.map((row) => row.id);
}

/** Ends a call not yet answered (or only one in the states `from`) as failed: the row, or null when it had moved on meanwhile. */
export async function failCall(db: Db, id: number, error: string, from: CallStatus[] = ["queued", "initiated", "ringing"]) {
  const [row] = await db
    .update(calls)
    .set({ status: "failed", lastError: error.slice(0, 500), endedAt: new Date(), updatedAt: new Date() })
    .where(and(eq(calls.id, id), inArray(calls.status, from)))
    .returning();
  return row ?? null;
}

export async function listRecentCalls(db: Db, options: { businessId?: number; limit?: number } = {}) {
  return db
    .select()
    .from(calls)
    .where(options.businessId ? eq(calls.businessId, options.businessId) : undefined)
    .orderBy(desc(calls.createdAt))
    .limit(options.limit ?? 25);
}

export async function isOptedOut(db: Db, businessId: number, phone: string) {
  const [row] = await db
    .select({ id: callOptOuts.id })
    .from(callOptOuts)
    .where(and(eq(callOptOuts.businessId, businessId), eq(callOptOuts.phone, phone)));
  return Boolean(row);
}

export async function optOut(db: Db, businessId: number, phone: string) {
  await db.insert(callOptOuts).values({ businessId, phone }).onConflictDoNothing();
}

/** Confirmation calls a business has used since a moment (placed calls; queued or failed ones don't count). */
export async function countBusinessCallsSince(db: Db, businessId: number, since: Date) {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(calls)
    .where(
      and(
        eq(calls.businessId, businessId),
        eq(calls.purpose, "booking_confirmation"),
        sql`${calls.startedAt} >= ${since.toISOString()}::timestamptz`,
      ),
    );
  return row?.count ?? 0;
}

/** The moments the bridge reports; each is kept the first time only. */
export type CallMoment =
  | "streamConnectedAt"
  | "modelReadyAt"
  | "modelFailedAt"
  | "agentHeardAt"
  | "callerHeardAt"
  | "agentMinimumHeardAt"
  | "streamCutAt"
  | "farewellSaidAt";

export async function markCallMoment(db: Db, id: number, moment: CallMoment, at = new Date()) {
  const column = calls[moment];
  await db
    .update(calls)
    .set({ [moment]: sql`coalesce(${column}, ${at.toISOString()}::timestamptz)` })
    .where(eq(calls.id, id));
}

/** Writes the verdict once, when the call ends; a later callback for the same call changes nothing. */
export async function setCallDelivery(db: Db, id: number, verdict: { delivered: boolean; reason: string | null }) {
  const [row] = await db
    .update(calls)
    .set({ delivered: verdict.delivered, undeliveredReason: verdict.reason, updatedAt: new Date() })
    .where(and(eq(calls.id, id), isNull(calls.delivered)))
    .returning();
  return row ?? null;
}

/** A transient provider error while dialling: kept with the moment the run of failures began. */
export async function recordDialFailure(db: Db, id: number, error: string) {
  const [row] = await db
    .update(calls)
    .set({
      dialClaimedAt: null,
      lastError: error.slice(0, 500),
      dialFailingSince: sql`coalesce(${calls.dialFailingSince}, now())`,
      updatedAt: new Date(),
    })
    .where(and(eq(calls.id, id), eq(calls.status, "queued")))
    .returning();
  return row ?? null;
}

/** Keeps the provider's recording reference (once; a replayed callback changes nothing). */
export async function setCallRecording(db: Db, id: number, recording: { sid: string; durationSeconds: number | null }) {
  await db
    .update(calls)
    .set({
      recordingSid: recording.sid,
      recordingDurationSeconds: recording.durationSeconds,
      recordedAt: new Date(),
      updatedAt: new Date(),
    })
    .where(and(eq(calls.id, id), isNull(calls.recordingSid)));
}

/** Recordings made before `before`: due for deletion. */
export async function recordingsMadeBefore(db: Db, before: Date) {
  return db
    .select({ id: calls.id, recordingSid: calls.recordingSid })
    .from(calls)
    .where(and(isNotNull(calls.recordingSid), lt(calls.recordedAt, before)));
}

export async function forgetRecording(db: Db, id: number) {
  await db.update(calls).set({ recordingSid: null, recordingDurationSeconds: null, updatedAt: new Date() }).where(eq(calls.id, id));
}

/**
 * Calls the booking no longer needs (the owner confirmed, cancelled or moved it by hand): each
 * one still queued and not being dialled is marked canceled, so its job dials nobody. Under the
 * lines lock, so a worker taking a line either sees the call canceled or has claimed it first.
 */
export async function cancelQueuedBookingCalls(db: Db, bookingId: number, purposes?: Call["purpose"][]) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LINES_LOCK})`);
    const rows = await tx
      .update(calls)
      .set({
        status: "canceled",
        lastError: "No longer needed: the business changed the booking.",
        endedAt: new Date(),
        updatedAt: new Date(),
      })
      .where(
        and(
          eq(calls.bookingId, bookingId),
          purposes ? inArray(calls.purpose, purposes) : undefined,
          eq(calls.status, "queued"),
          sql`(${calls.dialClaimedAt} is null or ${calls.dialClaimedAt} <= now() - make_interval(secs => ${DIAL_LEASE_SECONDS}))`,
        ),
      )
      .returning({ id: calls.id });
    return rows.length;
  });
}

/**
 * The latest call of each booking for each of `purposes` (its confirmation and its reminder, say),
 * in one read, for the owner's list: its outcome and redacted transcript.
 */
/** What the owner's list and a booking's page show of a booking's latest calls. */
export const latestCallColumns = {
  bookingId: calls.bookingId,
  purpose: calls.purpose,
  status: calls.status,
  outcome: calls.outcome,
  summary: calls.summary,
  attempt: calls.attempt,
  durationSeconds: calls.durationSeconds,
  answeredAt: calls.answeredAt,
  transcript: calls.transcript,
  createdAt: calls.createdAt,
};

/** Whose latest calls the owner's list and a booking's page show: its confirmation's and its reminder's. */
export const SHOWN_CALL_PURPOSES: Call["purpose"][] = ["booking_confirmation", "booking_reminder"];

const latestCallsQuery = preparedPerDb((db) =>
  db
    .selectDistinctOn([calls.bookingId, calls.purpose], latestCallColumns)
    .from(calls)
    // Arrays, so that one statement serves any number of bookings and purposes.
    .where(
      and(
        sql`${calls.bookingId} = any(${sql.placeholder("bookingIds")}::int[])`,
        sql`${calls.purpose} = any(${sql.placeholder("purposes")}::call_purpose[])`,
      ),
    )
    .orderBy(calls.bookingId, calls.purpose, desc(calls.createdAt), desc(calls.id))
    .prepare("latest_calls_of_bookings"),
);

export type LatestCall = Awaited<ReturnType<typeof latestCallsOfBookings>>[number];

export async function latestCallsOfBookings(db: Db, bookingIds: number[], purposes: Call["purpose"][]) {
  if (bookingIds.length === 0) return [];
  return latestCallsQuery(db).execute({ bookingIds, purposes });
}

/** Calls live now (dialled and not ended), by purpose: every process's metrics read it (sakina_calls_live). */
export async function liveCallCounts(db: Db) {
  return db
    .select({ purpose: calls.purpose, count: sql<number>`count(*)::int` })
    .from(calls)
    .where(inArray(calls.status, LIVE_STATUSES))
    .groupBy(calls.purpose);
}

/** The call the provider knows by this SID (an inbound call's CallSid), if any. */
export async function findCallByProviderId(db: Db, providerCallId: string) {
  const [row] = await db.select().from(calls).where(eq(calls.providerCallId, providerCallId));
  return row ?? null;
}

/** Why an inbound call was not taken: every line of the deployment, the business's lines, the caller's calls of the day, the plan. */
export type InboundRefusal = "lines" | "business_lines" | "caller_cap" | "plan";

export interface InboundLimits {
  /** MAX_CONCURRENT_CALLS: every call of the deployment, outbound and inbound. */
  lines: number;
  /** business_numbers.max_concurrent_calls: the business's inbound calls at once. */
  businessLines: number;
  /** business_numbers.max_calls_per_caller_per_day: the caller's inbound calls to the business in 24 hours. */
  callerPerDay: number;
}

class InboundRefused extends Error {
  constructor(readonly reason: InboundRefusal) {
    super(reason);
  }
}

/**
 * Takes a line for a call ringing a business's own number, under the lines' one advisory lock (the
 * same as takeLine's), so the counts hold across processes: the deployment's lines in use (live
 * calls, and dial claims within their lease), the business's inbound calls live, the caller's
 * inbound calls to the business in the last 24 hours; then the call is recorded, live, and `admit`
 * (the plan, which counts it) decides in the same transaction: refused, nothing is kept. A call
 * already recorded for the CallSid (the provider asked again) is that call.
 */
export async function takeInboundLine(
  db: Db,
  row: NewCall & { providerCallId: string; businessId: number; fromNumber: string },
  limits: InboundLimits,
  admit: (tx: Db, call: Call) => Promise<boolean>,
): Promise<{ ok: true; call: Call; again: boolean } | { ok: false; reason: InboundRefusal }> {
  try {
    return await db.transaction(async (tx) => {
      await tx.execute(sql`select pg_advisory_xact_lock(${LINES_LOCK})`);
      const [known] = await tx.select().from(calls).where(eq(calls.providerCallId, row.providerCallId));
      if (known) return { ok: true as const, call: known, again: true };
      const [usage] = await tx
        .execute(
          sql`
        select
          (select count(*)::int from ${calls}
            where ${calls.status} in ('initiated', 'ringing', 'in-progress')
               or (${calls.status} = 'queued' and ${calls.dialClaimedAt} > now() - make_interval(secs => ${DIAL_LEASE_SECONDS}))) as in_use,
          (select count(*)::int from ${calls}
            where ${calls.businessId} = ${row.businessId} and ${calls.direction} = 'inbound'
              and ${calls.status} in ('initiated', 'ringing', 'in-progress')) as business_live,
          (select count(*)::int from ${calls}
            where ${calls.businessId} = ${row.businessId} and ${calls.direction} = 'inbound'
              and ${calls.fromNumber} = ${row.fromNumber} and ${calls.createdAt} > now() - interval '1 day') as caller_today`,
        )
        .then((result) => rowsOf<{ in_use: number; business_live: number; caller_today: number }>(result));
      if (Number(usage?.in_use ?? 0) >= limits.lines) throw new InboundRefused("lines");
      if (Number(usage?.business_live ?? 0) >= limits.businessLines) throw new InboundRefused("business_lines");
      if (Number(usage?.caller_today ?? 0) >= limits.callerPerDay) throw new InboundRefused("caller_cap");
      const call = await createCall(tx, { ...row, direction: "inbound" });
      if (!(await admit(tx, call))) throw new InboundRefused("plan");
      return { ok: true as const, call, again: false };
    });
  } catch (error) {
    if (error instanceof InboundRefused) return { ok: false, reason: error.reason };
    throw error;
  }
}

/**
 * A live call put through to a person by the provider (a transfer): no bridge carries it any more,
 * so its bridge lease is held for `seconds` and its time limit grows by as much, and the sweeper
 * leaves the conversation alone until then (its status callbacks end it as usual).
 */
export async function handOverCall(db: Db, id: number, seconds: number) {
  await db
    .update(calls)
    .set({
      bridgeLeaseUntil: sql`now() + make_interval(secs => ${seconds})`,
      timeLimitSeconds: sql`${calls.timeLimitSeconds} + ${seconds}`,
      updatedAt: new Date(),
    })
    .where(and(eq(calls.id, id), inArray(calls.status, LIVE_STATUSES)));
}
