import { log } from "~/platform/observability/log.server";
import { sql } from "drizzle-orm";
import { BUSINESS_CHANGES_CHANNEL } from "#models/analytics";
import type { DatabaseHandle } from "../db.server";

/**
 * The PostgreSQL channel on which a process says "I wrote something": every process sharing the
 * database (this one too) then empties its page and read caches, so a change made on one process
 * shows on every other within a second, not after the caches' few seconds. A business's bookings
 * and calls changing (announced on BUSINESS_CHANGES_CHANNEL, also by jobs and the bridge process)
 * empties them as well. A notification lost while a LISTEN connection reconnects costs no more
 * than the caches' own time limit.
 */
export const CACHE_CHANGES_CHANNEL = "sakina_cache_changes";

/** Calls `clear` whenever any process sharing the database wrote; false when listening failed. */
export async function followCacheChanges(database: DatabaseHandle, clear: () => void) {
  try {
    await database.listen(CACHE_CHANGES_CHANNEL, clear);
    await database.listen(BUSINESS_CHANGES_CHANNEL, clear);
    return true;
  } catch (error) {
    log.error("Caches follow other processes' writes only by their time limit: could not listen: %s", (error as Error).message);
    return false;
  }
}

/**
 * Tells every process (this one too) that writes have finished: their cached pages and reads go.
 * The first write's notice goes at once; the writes answered in the next `intervalMs` share one
 * notice at its end, so a burst of a hundred bookings costs a few notices, not a hundred queries.
 * Every write is still followed by a notice sent after it was answered, within `intervalMs`; this
 * process empties its own caches at once (`clearHere`). `stop()` drops a notice still waiting and
 * waits for the ones on their way.
 */
export function writeAnnouncer(
  database: DatabaseHandle,
  options: { clearHere: () => void; onError: (error: Error) => void; intervalMs?: number },
) {
  const intervalMs = options.intervalMs ?? 50;
  let lastSent = -Infinity;
  let waiting: NodeJS.Timeout | null = null;
  // Notices on their way: stop() waits for them, so none is still using the database it closes.
  const inFlight = new Set<Promise<unknown>>();
  let stopped = false;
  const send = () => {
    lastSent = performance.now();
    const sent = database.db
      .execute(sql`select pg_notify(${CACHE_CHANGES_CHANNEL}, '')`)
      .catch(options.onError)
      .finally(() => inFlight.delete(sent));
    inFlight.add(sent);
  };
  return {
    announce() {
      options.clearHere();
      // Shut down: the database is closing, and the other processes hear of nothing more from here.
      if (waiting || stopped) return;
      const wait = lastSent + intervalMs - performance.now();
      if (wait <= 0) return send();
      waiting = setTimeout(() => {
        waiting = null;
        send();
      }, wait);
    },
    /** Drops a notice still waiting and waits for those already sent. */
    async stop() {
      stopped = true;
      if (waiting) clearTimeout(waiting);
      waiting = null;
      await Promise.allSettled([...inFlight]);
    },
  };
}
