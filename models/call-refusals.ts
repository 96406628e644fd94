import { desc } from "drizzle-orm";
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
