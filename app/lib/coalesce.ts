/**
 * Work that requests running at the same moment in one process share, so a burst of them (a
 * hundred customers pressing "Book" for one time) costs a few database round trips instead of a
 * few hundred. Nothing is kept once a batch is done: the database stays the only record, and a
 * request that comes later does the work again.
 */

/**
 * Calls `run` once for all the items asked for during one turn of the event loop (until its
 * check phase), with them in the order asked; each caller gets the output at its item's index.
 * When `run` fails, every caller of that batch gets its error. A caller waits one turn at most
 * (the requests the server has already read run meanwhile, up to the same point). A batch that
 * reaches `maxItems` runs at once, and the items after it start the next: a flood of requests
 * never makes one statement too big for the database.
 */
export function batchedCalls<I, O>(run: (items: I[]) => Promise<O[]>, options: { maxItems?: number } = {}): (item: I) => Promise<O> {
  type Batch = { items: { item: I; resolve: (output: O) => void; reject: (error: unknown) => void }[]; sent: boolean };
  const maxItems = options.maxItems ?? Infinity;
  let current: Batch = { items: [], sent: false };
  const flush = (batch: Batch) => {
    if (batch.sent) return;
    batch.sent = true;
    if (batch === current) current = { items: [], sent: false };
    run(batch.items.map((waiting) => waiting.item)).then(
      (outputs) => batch.items.forEach((waiting, index) => waiting.resolve(outputs[index]!)),
      (error: unknown) => batch.items.forEach((waiting) => waiting.reject(error)),
    );
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      const batch = current;
      if (batch.items.length === 0) setImmediate(() => flush(batch));
      batch.items.push({ item, resolve, reject });
      if (batch.items.length >= maxItems) flush(batch);
    });
}
