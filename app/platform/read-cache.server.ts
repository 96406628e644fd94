/**
 * Answers read often and changed rarely (a business's free slots for a day), kept for a few
 * seconds and dropped whenever this process writes anything (see the request handler). Another
 * process's write shows here within the TTL. Nothing here is a promise: the booking guarantee is
 * checked again inside the booking's own transaction, so a slot shown free a moment too long is
 * refused with the usual "just taken" answer, never double-booked.
 *
 * Concurrent reads of one key share one computation.
 */
export interface ReadCache {
  get<T>(key: string, compute: () => Promise<T>): Promise<T>;
  clear(): void;
}

export function createReadCache(options: { ttlMs: number; maxEntries?: number; now?: () => number }): ReadCache {
  const entries = new Map<string, { expires: number; value: Promise<unknown> }>();
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 1000;
  return {
    get<T>(key: string, compute: () => Promise<T>) {
      const found = entries.get(key);
      if (found && found.expires > now()) return found.value as Promise<T>;
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      // Stored at once, so a clear while it runs drops it: an answer older than a write is never kept.
      const value = compute();
      entries.set(key, { expires: now() + options.ttlMs, value });
      // A failure is not kept: the next read tries again.
      value.catch(() => {
        if (entries.get(key)?.value === value) entries.delete(key);
      });
      return value;
    },
    clear() {
      entries.clear();
    },
  };
}
