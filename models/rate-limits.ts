import { sql } from "drizzle-orm";
import type { Db } from "./db";

export interface RateLimitResult {
  allowed: boolean;
  hits: number;
  retryAfterSeconds: number;
}

/**
 * Counts one hit against `key` in a fixed window and says whether it is within `limit`.
 * A single upsert, so concurrent requests in any number of processes count exactly.
 */
export async function hitRateLimit(
  db: Db,
  key: string,
  rule: { limit: number; windowSeconds: number },
  now: Date = new Date(),
): Promise<RateLimitResult> {
  const [result] = await hitRateLimits(db, [{ key, ...rule }], now);
  return result!;
}

/**
 * Counts one hit against each key, every one in its own fixed window, in one statement (one
 * upsert per key, as data-modifying CTEs): a request limited by its address and its phone number
 * costs one round trip, not two, and so do the hits of many requests at once. The results come in
 * the order of `hits`; every hit is counted. A key named n times is counted n times, as if one
 * after the other: its row gains n, and its k-th hit is told the count its row had after it. Its
 * window is the one its first hit names.
 */
export async function hitRateLimits(
  db: Db,
  hits: { key: string; limit: number; windowSeconds: number }[],
  now: Date = new Date(),
): Promise<RateLimitResult[]> {
  if (hits.length === 0) return [];
  const keys = new Map<string, { windowSeconds: number; count: number }>();
  const occurrence = hits.map(({ key, windowSeconds }) => {
    const seen = keys.get(key) ?? { windowSeconds, count: 0 };
    keys.set(key, seen);
    return ++seen.count;
  });
  const at = now.toISOString();
  const upserts = [...keys].map(([key, { windowSeconds, count }], index) => {
    const windowStart = new Date(now.getTime() - windowSeconds * 1000).toISOString();
    return sql`${sql.raw(`hit${index}`)} AS (
      INSERT INTO rate_limits (key, window_started_at, hits) VALUES (${key}, ${at}, ${count})
      ON CONFLICT (key) DO UPDATE SET
        hits = CASE WHEN rate_limits.window_started_at <= ${windowStart}::timestamptz
                    THEN ${count} ELSE rate_limits.hits + ${count} END,
        window_started_at = CASE WHEN rate_limits.window_started_at <= ${windowStart}::timestamptz
                    THEN ${at}::timestamptz ELSE rate_limits.window_started_at END
      RETURNING hits, window_started_at)`;
  });
  const selects = [...keys.keys()].map((_, index) => sql.raw(`SELECT ${index} AS i, hits, window_started_at FROM hit${index}`));
  const result = (await db.execute(sql`WITH ${sql.join(upserts, sql`, `)} ${sql.join(selects, sql` UNION ALL `)}`)) as unknown as {
    rows: { i: number; hits: number; window_started_at: string | Date }[];
  };
  const rows = new Map(result.rows.map((row) => [Number(row.i), row]));
  const keyIndex = new Map([...keys.keys()].map((key, index) => [key, index]));
  return hits.map((rule, index) => {
    const row = rows.get(keyIndex.get(rule.key)!)!;
    const { count } = keys.get(rule.key)!;
    const hitsThen = Number(row.hits) - count + occurrence[index]!;
    const startedAt = new Date(row.window_started_at).getTime();
    // Never more than the window: a hit whose clock read came a moment before the window's first
    // hit (concurrent requests) would otherwise be told the window plus a second.
    const retryAfterSeconds = Math.min(
      rule.windowSeconds,
      Math.max(1, Math.ceil((startedAt + rule.windowSeconds * 1000 - now.getTime()) / 1000)),
    );
    return { allowed: hitsThen <= rule.limit, hits: hitsThen, retryAfterSeconds };
  });
}

/** The hits `key` has in its window now, without counting one (0 once its window has ended). */
export async function rateLimitHits(db: Db, key: string, windowSeconds: number, now: Date = new Date()) {
  const windowStart = new Date(now.getTime() - windowSeconds * 1000).toISOString();
  const result = (await db.execute(
    sql`SELECT hits FROM rate_limits WHERE key = ${key} AND window_started_at > ${windowStart}::timestamptz`,
  )) as unknown as { rows: { hits: number }[] };
  return Number(result.rows[0]?.hits ?? 0);
}

/** Drops windows that ended long ago; run by a scheduled job. */
export async function purgeExpiredRateLimits(db: Db, olderThan: Date) {
  await db.execute(sql`DELETE FROM rate_limits WHERE window_started_at < ${olderThan.toISOString()}::timestamptz`);
}

export interface BackoffRule {
  /** Attempts allowed back to back before any wait. */
  freeAttempts: number;
  /** The first wait; each further attempt doubles it. */
  baseSeconds: number;
  maxSeconds: number;
  /** Attempts are forgotten this long after the last one. */
  forgetSeconds: number;
}

/** How long the attempt after the `attempts`-th must wait behind it. */
export function backoffSeconds(attempts: number, rule: BackoffRule) {
  if (attempts < rule.freeAttempts) return 0;
  return Math.min(rule.maxSeconds, rule.baseSeconds * 2 ** Math.min(attempts - rule.freeAttempts, 30));
}

/**
 * Counts one attempt against `key` unless it comes too soon: after `freeAttempts`, each attempt
 * must wait an exponentially growing time behind the previous one. A refused attempt is not
 * counted and does not move the clock, so waiting it out always works. The count is one
 * conditional update, so concurrent attempts are counted exactly. The row keeps the count in
 * `hits` and the last attempt's time in `window_started_at`.
 */
export async function hitBackoff(db: Db, key: string, rule: BackoffRule, now: Date = new Date()) {
  const at = now.toISOString();
  const forgetBefore = new Date(now.getTime() - rule.forgetSeconds * 1000).toISOString();
  await db.execute(sql`
    INSERT INTO rate_limits (key, window_started_at, hits) VALUES (${key}, 'epoch', 0) ON CONFLICT (key) DO NOTHING`);
  const wait = sql`(CASE WHEN hits < ${rule.freeAttempts} THEN 0
    ELSE LEAST(${rule.maxSeconds}, ${rule.baseSeconds} * power(2, LEAST(hits - ${rule.freeAttempts}, 30))) END
    * interval '1 second')`;
  const counted = (await db.execute(sql`
    UPDATE rate_limits SET
      hits = CASE WHEN window_started_at <= ${forgetBefore}::timestamptz THEN 1 ELSE hits + 1 END,
      window_started_at = ${at}::timestamptz
    WHERE key = ${key}
      AND (window_started_at <= ${forgetBefore}::timestamptz OR window_started_at + ${wait} <= ${at}::timestamptz)
    RETURNING hits`)) as unknown as { rows: unknown[] };
  if (counted.rows.length > 0) return { allowed: true, retryAfterSeconds: 0 };
  const current = (await db.execute(sql`SELECT hits, window_started_at FROM rate_limits WHERE key = ${key}`)) as unknown as {
    rows: { hits: number; window_started_at: string | Date }[];
  };
  const row = current.rows[0];
  // Purged between the two statements: nothing counts against this attempt any more.
  if (!row) return { allowed: true, retryAfterSeconds: 0 };
  const last = new Date(row.window_started_at).getTime();
  const retryAfterSeconds = Math.max(1, Math.ceil((last + backoffSeconds(row.hits, rule) * 1000 - now.getTime()) / 1000));
  return { allowed: false, retryAfterSeconds };
}

/** Forgets the attempts counted against `key` (after a success). */
export async function clearRateLimit(db: Db, key: string) {
  await db.execute(sql`DELETE FROM rate_limits WHERE key = ${key}`);
}
