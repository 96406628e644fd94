import { createHash, randomBytes } from "node:crypto";
import { and, asc, count, desc, eq, gt, gte, inArray, isNotNull, lt, lte, ne, notInArray, or, sql, type SQL } from "drizzle-orm";
import type { PgSelect } from "drizzle-orm/pg-core";
import { newBookingReference, parseBookingReference } from "./booking-reference";
import { latestCallColumns, SHOWN_CALL_PURPOSES, type LatestCall } from "./calls";
import { fieldsFromJson, jsonObjectOf } from "./json-rows";
import { preparedPerDb } from "./prepared";
import type { Db } from "./db";
import { DEADLOCK_DETECTED, EXCLUSION_VIOLATION, SERIALIZATION_FAILURE, UNIQUE_VIOLATION, pgErrorCode } from "./errors";
import { bookings, businesses, businessServices, calendarBusy, calls, replacedManageLinks, type CallOrigin } from "./schema";

export type Booking = typeof bookings.$inferSelect;
type BookingStatus = Booking["status"];

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** No booking lasts a day (services take at most 12 hours): a start earlier than this before `from` cannot reach it. */
const LONGEST_BOOKING_MS = 24 * 3_600_000;

/**
 * Live bookings that overlap [from, to): what blocks new slots. `exceptBookingId` leaves one
 * booking out, so a booking being moved does not block the times around its own.
 */
export async function listBusyIntervals(db: Db, businessId: number, from: Date, to: Date, exceptBookingId?: number) {
  // The lower bound on starts_at lets the (business_id, starts_at) index read the window only,
  // not every past booking of the business. The intervals come back as one row of epoch
  // milliseconds: a row per booking, with two timestamps to parse each, cost several times the
  // query itself for a busy month (hundreds of bookings).
  const [row] = await db
    .select({
      busy: sql<[number | string, number | string][] | null>`json_agg(json_build_array(
        (extract(epoch from ${bookings.startsAt}) * 1000)::bigint, (extract(epoch from ${bookings.endsAt}) * 1000)::bigint))`,
    })
    .from(bookings)
    .where(
      and(
        eq(bookings.businessId, businessId),
        ne(bookings.status, "cancelled"),
        gt(bookings.startsAt, new Date(from.getTime() - LONGEST_BOOKING_MS)),
        lt(bookings.startsAt, to),
        gt(bookings.endsAt, from),
        exceptBookingId ? ne(bookings.id, exceptBookingId) : undefined,
      ),
    );
  // The owner's own calendar's busy times (read from CalDAV by the sync job) block slots as bookings do.
  const [fromCalendar] = await db
    .select({
      busy: sql<[number | string, number | string][] | null>`json_agg(json_build_array(
        (extract(epoch from ${calendarBusy.startsAt}) * 1000)::bigint, (extract(epoch from ${calendarBusy.endsAt}) * 1000)::bigint))`,
    })
    .from(calendarBusy)
    .where(and(eq(calendarBusy.businessId, businessId), lt(calendarBusy.startsAt, to), gt(calendarBusy.endsAt, from)));
  return [...(row?.busy ?? []), ...(fromCalendar?.busy ?? [])].map(([start, end]) => ({ start: Number(start), end: Number(end) }));
}

export interface NewBooking {
  businessId: number;
  serviceId: number;
  startsAt: Date;
  endsAt: Date;
  customerName: string;
  customerPhone: string;
  customerEmail: string | null;
  notes: string | null;
  language: string;
  /** The zone the customer booked in (see bookings.customerTimeZone); null when not known. */
  customerTimeZone?: string | null;
  idempotencyKey: string | null;
  /** Hash of the request that carried the key: only the same request replays its booking (see replayOf). */
  idempotencyRequestHash?: string | null;
  /** Seals the manage link's secret for the reminder e-mail (kept with the booking; see manageTokenSealed). */
  sealManageToken?: (token: string) => string;
  /** Draws a reference (newBookingReference); another drawer lets a test force clashes. */
  newReference?: () => string;
  /** Who made it (see CallOrigin): its confirmation calls and reminder count there. */
  origin?: CallOrigin | null;
  /** The owner's call column to start with ("queued" unless said: see ownerCallStateOf). */
  callState?: string;
  /** "pending" (waiting for its confirmation call) unless the customer agreed to it on a call already. */
  status?: "pending" | "confirmed";
  /**
   * The work that must follow the booking (its confirmation call's job, its e-mails), written in
   * the booking's own transaction: it commits with the booking or not at all, so a crash right
   * after the commit still leaves the booking its call. Throwing rolls the booking back.
   */
  followUp?: (tx: Db, booking: Booking, manageToken: string) => Promise<void>;
}

export type CreateBookingResult =
  | { kind: "created"; booking: Booking; manageToken: string }
  | { kind: "duplicate"; booking: Booking }
  /** The key made a booking for another request: nothing of that booking is told. */
  | { kind: "key_reused" }
  | { kind: "taken" };

/**
 * Inserts the booking. The exclusion constraint, not a prior check, decides who gets a contested
 * time: the loser gets `taken`. A repeated idempotency key returns the booking it already made,
 * for the same request only (replayOf).
 */
export async function createBooking(db: Db, input: NewBooking): Promise<CreateBookingResult> {
  // Once a time is booked, the many who lost the race hear "taken" at once instead of queuing
  // for the lock one by one; only a time still free waits its turn.
  const settled = await settledAnswer(db, input);
  if (settled) return settled;
  for (let attempt = 1; ; attempt++) {
    try {
      // One transaction per attempt, serialised per business by an advisory lock: concurrent
      // attempts on one calendar queue behind each other instead of deadlocking in the
      // exclusion constraint's index (PostgreSQL answered 40P01 under 100 simultaneous bookings).
      return await db.transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(${BOOKING_LOCK_SPACE}, ${input.businessId})`);
        return insertBooking(tx, input);
      });
    } catch (error) {
      const code = pgErrorCode(error);
      if (code === UNIQUE_VIOLATION && input.idempotencyKey) {
        const existing = await findByIdempotencyKey(db, input.businessId, input.idempotencyKey);
        if (existing) return replayOf(existing, input.idempotencyRequestHash);
      }
      const transient = code === DEADLOCK_DETECTED || code === SERIALIZATION_FAILURE;
      if (!transient || attempt >= BOOKING_ATTEMPTS) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt + Math.random() * 50 * attempt));
    }
  }
}

/** Advisory-lock namespace of bookings (the first of the two int4 keys); the business id is the second. */
const BOOKING_LOCK_SPACE = 1_001;
/** Attempts of one booking when PostgreSQL reports a deadlock or a serialisation failure. */
const BOOKING_ATTEMPTS = 5;

/**
 * What a request carrying the idempotency key that made `existing` gets: that booking when it is
 * the same request (the same hash), else `key_reused` and nothing of it: a key alone (guessed,
 * leaked, or a row stored before requests were hashed) never hands out someone's booking.
 */
export function replayOf(existing: Booking, requestHash: string | null | undefined): Exclude<CreateBookingResult, { kind: "created" }> {
  const same = existing.idempotencyRequestHash !== null && existing.idempotencyRequestHash === requestHash;
  return same ? { kind: "duplicate", booking: existing } : { kind: "key_reused" };
}

/**
 * The answer the calendar already gives, from one or two reads and no lock: the booking this
 * idempotency key made (replayOf), or the time is taken (`taken`: by a booking it overlaps, or only by one
 * that starts at the same moment). Null when the time looks free (only the transaction's check
 * under the lock decides).
 */
export async function settledAnswer(
  db: Db,
  input: Pick<NewBooking, "businessId" | "idempotencyKey" | "idempotencyRequestHash" | "startsAt" | "endsAt">,
  taken: "overlapping" | "same start" = "overlapping",
): Promise<Exclude<CreateBookingResult, { kind: "created" }> | null> {
  if (input.idempotencyKey) {
    const existing = await findByIdempotencyKey(db, input.businessId, input.idempotencyKey);
    if (existing) return replayOf(existing, input.idempotencyRequestHash);
  }
  const [overlap] = await db
    .select({ id: bookings.id })
    .from(bookings)
    .where(
      and(
        eq(bookings.businessId, input.businessId),
        ne(bookings.status, "cancelled"),
        taken === "same start"
          ? eq(bookings.startsAt, input.startsAt)
          : and(gt(bookings.endsAt, input.startsAt), lt(bookings.startsAt, input.endsAt)),
      ),
    )
    .limit(1);
  return overlap ? { kind: "taken" } : null;
}

async function insertBooking(db: Db, input: NewBooking): Promise<CreateBookingResult> {
  // Under the lock this check is exact, so the loser gets `taken` without an aborted statement;
  // the exclusion constraint stays the guarantee.
  const settled = await settledAnswer(db, input);
  if (settled) return settled;
  const { sealManageToken, newReference = newBookingReference, followUp, ...row } = input;
  const manageToken = randomBytes(24).toString("base64url");
  try {
    // A reference the business already has is drawn again, in this transaction: the clash does
    // not abort it (the unique index is the conflict target, so the insert does nothing), while a
    // clash of times still raises the exclusion violation below.
    for (let draw = 1; draw <= REFERENCE_DRAWS; draw++) {
      const [booking] = await db
        .insert(bookings)
        .values({
          ...row,
          reference: newReference(),
          manageTokenHash: hashToken(manageToken),
          manageTokenSealed: sealManageToken?.(manageToken) ?? null,
          status: row.status ?? "pending",
        })
        .onConflictDoNothing({ target: [bookings.businessId, bookings.reference] })
        .returning();
      if (!booking) continue;
      await followUp?.(db, booking, manageToken);
      return { kind: "created", booking, manageToken };
    }
    throw new Error(`No free booking reference for business ${input.businessId} after ${REFERENCE_DRAWS} draws`);
  } catch (error) {
    if (pgErrorCode(error) === EXCLUSION_VIOLATION) return { kind: "taken" };
    throw error;
  }
}

/**
 * Draws of a reference before giving up: with 887 million references a business with a million
 * bookings clashes once in 887 draws, so 20 clashes in a row mean something else is wrong.
 */
const REFERENCE_DRAWS = 20;

/** The booking this business made for a request carrying this idempotency key, if any. */
export async function findByIdempotencyKey(db: Db, businessId: number, key: string) {
  const [row] = await db
    .select()
    .from(bookings)
    .where(and(eq(bookings.businessId, businessId), eq(bookings.idempotencyKey, key)));
  return row ?? null;
}

/**
 * A new secret for the customer's own page of a booking, asked for by the customer (the only way
 * a link is replaced while its booking lives): only its hash is stored, so the old link stops
 * working; its hash is kept in replaced_manage_links, so the old link can still say whose booking
 * it was and that a new one was sent. Run it in the transaction that sends the new link.
 */
export async function replaceManageToken(db: Db, bookingId: number, sealManageToken?: (token: string) => string) {
  const manageToken = randomBytes(24).toString("base64url");
  const [old] = await db.select({ hash: bookings.manageTokenHash }).from(bookings).where(eq(bookings.id, bookingId));
  if (!old) return null;
  await db.insert(replacedManageLinks).values({ tokenHash: old.hash, bookingId }).onConflictDoNothing();
  await db
    .update(bookings)
    .set({ manageTokenHash: hashToken(manageToken), manageTokenSealed: sealManageToken?.(manageToken) ?? null })
    .where(eq(bookings.id, bookingId));
  return manageToken;
}

export async function findBookingByManageToken(db: Db, token: string) {
  const [row] = await db
    .select()
    .from(bookings)
    .where(eq(bookings.manageTokenHash, hashToken(token)));
  return row ?? null;
}

/** The booking a link the customer replaced belonged to, or null (never a booking's link). */
export async function findBookingOfReplacedLink(db: Db, token: string) {
  const [row] = await db
    .select({ booking: bookings })
    .from(replacedManageLinks)
    .innerJoin(bookings, eq(bookings.id, replacedManageLinks.bookingId))
    .where(eq(replacedManageLinks.tokenHash, hashToken(token)));
  return row?.booking ?? null;
}

/** Who made the booking's last change of time or status, for the owner's list. */
export async function recordBookingChange(db: Db, bookingId: number, change: string, by: "owner" | "customer") {
  await db.update(bookings).set({ lastChange: change, lastChangeBy: by }).where(eq(bookings.id, bookingId));
}

/**
 * The bookings a reference names, as a caller says it ("k7m q4p"): of one business, or of every
 * business when `businessId` is not given (the same reference may exist at several; the caller's
 * phone number tells them apart). None when it cannot be a reference.
 */
export async function findBookingsByReference(db: Db, spoken: string, businessId?: number) {
  const reference = parseBookingReference(spoken);
  if (!reference) return [];
  return db
    .select()
    .from(bookings)
    .where(and(eq(bookings.reference, reference), businessId === undefined ? undefined : eq(bookings.businessId, businessId)))
    .limit(50);
}

export async function findBooking(db: Db, bookingId: number) {
  const [row] = await db.select().from(bookings).where(eq(bookings.id, bookingId));
  return row ?? null;
}

/**
 * The booking, its row locked until `tx` ends: a change of its status (the owner confirming,
 * cancelling, moving it) waits for `tx`, and `tx` sees any that committed first.
 */
export async function lockBooking(tx: Db, bookingId: number) {
  const [row] = await tx.select().from(bookings).where(eq(bookings.id, bookingId)).for("update");
  return row ?? null;
}

export async function setBookingStatus(db: Db, bookingId: number, status: BookingStatus, outcome?: string) {
  const [row] = await db
    .update(bookings)
    .set({ status, ...(outcome ? { callOutcome: outcome } : {}), updatedAt: new Date() })
    // A no-show is the owner's record of what happened: a call's late result does not undo it.
    .where(and(eq(bookings.id, bookingId), ne(bookings.status, "no_show")))
    .returning();
  return row ?? null;
}

/** What the confirmation call came to, on the booking (its status changed another way). */
export async function setBookingCallOutcome(db: Db, bookingId: number, outcome: string) {
  await db.update(bookings).set({ callOutcome: outcome, updatedAt: new Date() }).where(eq(bookings.id, bookingId));
}

export async function setBookingCallState(db: Db, bookingId: number, callState: string) {
  await db.update(bookings).set({ callState, updatedAt: new Date() }).where(eq(bookings.id, bookingId));
}

/** The dialling policy refused the customer's number: the booking stands, the business phones them. */
export async function markBookingNotCalled(db: Db, bookingId: number, reason: string) {
  await db
    .update(bookings)
    .set({ callState: "not_called", notCalledReason: reason, updatedAt: new Date() })
    .where(eq(bookings.id, bookingId));
}

// The owner's own actions on one booking. Every query is scoped by business: an owner can only
// ever read or change bookings of their own business.

export async function findBusinessBooking(db: Db, businessId: number, bookingId: number) {
  const [row] = await db
    .select({ booking: bookings, serviceName: businessServices.name, serviceMinutes: businessServices.durationMinutes })
    .from(bookings)
    .innerJoin(businessServices, eq(bookings.serviceId, businessServices.id))
    .where(and(eq(bookings.businessId, businessId), eq(bookings.id, bookingId)));
  return row ?? null;
}

/** Sets the status of one of the business's bookings when `allowed` holds for it; the row, or null. */
async function setOwnedStatus(db: Db, businessId: number, bookingId: number, status: BookingStatus, now: Date, allowed: SQL) {
  const [row] = await db
    .update(bookings)
    .set({ status, updatedAt: now })
    .where(and(eq(bookings.businessId, businessId), eq(bookings.id, bookingId), allowed))
    .returning();
  return row ?? null;
}

/** Confirmed by the owner; null when it was not waiting for a confirmation (already confirmed, cancelled, over). */
export function confirmBusinessBooking(db: Db, businessId: number, bookingId: number, now = new Date()) {
  const waiting = and(inArray(bookings.status, ["pending", "reschedule_requested", "unreachable"]), gt(bookings.endsAt, now))!;
  return setOwnedStatus(db, businessId, bookingId, "confirmed", now, waiting);
}

/** The customer asked for another time (on a call): the booking keeps its time until the business offers one; null when it is cancelled or over. */
export function requestBookingReschedule(db: Db, businessId: number, bookingId: number, now = new Date()) {
  const open = and(inArray(bookings.status, ["pending", "confirmed", "unreachable"]), gt(bookings.endsAt, now))!;
  return setOwnedStatus(db, businessId, bookingId, "reschedule_requested", now, open);
}

/** Cancelled by the owner, which frees the time at once; null when it already was cancelled or is over. */
export function cancelBusinessBooking(db: Db, businessId: number, bookingId: number, now = new Date()) {
  const open = and(notInArray(bookings.status, ["cancelled", "no_show"]), gt(bookings.endsAt, now))!;
  return setOwnedStatus(db, businessId, bookingId, "cancelled", now, open);
}

/**
 * Marked by the owner as a no-show: the appointment's time has come (`startsAt` is not in the
 * future) and the customer did not. Null when it has not started yet, is cancelled, or already
 * was marked; the caller tells these apart from the booking it read.
 */
export function markBusinessBookingNoShow(db: Db, businessId: number, bookingId: number, now = new Date()) {
  const started = and(notInArray(bookings.status, ["cancelled", "no_show"]), lte(bookings.startsAt, now))!;
  return setOwnedStatus(db, businessId, bookingId, "no_show", now, started);
}

/**
 * The same booking at a new time. The exclusion constraint decides against a booking made
 * meanwhile (`taken`), in a savepoint of its own, so the caller's transaction stays usable.
 * `after`: its status and call column at the new time (waiting for the confirmation call by
 * default; a confirmed one the owner moves with no call to come stays confirmed).
 */
export async function moveBusinessBooking(
  db: Db,
  businessId: number,
  bookingId: number,
  startsAt: Date,
  endsAt: Date,
  after: { status: "pending" | "confirmed"; callState: string } = { status: "pending", callState: "queued" },
  now = new Date(),
) {
  try {
    const [row] = await db.transaction((tx) =>
      tx
        .update(bookings)
        .set({
          startsAt,
          endsAt,
          status: after.status,
          callState: after.callState,
          callOutcome: null,
          notCalledReason: null,
          confirmationRound: sql`${bookings.confirmationRound} + 1`,
          timeSetAt: now,
          updatedAt: now,
        })
        .where(
          and(
            eq(bookings.businessId, businessId),
            eq(bookings.id, bookingId),
            notInArray(bookings.status, ["cancelled", "no_show"]),
            gt(bookings.endsAt, now),
          ),
        )
        .returning(),
    );
    return row ? ({ kind: "moved", booking: row } as const) : ({ kind: "gone" } as const);
  } catch (error) {
    if (pgErrorCode(error) === EXCLUSION_VIOLATION) return { kind: "taken" } as const;
    throw error;
  }
}

/** The owner's marks on the call column once they settled a booking by hand. */
export async function setBookingCallStateIf(db: Db, bookingId: number, callState: string, onlyIf: string[]) {
  await db
    .update(bookings)
    .set({ callState, updatedAt: new Date() })
    .where(and(eq(bookings.id, bookingId), inArray(bookings.callState, onlyIf)));
}

/** Call states in which a confirmation call is still planned or under way. */
export const CALL_STATES_IN_PROGRESS = ["queued", "scheduled", "calling", "retry_2", "retry_3"];

export type OwnerBookingFilter = "upcoming" | "attention" | "cancelled" | "past";

/**
 * The owner's list. Upcoming: not yet over and not cancelled, soonest first. Cancelled: those
 * not yet over that were cancelled, soonest first. Needs attention: not yet over and
 * waiting for the owner: the customer asked for another time or could not be reached, or the
 * booking is still unconfirmed with no call planned or under way (not called because the dialling
 * policy refused the number, calls not configured, a call that ended without an answer to the
 * question). Past: over (or marked a no-show), latest first.
 */
/**
 * What the owner's list shows of a booking: 12 of its 28 columns. PGlite turns every field of a
 * row into JavaScript (a Date for each of six timestamps): a page of 25 whole rows cost more than
 * the list's other queries together.
 */
const ownerListColumns = {
  id: bookings.id,
  startsAt: bookings.startsAt,
  endsAt: bookings.endsAt,
  status: bookings.status,
  callState: bookings.callState,
  callOutcome: bookings.callOutcome,
  notCalledReason: bookings.notCalledReason,
  reference: bookings.reference,
  customerName: bookings.customerName,
  customerPhone: bookings.customerPhone,
  customerEmail: bookings.customerEmail,
  notes: bookings.notes,
  /** Who made the last change ("by the customer" / "by you" on the card). */
  lastChange: bookings.lastChange,
  lastChangeBy: bookings.lastChangeBy,
};

/** A booking as the owner's list reads it (ownerListColumns). */
export type ListedBooking = Pick<Booking, keyof typeof ownerListColumns>;

const ownerFilters: OwnerBookingFilter[] = ["upcoming", "attention", "cancelled", "past"];

/** One prepared statement per filter, built once (models/prepared.ts). */
function perFilter<Q>(build: (db: Db, filter: OwnerBookingFilter) => Q) {
  const prepared = new Map(ownerFilters.map((filter) => [filter, preparedPerDb((db) => build(db, filter))]));
  return (db: Db, filter: OwnerBookingFilter) => prepared.get(filter)!(db);
}

/** An upcoming booking the owner should look at: a time the customer asked to change, a customer not reached, or one nobody is calling. */
const needsAttention = or(
  inArray(bookings.status, ["reschedule_requested", "unreachable"]),
  // Includes "not called": the dialling policy refused the number.
  and(eq(bookings.status, "pending"), notInArray(bookings.callState, CALL_STATES_IN_PROGRESS)),
)!;

/** The bookings on a page of a list (a select from bookings and their services): its filter's, in its order, `limit` of them from `offset`. */
function onPage<Q extends PgSelect>(query: Q, filter: OwnerBookingFilter) {
  return (
    query
      .where(ownerFilter(filter))
      // The id breaks ties between bookings at one time, so no booking shows on two pages or none.
      .orderBy(...(filter === "past" ? [desc(bookings.startsAt), desc(bookings.id)] : [asc(bookings.startsAt), asc(bookings.id)]))
      .limit(sql.placeholder("limit"))
      .offset(sql.placeholder("offset"))
  );
}

const listedColumns = { ...ownerListColumns, serviceName: businessServices.name };

/**
 * A page of a list as one JSON array of its rows, in the list's order. PGlite turns each field of
 * a result into JavaScript one at a time (25 rows are 375 fields), JSON.parse reads one value.
 */
function listPageAsJson(db: Db, filter: OwnerBookingFilter) {
  const rows = onPage(
    db
      .select({ row: jsonObjectOf(listedColumns).as("row"), startsAt: bookings.startsAt, id: bookings.id })
      .from(bookings)
      .innerJoin(businessServices, eq(bookings.serviceId, businessServices.id))
      .$dynamic(),
    filter,
  ).as("page");
  const order = filter === "past" ? sql`${rows.startsAt} desc, ${rows.id} desc` : sql`${rows.startsAt}, ${rows.id}`;
  return sql<Record<string, unknown>[] | null>`(select json_agg(${rows.row} order by ${order}) from ${rows})`;
}

/** The page's bookings' latest calls (latestCallsOfBookings), as one JSON array. */
function pageCallsAsJson(db: Db, filter: OwnerBookingFilter) {
  const pageIds = onPage(
    db.select({ id: bookings.id }).from(bookings).innerJoin(businessServices, eq(bookings.serviceId, businessServices.id)).$dynamic(),
    filter,
  );
  const latest = db
    .selectDistinctOn([calls.bookingId, calls.purpose], { call: jsonObjectOf(latestCallColumns).as("call") })
    .from(calls)
    .where(and(inArray(calls.bookingId, pageIds), inArray(calls.purpose, SHOWN_CALL_PURPOSES)))
    .orderBy(calls.bookingId, calls.purpose, desc(calls.createdAt), desc(calls.id))
    .as("latest");
  return sql<Record<string, unknown>[] | null>`(select json_agg(${latest.call}) from ${latest})`;
}

/**
 * One statement for the whole of a list's page: its rows and their latest calls, how many the list
 * holds, how many of the upcoming bookings need attention (the badge beside the tabs), and the
 * business's set-up: each statement costs PGlite a few tenths of a millisecond whatever it reads.
 */
const ownerPageQuery = perFilter((db, filter) =>
  db
    .select({
      upcoming: count(),
      attention: sql<number>`count(*) filter (where ${needsAttention})`.mapWith(Number),
      listed:
        filter === "past" || filter === "cancelled"
          ? sql<number>`(${db.select({ count: count() }).from(bookings).where(ownerFilter(filter))})`.mapWith(Number)
          : sql<number>`0`,
      page: listPageAsJson(db, filter),
      calls: pageCallsAsJson(db, filter),
      // Written out whole: inside these subqueries Drizzle's column names would mean the subquery's own table.
      hasService: sql<boolean>`exists (select 1 from business_services s where s.business_id = ${sql.placeholder("businessId")} and s.active)`,
      hasHours: sql<boolean>`exists (select 1 from opening_hours h where h.business_id = ${sql.placeholder("businessId")})`,
      // A null "since" counts none.
      planCalls: sql<number>`(select count(*)::int from plan_calls p where p.business_id = ${sql.placeholder("businessId")} and p.created_at >= ${sql.placeholder("planCallsSince")})`,
    })
    .from(bookings)
    .where(ownerFilter("upcoming"))
    .prepare(`owner_bookings_page_${filter}`),
);

/**
 * A page of the owner's list (`rows`, and `calls`: the latest of each of their confirmation and
 * reminder calls), how many bookings the list holds (`total`), how many of the upcoming ones need
 * attention (`attention`), and what customers need before they can book (`setup`: an active
 * service, opening hours). With `planCallsSince`, `setup.planCalls` counts the
 * plan's calls since then (0 without it), for the plan's notice.
 */
export async function readOwnerBookings(
  db: Db,
  businessId: number,
  filter: OwnerBookingFilter,
  page: { limit: number; offset: number },
  { now = new Date(), planCallsSince = null as Date | null } = {},
) {
  const values = { ...ownerFilterValues(businessId, now), ...page, planCallsSince: planCallsSince?.toISOString() ?? null };
  const [row] = await ownerPageQuery(db, filter).execute(values);
  const total = filter === "past" || filter === "cancelled" ? row?.listed : filter === "attention" ? row?.attention : row?.upcoming;
  return {
    rows: (row?.page ?? []).map((json) => {
      const { serviceName, ...booking } = fieldsFromJson(listedColumns, json);
      return { booking: booking as ListedBooking, serviceName: serviceName as string };
    }),
    calls: (row?.calls ?? []).map((json) => fieldsFromJson(latestCallColumns, json) as LatestCall),
    total: total ?? 0,
    attention: row?.attention ?? 0,
    setup: { hasService: Boolean(row?.hasService), hasHours: Boolean(row?.hasHours), planCalls: Number(row?.planCalls ?? 0) },
  };
}

/** The values of ownerFilter's placeholders. */
function ownerFilterValues(businessId: number, now: Date) {
  return { businessId, now: now.toISOString(), startsAfter: new Date(now.getTime() - LONGEST_BOOKING_MS).toISOString() };
}

/** Which bookings a filter's list holds, with placeholders for the business and the time (ownerFilterValues). */
function ownerFilter(filter: OwnerBookingFilter) {
  const business = eq(bookings.businessId, sql.placeholder("businessId"));
  const now = sql.placeholder("now");
  // A no-show is past from the moment it is marked, though its time may not be over yet.
  if (filter === "past") return and(business, or(lte(bookings.endsAt, now), eq(bookings.status, "no_show")));
  const notOver = and(
    gt(bookings.endsAt, now),
    ne(bookings.status, "no_show"),
    // Implied by the end (no booking lasts a day), and lets the (business_id, starts_at) index
    // start at today instead of reading the business's whole history.
    gt(bookings.startsAt, sql.placeholder("startsAfter")),
  );
  const status = filter === "cancelled" ? eq(bookings.status, "cancelled") : ne(bookings.status, "cancelled");
  return and(business, notOver, status, filter === "attention" ? needsAttention : undefined);
}

/** What a reminder scan needs: how long before a start it is sent, and the last moment it is still of use. */
export interface ReminderWindow {
  hoursBefore: number;
  /** A reminder later than this before the start (the server was down) is not sent at all. */
  latestMinutesBefore: number;
}

/** The live bookings whose customer may be reached this way, and at such a time. */
const remindable = (now: Date, window: ReminderWindow) =>
  and(
    inArray(bookings.status, ["pending", "confirmed"]),
    gt(bookings.startsAt, new Date(now.getTime() + window.latestMinutesBefore * 60_000)),
    lte(bookings.startsAt, new Date(now.getTime() + window.hoursBefore * 3_600_000)),
    // Told its time well before the reminder's: a booking made or moved within the window had its e-mail just now.
    sql`${bookings.timeSetAt} <= ${bookings.startsAt} - make_interval(hours => ${window.hoursBefore})`,
  )!;

/** Bookings whose reminder e-mail is due at `now`, of businesses that send them, not yet sent for their time. */
export async function bookingsDueEmailReminder(db: Db, now: Date, window: ReminderWindow, limit: number) {
  return db
    .select({ id: bookings.id })
    .from(bookings)
    .innerJoin(businesses, eq(businesses.id, bookings.businessId))
    .where(
      and(
        remindable(now, window),
        eq(businesses.reminderEmail, true),
        isNotNull(bookings.customerEmail),
        sql`${bookings.reminderEmailFor} is distinct from ${bookings.startsAt}`,
      ),
    )
    .orderBy(asc(bookings.startsAt))
    .limit(limit);
}

/**
 * Records that the booking's reminder e-mail goes now, for its current time: the booking, or null
 * when it went already, the booking changed meanwhile, or it is no longer of use. Inside the
 * transaction that queues the e-mail, so the record and the e-mail commit together.
 */
export async function claimEmailReminder(db: Db, bookingId: number, now: Date, window: ReminderWindow) {
  const [row] = await db
    .update(bookings)
    .set({ reminderEmailFor: sql`${bookings.startsAt}` })
    .where(
      and(
        eq(bookings.id, bookingId),
        remindable(now, window),
        isNotNull(bookings.customerEmail),
        sql`${bookings.reminderEmailFor} is distinct from ${bookings.startsAt}`,
      ),
    )
    .returning();
  return row ?? null;
}

/** A reminder call is of use until this long before the appointment: later, the customer is on the way. */
export const REMINDER_CALL_LATEST_MINUTES = 30;

/** The reminder call's hours (the business's setting) before the booking's start, in SQL. */
const reminderCallHours = sql`(select ${businesses.reminderCallHours} from ${businesses} where ${businesses.id} = ${bookings.businessId})`;

/**
 * The live bookings whose AI reminder call is due at `now` and not yet queued for their time: of a
 * business that chose N hours, starting within N hours but more than half an hour from now, told
 * their time before the N hours began (one made or moved within them just had its confirmation
 * call), and with no confirmation call of theirs still under way (the reminder waits for it).
 */
const reminderCallDue = (now: Date) =>
  and(
    inArray(bookings.status, ["pending", "confirmed"]),
    gt(bookings.startsAt, new Date(now.getTime() + REMINDER_CALL_LATEST_MINUTES * 60_000)),
    // The longest setting bounds the read to the next day (the starts_at index).
    lte(bookings.startsAt, new Date(now.getTime() + 24 * 3_600_000)),
    sql`${bookings.startsAt} <= ${now.toISOString()}::timestamptz + make_interval(hours => ${reminderCallHours})`,
    sql`${bookings.timeSetAt} <= ${bookings.startsAt} - make_interval(hours => ${reminderCallHours})`,
    sql`${bookings.reminderCallFor} is distinct from ${bookings.startsAt}`,
    sql`not exists (select 1 from ${calls} where ${calls.bookingId} = ${bookings.id} and ${calls.purpose} = 'booking_confirmation'
      and ${calls.status} in ('queued', 'initiated', 'ringing', 'in-progress'))`,
  )!;

/** Bookings whose reminder call is due at `now` (after `afterId`, in id order), with their business's zone. */
export async function bookingsDueCallReminder(db: Db, now: Date, afterId: number, limit: number) {
  return db
    .select({ id: bookings.id, timeZone: businesses.timeZone })
    .from(bookings)
    .innerJoin(businesses, eq(businesses.id, bookings.businessId))
    .where(and(isNotNull(businesses.reminderCallHours), gt(bookings.id, afterId), reminderCallDue(now)))
    .orderBy(asc(bookings.id))
    .limit(limit);
}

/**
 * Records that the booking's reminder call is queued now, for its current time: the booking, or
 * null when it was already, the booking changed meanwhile, or the call is no longer of use. Inside
 * the transaction that queues the call, so the record and the call commit together (two processes
 * scanning at once: the second waits for the first's row lock, then finds it claimed).
 */
export async function claimCallReminder(db: Db, bookingId: number, now: Date) {
  const [row] = await db
    .update(bookings)
    .set({ reminderCallFor: sql`${bookings.startsAt}` })
    .where(and(eq(bookings.id, bookingId), reminderCallDue(now)))
    .returning();
  return row ?? null;
}

/**
 * Pending bookings still waiting for their confirmation call that have none for their current
 * round, made or moved at least `olderThanSeconds` ago: the job that should have asked for it
 * never did (it ran out of retries). Only bookings still ahead.
 */
export async function bookingsMissingConfirmationCall(db: Db, olderThanSeconds: number, now = new Date()) {
  return db
    .select({ id: bookings.id, confirmationRound: bookings.confirmationRound })
    .from(bookings)
    .where(
      and(
        eq(bookings.status, "pending"),
        // "scheduled": told to wait for calling hours when it was made or moved (ownerCallStateOf).
        inArray(bookings.callState, ["queued", "scheduled"]),
        gt(bookings.startsAt, now),
        lt(bookings.timeSetAt, new Date(now.getTime() - olderThanSeconds * 1000)),
        sql`not exists (select 1 from ${calls} where ${calls.bookingId} = ${bookings.id} and ${calls.confirmationRound} = ${bookings.confirmationRound})`,
      ),
    )
    .limit(500);
}

/**
 * The bookings of a business that start in [from, to), soonest first, with their service's name:
 * the owner's day and week views. Cancelled bookings are left out unless asked for.
 */
export async function listBookingsStartingBetween(
  db: Db,
  businessId: number,
  range: { from: Date; to: Date },
  options: { cancelled?: boolean } = {},
) {
  return db
    .select({ booking: bookings, serviceName: businessServices.name })
    .from(bookings)
    .innerJoin(businessServices, eq(bookings.serviceId, businessServices.id))
    .where(
      and(
        eq(bookings.businessId, businessId),
        gte(bookings.startsAt, range.from),
        lt(bookings.startsAt, range.to),
        ...(options.cancelled ? [] : [ne(bookings.status, "cancelled")]),
      ),
    )
    .orderBy(asc(bookings.startsAt), asc(bookings.id));
}
