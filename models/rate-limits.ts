import { sql } from "drizzle-orm";
import type { Db } from "~/server/db.server";

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
  const windowStart = new Date(now.getTime() - rule.windowSeconds * 1000).toISOString();
  const at = now.toISOString();
  const result = (await db.execute(sql`
    INSERT INTO rate_limits (key, window_started_at, hits) VALUES (${key}, ${at}, 1)
    ON CONFLICT (key) DO UPDATE SET
      hits = CASE WHEN rate_limits.window_started_at <= ${windowStart}::timestamptz
                  THEN 1 ELSE rate_limits.hits + 1 END,
      window_started_at = CASE WHEN rate_limits.window_started_at <= ${windowStart}::timestamptz
                  THEN ${at}::timestamptz ELSE rate_limits.window_started_at END
    RETURNING hits, window_started_at`)) as unknown as {
    rows: { hits: number; window_started_at: string | Date }[];
  };
  const row = result.rows[0]!;
  const startedAt = new Date(row.window_started_at).getTime();
  const retryAfterSeconds = Math.max(
    1,
    Math.ceil((startedAt + rule.windowSeconds * 1000 - now.getTime()) / 1000),
  );
  return { allowed: row.hits <= rule.limit, hits: row.hits, retryAfterSeconds };
}

/** Drops windows that ended long ago; run by a scheduled job. */
export async function purgeExpiredRateLimits(db: Db, olderThan: Date) {
  await db.execute(sql`DELETE FROM rate_limits WHERE window_started_at < ${olderThan.toISOString()}::timestamptz`);
}
