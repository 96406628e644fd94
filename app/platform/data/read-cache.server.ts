/**
 * Answers read often and changed rarely (a business's free slots for a day), kept for a few
 * seconds and dropped whenever any process writes (see cache-sync.server.ts): a write shows
 * everywhere within a second, and an answer older than the TTL is never served. Nothing here is a promise: the booking guarantee is
 * checked again inside the booking's own transaction, so a slot shown free a moment too long is
 * refused with the usual "just taken" answer, never double-booked.
 *
 * Concurrent reads of one key share one computation.
 */
export interface ReadCache {
  get<T>(key: string, compute: () => Promise<T>): Promise<T>;
  /** The answer for `key` if one is ready and still within its time; never computes. */
  peek<T>(key: string): T | undefined;
  clear(): void;
}

type Entry = { expires: number; value: Promise<unknown>; settled?: { value: unknown } };

export function createReadCache(options: { ttlMs: number; maxEntries?: number; now?: () => number }): ReadCache {
  const entries = new Map<string, Entry>();
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;

  /** Computes and stores at once, so a clear while it runs drops it: an answer older than a write is never kept. */
  function fill<T>(key: string, compute: () => Promise<T>) {
    if (entries.size >= maxEntries && !entries.has(key)) entries.delete(entries.keys().next().value!);
    const value = compute();
    const entry: Entry = { expires: now() + options.ttlMs, value };
    entries.set(key, entry);
    value.then(
      (result) => (entry.settled = { value: result }),
      // A failure is not kept: the next read tries again.
      () => {
        if (entries.get(key) === entry) entries.delete(key);
      },
    );
    return entry;
  }

  return {
    get<T>(key: string, compute: () => Promise<T>) {
      const found = entries.get(key);
      // An answer past its time is never served: the first reader after it computes a fresh one,
      // and everyone asking meanwhile shares that computation.
      if (found && found.expires > now()) return found.value as Promise<T>;
      return fill(key, compute).value as Promise<T>;
    },
    peek<T>(key: string) {
      const found = entries.get(key);
      return found?.settled && found.expires > now() ? (found.settled.value as T) : undefined;
    },
    clear() {
      entries.clear();
    },
  };
}
