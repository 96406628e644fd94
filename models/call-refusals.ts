import { and, desc, eq, gte, like } from "drizzle-orm";
import type { Db } from "./db";
import { callRefusals } from "./schema";

export type NewCallRefusal = typeof callRefusals.$inferInsert;

/** Records one number the dialling policy refused (hashes only, never the raw number or address). */
export async function recordCallRefusal(db: Db, refusal: NewCallRefusal) {
  await db.insert(callRefusals).values(refusal);
}

/** The latest refusals, newest first, for the admin. */
export async function listCallRefusals(db: Db, limit = 100) {
  return db.select().from(callRefusals).orderBy(desc(callRefusals.createdAt)).limit(limit);
}

/** The confirmation calls a business's plan refused since `start`, newest first, for the owner. */
export async function listPlanRefusalsSince(db: Db, businessId: number, start: Date, limit = 10) {
  return db
    .select()
    .from(callRefusals)
    .where(and(eq(callRefusals.businessId, businessId), like(callRefusals.reason, "plan\\_%"), gte(callRefusals.createdAt, start)))
    .orderBy(desc(callRefusals.createdAt))
    .limit(limit);
}
