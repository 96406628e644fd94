import type { AppServices } from "~/platform/services.server";

/**
 * Waits until the app's job queue has nothing to do now: no job running, none waiting that is
 * already due (pg-boss's own maintenance jobs aside). Once every request a test made has been
 * answered, this is the moment a duplicate (a second call, a second e-mail) would already have
 * happened: the test can count, instead of sleeping and hoping it waited long enough. Jobs
 * scheduled for later (a retry in ten minutes) do not hold it up. Idle must be seen on two polls
 * in a row, so a job one worker finishes just as it enqueues the next is not missed.
 */
export async function jobsIdle(services: Pick<AppServices, "database">, options: { timeoutMs?: number; queues?: string[] } = {}) {
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  const queues = options.queues ? `AND name = ANY($1)` : "";
  let idleSeen = 0;
  for (;;) {
    const { rows } = await services.database.executeSql(
      `SELECT name, state FROM pgboss.job
        WHERE name NOT LIKE '\\_\\_pgboss%' ${queues}
          AND (state = 'active' OR (state IN ('created', 'retry') AND start_after <= now()))
        LIMIT 5`,
      options.queues ? [options.queues] : [],
    );
    idleSeen = rows.length === 0 ? idleSeen + 1 : 0;
    if (idleSeen >= 2) return;
    if (Date.now() > deadline) throw new Error(`The job queue stayed busy: ${JSON.stringify(rows)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Drives a job through all its retries now: pg-boss waits its retry delay (with backoff: hours
 * for ten retries) before each, so each retry the job is waiting for is made due at once. Resolves
 * once the queue gave up on the job of `queue` whose data has `field` = `key` (its last try failed).
 */
export async function exhaustRetries(
  services: Pick<AppServices, "database">,
  queue: string,
  match: { field: string; key: string },
  options: { timeoutMs?: number } = {},
) {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  for (;;) {
    await services.database.executeSql(
      `UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND data->>$2 = $3 AND state = 'retry' AND start_after > now()`,
      [queue, match.field, match.key],
    );
    const { rows: states } = await services.database.executeSql(`SELECT state FROM pgboss.job WHERE name = $1 AND data->>$2 = $3`, [
      queue,
      match.field,
      match.key,
    ]);
    const all = (states as { state: string }[]).map((row) => row.state);
    if (all.length > 0 && all.every((state) => state === "failed")) return;
    if (Date.now() > deadline) throw new Error(`The ${queue} job for ${match.key} did not run out of retries: ${JSON.stringify(all)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The process dies right after the next transaction on `services.db` whose result `what` picks (a
 * new booking, a move, an activation): the code meant to run after that commit never does, and
 * the commit itself stands. Once only.
 */
export function dieAfterCommitOf(services: Pick<AppServices, "db">, what: (result: unknown) => boolean) {
  const db = services.db as unknown as { transaction: (...args: never[]) => Promise<unknown> };
  const transaction = db.transaction.bind(db);
  db.transaction = async (...args: never[]) => {
    const result = await transaction(...args);
    if (!what(result)) return result;
    delete (db as Partial<typeof db>).transaction;
    throw new Error("process killed after the commit");
  };
}

/** The jobs of `queue` whose data has `field` = `key` that a worker would still run (waiting, retrying or running). */
export async function pendingJobs(services: Pick<AppServices, "database">, queue: string, field: string, key: string) {
  const { rows } = await services.database.executeSql(
    `SELECT id FROM pgboss.job WHERE name = $1 AND data->>$2 = $3 AND state IN ('created', 'retry', 'active')`,
    [queue, field, key],
  );
  return rows;
}
