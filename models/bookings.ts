import { createHash, randomBytes } from "node:crypto";
import { and, asc, desc, eq, gt, lt, ne } from "drizzle-orm";
import type { Db } from "~/server/db.server";
import { EXCLUSION_VIOLATION, UNIQUE_VIOLATION, pgErrorCode } from "./errors";
import { bookings, businessServices } from "./schema";

export type Booking = typeof bookings.$inferSelect;
type BookingStatus = Booking["status"];

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

/** Live bookings that overlap [from, to): what blocks new slots. */
export async function listBusyIntervals(db: Db, businessId: number, from: Date, to: Date) {
  const rows = await db
    .select({ start: bookings.startsAt, end: bookings.endsAt })
    .from(bookings)
    .where(and(eq(bookings.businessId, businessId), ne(bookings.status, "cancelled"), gt(bookings.endsAt, from), lt(bookings.startsAt, to)));
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
  | { kind: "created"; booking: Booking; manageToken: string }
  | { kind: "duplicate"; booking: Booking }
  | { kind: "taken" };

/**
 * Inserts the booking. The exclusion constraint, not a prior check, decides who gets a contested
 * time: the loser gets `taken`. A repeated idempotency key returns the booking it already made.
 */
export async function createBooking(db: Db, input: NewBooking): Promise<CreateBookingResult> {
  if (input.idempotencyKey) {
    const existing = await findByIdempotencyKey(db, input.businessId, input.idempotencyKey);
    if (existing) return { kind: "duplicate", booking: existing };
  }
  const manageToken = randomBytes(24).toString("base64url");
  try {
    const [booking] = await db
      .insert(bookings)
      .values({ ...input, manageTokenHash: hashToken(manageToken), status: "pending" })
      .returning();
    return { kind: "created", booking: booking!, manageToken };
  } catch (error) {
    const code = pgErrorCode(error);
    if (code === EXCLUSION_VIOLATION) return { kind: "taken" };
    if (code === UNIQUE_VIOLATION && input.idempotencyKey) {
      const existing = await findByIdempotencyKey(db, input.businessId, input.idempotencyKey);
      if (existing) return { kind: "duplicate", booking: existing };
    }
    throw error;
  }
}

async function findByIdempotencyKey(db: Db, businessId: number, key: string) {
  const [row] = await db.select().from(bookings).where(and(eq(bookings.businessId, businessId), eq(bookings.idempotencyKey, key)));
  return row ?? null;
}

export async function findBookingByManageToken(db: Db, token: string) {
  const [row] = await db.select().from(bookings).where(eq(bookings.manageTokenHash, hashToken(token)));
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
