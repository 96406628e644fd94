import { and, eq, gt, isNotNull, lt, ne, sql } from "drizzle-orm";
import type { Db } from "./db";
import { rowFromJson } from "./json-rows";
import { preparedPerDb } from "./prepared";
import { accounts, businesses, sessions } from "./schema";

export type Session = typeof sessions.$inferSelect;

/** Opens a session; the account's sessions that have already expired are dropped on the way. */
export async function createSession(
  db: Db,
  input: { idHash: string; expiresAt: Date } & ({ accountId: number } | { subscriberId: number }),
  now = new Date(),
) {
  const owner = "accountId" in input ? eq(sessions.accountId, input.accountId) : eq(sessions.subscriberId, input.subscriberId);
  await db.delete(sessions).where(and(owner, lt(sessions.expiresAt, now)));
  await db.insert(sessions).values({ ...input, createdAt: now, lastSeenAt: now });
}

/** The live session with this id hash when it belongs to a subscriber: its subscriber's id. */
export async function findSubscriberSession(db: Db, idHash: string, now = new Date()) {
  const [row] = await db
    .select({ subscriberId: sessions.subscriberId, lastSeenAt: sessions.lastSeenAt })
    .from(sessions)
    .where(and(eq(sessions.idHash, idHash), gt(sessions.expiresAt, now), isNotNull(sessions.subscriberId)));
  return row?.subscriberId ? { subscriberId: row.subscriberId, lastSeenAt: row.lastSeenAt } : null;
}

/**
 * The live session with this id hash, its account and the account's business (null for an
 * account without one), or null when it is unknown or expired. The business comes in the same
 * statement: every page of an owner's app needs it, and on PGlite each statement costs a few
 * tenths of a millisecond whatever it reads.
 */
const liveSessionQuery = preparedPerDb((db) =>
  db
    // Each row as one JSON value: its 54 columns as fields cost PGlite half a millisecond more (models/json-rows.ts).
    .select({
      session: sql<Record<string, unknown>>`row_to_json(${sessions})`,
      account: sql<Record<string, unknown>>`row_to_json(${accounts})`,
      business: sql<Record<string, unknown> | null>`row_to_json(${businesses})`,
    })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .leftJoin(businesses, eq(businesses.id, accounts.businessId))
    .where(and(eq(sessions.idHash, sql.placeholder("idHash")), gt(sessions.expiresAt, sql.placeholder("now"))))
    .prepare("live_session"),
);

export async function findLiveSession(db: Db, idHash: string, now = new Date()) {
  const [row] = await liveSessionQuery(db).execute({ idHash, now: now.toISOString() });
  if (!row) return null;
  return {
    session: rowFromJson(sessions, row.session),
    account: rowFromJson(accounts, row.account),
    business: row.business ? rowFromJson(businesses, row.business) : null,
  };
}

export async function touchSession(db: Db, idHash: string, now = new Date()) {
  await db.update(sessions).set({ lastSeenAt: now }).where(eq(sessions.idHash, idHash));
}

export async function deleteSession(db: Db, idHash: string) {
  await db.delete(sessions).where(eq(sessions.idHash, idHash));
}

/** Ends every session of the account, or every one but `except` (the browser that asked). */
export async function deleteAccountSessions(db: Db, accountId: number, options: { except?: string } = {}) {
  await db.delete(sessions).where(and(eq(sessions.accountId, accountId), options.except ? ne(sessions.idHash, options.except) : undefined));
}

/** Ends every session of the subscriber, in every browser. */
export async function deleteSubscriberSessions(db: Db, subscriberId: number) {
  await db.delete(sessions).where(eq(sessions.subscriberId, subscriberId));
}

/** Drops sessions that have expired; for a scheduled clean-up. */
export async function purgeExpiredSessions(db: Db, now = new Date()) {
  await db.delete(sessions).where(lt(sessions.expiresAt, now));
}
