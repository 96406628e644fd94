import { and, eq, ne, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { pgErrorCode, UNIQUE_VIOLATION } from "./errors";
import { businessNumbers } from "./schema";

export type BusinessNumber = typeof businessNumbers.$inferSelect;
export type ReceptionistMode = BusinessNumber["receptionistMode"];

/** What the owner may change once the number is connected. */
export type BusinessNumberSettings = Pick<
  BusinessNumber,
  "receptionistMode" | "transferNumber" | "transferWithinHours" | "maxConcurrentCalls" | "maxCallsPerCallerPerDay"
>;

/** The business's own number, or null when it has none. */
export async function findBusinessNumber(db: Db, businessId: number) {
  const [row] = await db.select().from(businessNumbers).where(eq(businessNumbers.businessId, businessId));
  return row ?? null;
}

/** The business a number (E.164, as an inbound call's `To` gives it) belongs to, or null. */
export async function findBusinessNumberByPhone(db: Db, phoneNumber: string) {
  const [row] = await db.select().from(businessNumbers).where(eq(businessNumbers.phoneNumber, phoneNumber));
  return row ?? null;
}

/** The numbers (E.164) and provider SIDs other businesses have connected: not offered to this one. */
export async function numbersTakenByOthers(db: Db, businessId: number) {
  return db
    .select({ phoneNumber: businessNumbers.phoneNumber, providerSid: businessNumbers.providerSid })
    .from(businessNumbers)
    .where(ne(businessNumbers.businessId, businessId));
}

export type ConnectResult =
  | { ok: true; number: BusinessNumber }
  /** `taken`: another business has this number; `has_number`: this business already has one. */
  | { ok: false; problem: "taken" | "has_number" };

/**
 * Connects a number to a business: one number per business, one business per number. The unique
 * keys decide a race between two owners (the loser is told `taken`), not a read before the write.
 */
export async function connectBusinessNumber(
  db: Db,
  connection: { businessId: number; phoneNumber: string; providerSid: string },
): Promise<ConnectResult> {
  const existing = await db
    .select({ businessId: businessNumbers.businessId })
    .from(businessNumbers)
    .where(
      or(
        eq(businessNumbers.businessId, connection.businessId),
        eq(businessNumbers.phoneNumber, connection.phoneNumber),
        eq(businessNumbers.providerSid, connection.providerSid),
      ),
    );
  if (existing.some((row) => row.businessId !== connection.businessId)) return { ok: false, problem: "taken" };
  if (existing.length > 0) return { ok: false, problem: "has_number" };
  try {
    const [number] = await db.insert(businessNumbers).values(connection).returning();
    return { ok: true, number: number! };
  } catch (error) {
    if (pgErrorCode(error) !== UNIQUE_VIOLATION) throw error;
    const mine = await findBusinessNumber(db, connection.businessId);
    return { ok: false, problem: mine && mine.providerSid !== connection.providerSid ? "has_number" : "taken" };
  }
}

/** The receptionist's settings of the business's number; null when it has none. */
export async function updateBusinessNumberSettings(db: Db, businessId: number, settings: BusinessNumberSettings) {
  const [row] = await db
    .update(businessNumbers)
    .set({ ...settings, updatedAt: sql`now()` })
    .where(eq(businessNumbers.businessId, businessId))
    .returning();
  return row ?? null;
}

/** Disconnects the business's number (only its own: `providerSid` must match); the removed row, or null. */
export async function disconnectBusinessNumber(db: Db, businessId: number, providerSid?: string) {
  const [row] = await db
    .delete(businessNumbers)
    .where(
      providerSid
        ? and(eq(businessNumbers.businessId, businessId), eq(businessNumbers.providerSid, providerSid))
        : eq(businessNumbers.businessId, businessId),
    )
    .returning();
  return row ?? null;
}
