import { and, eq, gt, lt, sql } from "drizzle-orm";
import type { Db } from "./db";
import { liveLeases } from "./schema";

/** Advisory-lock space of the lease counts (bookings use 1001). */
const LEASE_LOCK_SPACE = 1_002;

/**
 * Takes one of `limit` places of `holder` for `kind`, for `ttlSeconds` unless renewed; null when
 * all are taken by leases that have not expired. The count and the insert run behind an advisory
 * lock on (kind, holder), in a statement after it, so processes asking at once count each other.
 */
export async function acquireLease(db: Db, lease: { kind: string; holder: string; limit: number; ttlSeconds: number }) {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${LEASE_LOCK_SPACE}, hashtext(${`${lease.kind}:${lease.holder}`}))`);
    await tx
      .delete(liveLeases)
      .where(and(eq(liveLeases.kind, lease.kind), eq(liveLeases.holder, lease.holder), lt(liveLeases.expiresAt, sql`now()`)));
    const inserted = (await tx.execute(sql`
      INSERT INTO live_leases (kind, holder, expires_at)
      SELECT ${lease.kind}, ${lease.holder}, now() + make_interval(secs => ${lease.ttlSeconds})
      WHERE (SELECT count(*) FROM live_leases WHERE kind = ${lease.kind} AND holder = ${lease.holder}) < ${lease.limit}
      RETURNING id`)) as unknown as { rows: { id: number }[] };
    return inserted.rows[0]?.id ?? null;
  });
}

/** Keeps a lease for another `ttlSeconds`; false when it already ran out and was dropped (it stays gone). */
export async function renewLease(db: Db, id: number, ttlSeconds: number) {
  const renewed = await db
    .update(liveLeases)
    .set({ expiresAt: sql`now() + make_interval(secs => ${ttlSeconds})` })
    .where(eq(liveLeases.id, id))
    .returning({ id: liveLeases.id });
  return renewed.length > 0;
}

/** Whether anyone holds a lease of `kind` that has not expired (a heartbeat that is fresh). */
export async function anyLiveLease(db: Db, kind: string) {
  const [row] = await db
    .select({ id: liveLeases.id })
    .from(liveLeases)
    .where(and(eq(liveLeases.kind, kind), gt(liveLeases.expiresAt, sql`now()`)))
    .limit(1);
  return Boolean(row);
}

export async function releaseLease(db: Db, id: number) {
  await db.delete(liveLeases).where(eq(liveLeases.id, id));
}

/** Drops the leases that expired (their holder's process ended without releasing them). */
export async function purgeExpiredLeases(db: Db) {
  await db.delete(liveLeases).where(lt(liveLeases.expiresAt, sql`now()`));
}

/** How many live leases of a kind there are now (bridges' heartbeats: the bridges up). */
export async function liveLeaseCount(db: Db, kind: string) {
  const [row] = await db
    .select({ count: sql<number>`count(*)::int` })
    .from(liveLeases)
    .where(and(eq(liveLeases.kind, kind), gt(liveLeases.expiresAt, sql`now()`)));
  return Number(row?.count ?? 0);
}
