import { createHash, randomBytes } from "node:crypto";
import { and, asc, desc, eq, gt, lt, ne, sql } from "drizzle-orm";
import type { Db } from "./db";
import { DEADLOCK_DETECTED, EXCLUSION_VIOLATION, SERIALIZATION_FAILURE, UNIQUE_VIOLATION, pgErrorCode } from "./errors";
import { bookings, businessServices } from "./schema";

export type Booking = typeof bookings.$inferSelect;
type BookingStatus = Booking["status"];

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Live bookings that overlap [from, to): what blocks new slots. */
/** No booking lasts a day (services take at most 12 hours): a start earlier than this before `from` cannot reach it. */
const LONGEST_BOOKING_MS = 24 * 3_600_000;

export async function listBusyIntervals(db: Db, businessId: number, from: Date, to: Date) {
  // The lower bound on starts_at lets the (business_id, starts_at) index read the window only,
  // not every past booking of the business.
  const rows = await db
    .select({ start: bookings.startsAt, end: bookings.endsAt })
    .from(bookings)
    .where(
      and(
        eq(bookings.businessId, businessId),
        ne(bookings.status, "cancelled"),
        gt(bookings.startsAt, new Date(from.getTime() - LONGEST_BOOKING_MS)),
        lt(bookings.startsAt, to),
        gt(bookings.endsAt, from),
      ),
    );
  return rows.map((row) => ({ start: row.start.getTime(), end: row.end.getTime() }));
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
  idempotencyKey: string | null;
}

export type CreateBookingResult =
  { kind: "created"; booking: Booking; manageToken: string } | { kind: "duplicate"; booking: Booking } | { kind: "taken" };

/**
 * Inserts the booking. The exclusion constraint, not a prior check, decides who gets a contested
 * time: the loser gets `taken`. A repeated idempotency key returns the booking it already made.
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
        if (existing) return { kind: "duplicate", booking: existing };
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

/** The answer the calendar already gives: the booking this key made, or the time is taken. */
async function settledAnswer(db: Db, input: NewBooking): Promise<CreateBookingResult | null> {
  if (input.idempotencyKey) {
    const existing = await findByIdempotencyKey(db, input.businessId, input.idempotencyKey);
    if (existing) return { kind: "duplicate", booking: existing };
  }
  const [overlap] = await db
    .select({ id: bookings.id })
    .from(bookings)
    .where(
      and(
        eq(bookings.businessId, input.businessId),
        ne(bookings.status, "cancelled"),
        gt(bookings.endsAt, input.startsAt),
        lt(bookings.startsAt, input.endsAt),
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
  const manageToken = randomBytes(24).toString("base64url");
  try {
    const [booking] = await db
      .insert(bookings)
      .values({ ...input, manageTokenHash: hashToken(manageToken), status: "pending" })
      .returning();
    return { kind: "created", booking: booking!, manageToken };
  } catch (error) {
    if (pgErrorCode(error) === EXCLUSION_VIOLATION) return { kind: "taken" };
    throw error;
  }
}

async function findByIdempotencyKey(db: Db, businessId: number, key: string) {
  const [row] = await db
    .select()
    .from(bookings)
    .where(and(eq(bookings.businessId, businessId), eq(bookings.idempotencyKey, key)));
  return row ?? null;
}

export async function findBookingByManageToken(db: Db, token: string) {
  const [row] = await db
    .select()
    .from(bookings)
    .where(eq(bookings.manageTokenHash, hashToken(token)));
  return row ?? null;
}

export async function findBooking(db: Db, bookingId: number) {
  const [row] = await db.select().from(bookings).where(eq(bookings.id, bookingId));
  return row ?? null;
}

/** Cancelling frees the slot at once (the constraint ignores cancelled bookings). */
export async function cancelBooking(db: Db, bookingId: number) {
  const [row] = await db
    .update(bookings)
    .set({ status: "cancelled", updatedAt: new Date() })
    .where(and(eq(bookings.id, bookingId), ne(bookings.status, "cancelled")))
    .returning();
  return row ?? null;
}

/** Moves a booking to another time under the same no-overlap guarantee. */
export async function rescheduleBooking(db: Db, bookingId: number, startsAt: Date, endsAt: Date) {
  try {
    const [row] = await db
      .update(bookings)
      .set({ startsAt, endsAt, status: "pending", callState: "queued", callOutcome: null, updatedAt: new Date() })
      .where(and(eq(bookings.id, bookingId), ne(bookings.status, "cancelled")))
      .returning();
    return row ? ({ kind: "moved", booking: row } as const) : ({ kind: "gone" } as const);
  } catch (error) {
    if (pgErrorCode(error) === EXCLUSION_VIOLATION) return { kind: "taken" } as const;
    throw error;
  }
}

export async function setBookingStatus(db: Db, bookingId: number, status: BookingStatus, outcome?: string) {
  const [row] = await db
    .update(bookings)
    .set({ status, ...(outcome ? { callOutcome: outcome } : {}), updatedAt: new Date() })
    .where(eq(bookings.id, bookingId))
    .returning();
  return row ?? null;
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

/** The owner's list: upcoming first (soonest first), or past (latest first). */
export async function listBusinessBookings(db: Db, businessId: number, when: "upcoming" | "past", now = new Date(), limit = 50) {
  return db
    .select({ booking: bookings, serviceName: businessServices.name })
    .from(bookings)
    .innerJoin(businessServices, eq(bookings.serviceId, businessServices.id))
    .where(and(eq(bookings.businessId, businessId), when === "upcoming" ? gt(bookings.endsAt, now) : lt(bookings.endsAt, now)))
    .orderBy(when === "upcoming" ? asc(bookings.startsAt) : desc(bookings.startsAt))
    .limit(limit);
}
