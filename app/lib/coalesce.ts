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
 * (the requests the server has already read run meanwhile, up to the same point).
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
