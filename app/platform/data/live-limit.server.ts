import { limitLabel, rateLimitRefusals } from "~/platform/observability/metrics.server";
import type { Db } from "#models/db";
import { acquireLease, releaseLease, renewLease } from "#models/live-leases";
import { rateLimitKey } from "~/platform/security/rate-limit.server";

/** A held place lasts this long unless renewed: what a crashed process held frees up within it. */
const LEASE_TTL_SECONDS = 60;
const RENEW_EVERY_MS = 20_000;

/** What a refused caller is told to wait: places free up when a session or stream ends, at no set time. */
const LIVE_RETRY_AFTER_SECONDS = 30;

/** Event streams (live pages) one session may hold open of each kind; each one wakes the server every second or so. */
export const EVENT_STREAMS_PER_SESSION = 3;

/** The answer to a live page's stream refused over EVENT_STREAMS_PER_SESSION: the page shows it is not live. */
export function tooManyStreams(message: string) {
  return Response.json(
    { error: message },
    { status: 429, headers: { "Retry-After": String(LIVE_RETRY_AFTER_SECONDS), "Cache-Control": "no-store" } },
  );
}

export interface LiveCap {
  /** What is held, e.g. "voice:address". */
  name: string;
  /** Whose places count: an IP address (counted by its group, see rateLimitKey), a session, a conversation. */
  subject: string;
  limit: number;
}

export interface LiveSlot {
  release(): Promise<void>;
}

/**
 * Takes one of the `limit` places `subject` may hold at once (across every process on the
 * database), kept while the holder lives, or null when they are all taken. Whoever gets a slot
 * must release it when what it holds ends.
 */
export async function holdLiveSlot(services: { db: Db; signingSecret: string }, cap: LiveCap): Promise<LiveSlot | null> {
  const holder = rateLimitKey(services.signingSecret, cap);
  const id = await acquireLease(services.db, { kind: cap.name, holder, limit: cap.limit, ttlSeconds: LEASE_TTL_SECONDS });
  if (id === null) {
    rateLimitRefusals.inc({ limit: limitLabel(cap.name) });
    return null;
  }
  // A renewal or release that fails (the database is away, or closing at shutdown) only lets the
  // lease run out on its own within LEASE_TTL_SECONDS: nothing to report to the holder.
  const renewal = setInterval(() => void renewLease(services.db, id, LEASE_TTL_SECONDS).catch(() => {}), RENEW_EVERY_MS);
  renewal.unref();
  let released = false;
  return {
    async release() {
      if (released) return;
      released = true;
      clearInterval(renewal);
      await releaseLease(services.db, id).catch(() => {});
    },
  };
}
