/**
 * Work that requests running at the same moment in one process share, so a burst of them (a
 * hundred customers pressing "Book" for one time) costs a few database round trips instead of a
 * few hundred. Neither keeps anything once the work is done: the database stays the only record,
 * and a request that comes later does the work again.
 */

/**
 * Calls `run` once for all the items asked for during one turn of the event loop (until its
 * check phase), with them in the order asked; each caller gets the output at its item's index.
 * When `run` fails, every caller of that batch gets its error.
 */
export function batchedCalls<I, O>(run: (items: I[]) => Promise<O[]>): (item: I) => Promise<O> {
  let queue: { item: I; resolve: (output: O) => void; reject: (error: unknown) => void }[] = [];
  const flush = () => {
    const batch = queue;
    queue = [];
    run(batch.map((waiting) => waiting.item)).then(
      (outputs) => batch.forEach((waiting, index) => waiting.resolve(outputs[index]!)),
      (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      if (queue.length === 0) setImmediate(flush);
      queue.push({ item, resolve, reject });
    });
}

/**
 * One `start()` per key at a time: a caller asking while one is running for the same key gets
 * that one's promise instead of starting its own. For reads where an answer begun a moment before
 * the caller came is as good as its own (a business's name and services), never for a write.
 */
export function sharedWhileRunning<V>(): (key: string, start: () => Promise<V>) => Promise<V> {
  const running = new Map<string, Promise<V>>();
  return (key, start) => {
    const current = running.get(key);
    if (current) return current;
    const promise = start().finally(() => running.delete(key));
    running.set(key, promise);
    return promise;
  };
}
