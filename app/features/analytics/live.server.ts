import { log } from "~/platform/observability/log.server";
import { BUSINESS_CHANGES_CHANNEL } from "#models/analytics";
import type { DatabaseHandle } from "~/platform/db.server";
import type { AppServices } from "~/platform/services.server";
import { perKey } from "~/lib/sharing/per-key";

type Listener = () => void;

interface Hub {
  listeners: Map<number, Set<Listener>>;
  /** Settles once this process listens on the channel; a failure is logged and retried by the next subscriber. */
  ready: Promise<boolean>;
}

/**
 * One LISTEN per database handle (so per process), fanned out in memory to the open analytics
 * pages of each business: a thousand open pages cost one connection and no query until a
 * booking or call of their business changes.
 */
const hubOf = perKey((database: DatabaseHandle): Hub => {
  const listeners = new Map<number, Set<Listener>>();
  return {
    listeners,
    ready: database
      .listen(BUSINESS_CHANGES_CHANNEL, (payload) => {
        for (const listener of listeners.get(Number(payload)) ?? []) listener();
      })
      .then(
        () => true,
        (error: Error) => {
          log.error("Live analytics are off: could not listen for changes: %s", error.message);
          hubOf.forget(database);
          return false;
        },
      ),
  };
});

/**
 * Calls `listener` whenever a booking or confirmation call of the business changes (in any
 * process sharing the database), once per burst of changes within `settleMs`. Returns the way to
 * stop, and whether listening works.
 */
export async function followBusiness(services: AppServices, businessId: number, listener: Listener, settleMs = 300) {
  const hub = hubOf(services.database);
  let timer: NodeJS.Timeout | null = null;
  const onChange = () => {
    // A burst (a booking, its e-mails' jobs, its call placed) becomes one refresh.
    timer ??= setTimeout(() => {
      timer = null;
      listener();
    }, settleMs);
  };
  const set = hub.listeners.get(businessId) ?? new Set<Listener>();
  set.add(onChange);
  hub.listeners.set(businessId, set);
  const listening = await hub.ready;
  return {
    listening,
    stop() {
      if (timer) clearTimeout(timer);
      set.delete(onChange);
      if (set.size === 0 && hub.listeners.get(businessId) === set) hub.listeners.delete(businessId);
    },
  };
}
