import { errorFields, log, withLogContext } from "~/platform/observability/log.server";
import { jobRuns } from "~/platform/observability/metrics.server";
import { fromPglite, PgBoss } from "pg-boss";
import type { DatabaseHandle, Db } from "~/platform/db.server";
import { keyedHash, seal, unseal } from "~/platform/security/secret.server";
import { adoptPgBoss10Jobs, setAsidePgBoss10Schema } from "./pg-boss-10-upgrade.server";

/**
 * A job kind: its queue name, how it retries, and what it does. Handlers must be safe to run
 * twice for the same job (a process can die after the work but before the job is marked done).
 */
export interface JobDefinition<Data extends object, Services = unknown> {
  name: string;
  retryLimit: number;
  retryDelaySeconds: number;
  /**
   * A job still active this long after it started is failed and retried: its worker died (a
   * crash, a kill) mid-way. The queue checks every MAINTENANCE_SECONDS. Default: pg-boss's 15 minutes.
   */
  expireInSeconds?: number;
  /**
   * The data holds secrets or personal details (an e-mail with its sign-in links, a temporary
   * password): it is stored sealed (see secret.server.ts), so a plain SELECT over the queue's
   * tables opens nothing, and it is erased from the job once the handler succeeded, so pg-boss's
   * finished jobs keep no copy. `owner` names whose it is (stored as a keyed hash),
   * so `discard` can find a person's jobs without opening any.
   */
  sealed?: { owner(data: Data): string };
  /**
   * How many jobs of this kind one process runs at once (default 1, one after the other). A kind
   * whose job waits on a slow provider (a dial) runs several, so one hanging request does not
   * hold back the others; a global limit, if any, is the handler's to keep (in the database).
   */
  concurrency?: (services: Services) => number;
  handle(data: Data, services: Services): Promise<void>;
}

export interface Jobs {
  enqueue<Data extends object>(
    definition: JobDefinition<Data, never>,
    data: Data,
    options?: {
      startAfter?: Date;
      singletonKey?: string;
      /**
       * A Drizzle transaction: the job is inserted inside it, so it exists if and only if the
       * transaction commits (the row that needs the work and the work itself, together).
       */
      tx?: Db;
    },
  ): Promise<string | null>;
  /**
   * Deletes the jobs of a sealed kind that belong to `owner` and have not run (waiting, retrying
   * or given up): an account being deleted leaves nothing of its own in the queue. A job running
   * right now finishes. Returns how many went.
   */
  discard(definition: JobDefinition<object, never>, owner: string): Promise<number>;
  /**
   * Of these keys (the value of `field` in a kind's job data), the ones whose latest job of that
   * kind ran out of retries, with no job of theirs waiting, retrying or running: work the queue
   * will not do any more (a failed job stays in the queue's table until it is deleted, within a day).
   */
  givenUp(definition: JobDefinition<object, never>, field: string, keys: string[]): Promise<{ key: string; error: string }[]>;
  /** Per queue: jobs due and not taken, retrying, running, given up, and how long the oldest due one has waited (for the metrics). */
  stats(): Promise<{ queue: string; waiting: number; retrying: number; active: number; failed: number; oldestWaitingSeconds: number }[]>;
  /** Asks this process's worker of a kind to fetch now instead of at its next poll. */
  wake(definition: JobDefinition<object, never>): void;
  /** Runs a job kind on a cron schedule (kept in the database; every process may declare it). */
  schedule(definition: JobDefinition<object, never>, cron: string): Promise<void>;
  /** Creates the queues up front: a transaction cannot create one on the embedded database. */
  prepare(definitions: JobDefinition<object, never>[]): Promise<void>;
  /** Runs registered handlers in this process; a server does, a one-off script may not. */
  startWorkers<Services>(definitions: JobDefinition<object, Services>[], services: Services): Promise<void>;
  stop(): Promise<void>;
  boss: PgBoss;
}

/** pg-boss's schema (its default). */
const SCHEMA = "pgboss";

/**
 * How often the queue fails expired jobs, so a job a dead worker held is retried within its expiry
 * plus this: a dial killed mid-request is retried (and finds its call) within a minute of the kill.
 */
export const MAINTENANCE_SECONDS = 5;

/**
 * Finished jobs (done, given up, cancelled) leave the database within a day: the privacy page
 * promises contact details of anonymous calls are gone 24 hours after the call (e-mail jobs are
 * erased as soon as they are sent). Deleted 22 hours after they finished, looked for hourly.
 */
const QUEUE_DEFAULTS = { deleteAfterSeconds: 22 * 3600 };
const DELETION_CHECK_SECONDS = 3600;

/**
 * How often a kind's worker asks for work on its own. The due check (`watchDueJobs`) wakes it as
 * soon as a job is due, so this is only a safety net.
 */
const WORKER_POLL_SECONDS = 30;

/** The key of a sealed job's data; the owner's keyed hash uses the same purpose. */
const SEAL_PURPOSE = "job data";

/** A sealed job's data as stored: nothing readable but the owner's keyed hash. */
interface SealedData {
  sealed: string;
  owner: string;
}

export async function startJobQueue(
  database: DatabaseHandle,
  options: { signingSecret: string; pollingIntervalSeconds?: number },
): Promise<Jobs> {
  // Expired jobs are looked for at every supervision pass (pg-boss's "monitor"), deletions hourly.
  // Off: the vacuum check (its findings are only `warning` events, which nothing here reads, and
  // PGlite has no autovacuum), and the flow resolver mostly (the app sends no dependent jobs): each
  // is a statement every pass, through PGlite's one connection. An idle server on PGlite spent
  // 13-15 ms of CPU a second on pg-boss 10, 20-23 on pg-boss 12 as it comes, 18-19 with these
  // (2026-12-02, a loaded machine, one run each).
  const timing = {
    superviseIntervalSeconds: MAINTENANCE_SECONDS,
    monitorIntervalSeconds: MAINTENANCE_SECONDS,
    maintenanceIntervalSeconds: DELETION_CHECK_SECONDS,
    monitorVacuum: false,
    flowIntervalSeconds: 60,
  };
  // PGlite through pg-boss's own adapter: parameterless batches go to exec() (PGlite refuses several
  // statements in one prepared query), every result's rows are kept, and a failed statement's open
  // transaction is rolled back, as a pool would drop its connection.
  const boss = new PgBoss(
    database.pglite
      ? { db: fromPglite(database.pglite), backend: "pglite", ...timing }
      : { connectionString: database.connectionString, max: 4, ...timing },
  );
  // After stop(), a connection the database drops (a shutdown, a test database removed) is not
  // worth reporting; before it, every queue error is.
  let stopped = false;
  boss.on("error", (error) => {
    if (!stopped) log.error(errorFields(error), "Job queue error");
  });
  await setAsidePgBoss10Schema(database, SCHEMA);
  await boss.start();
  await adoptPgBoss10Jobs(database, boss, SCHEMA, QUEUE_DEFAULTS);
  const created = new Set<string>();
  const workerIds = new Map<string, string>();
  const runners = new Map<string, ConcurrentRunner>();
  let dueCheck: { stop(): void } | null = null;
  const wakeQueue = (name: string) => {
    runners.get(name)?.wake();
    const id = workerIds.get(name);
    if (id) boss.notifyWorker(id);
  };

  const ownerKey = (owner: string) => keyedHash(options.signingSecret, SEAL_PURPOSE, owner.trim().toLowerCase());
  const sealData = (definition: JobDefinition<object, never>, data: object): SealedData => ({
    sealed: seal(options.signingSecret, SEAL_PURPOSE, JSON.stringify(data)),
    owner: ownerKey(definition.sealed!.owner(data as never)),
  });
  const openData = (definition: JobDefinition<object, never>, stored: object) => {
    const sealed = (stored as Partial<SealedData>).sealed;
    // Jobs queued before sealing existed (an upgrade with e-mails waiting) are read as they are.
    if (typeof sealed !== "string") return stored;
    const opened = unseal(options.signingSecret, SEAL_PURPOSE, sealed);
    if (opened === null) throw new Error(`A sealed ${definition.name} job cannot be opened: was SESSION_SECRET changed?`);
    return JSON.parse(opened) as object;
  };

  async function ensureQueue(definition: JobDefinition<object, never>) {
    if (created.has(definition.name)) return;
    await boss.createQueue(definition.name, {
      ...QUEUE_DEFAULTS,
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
      ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
    });
    created.add(definition.name);
  }

  return {
    boss,
    async enqueue(definition, data, sendOptions = {}) {
      if (sendOptions.tx) {
        if (!created.has(definition.name)) throw new Error(`Queue ${definition.name} must be prepared before a transactional enqueue`);
      } else {
        await ensureQueue(definition);
      }
      return boss.send(definition.name, definition.sealed ? sealData(definition, data) : data, {
        ...(sendOptions.tx ? { db: transactionExecutor(sendOptions.tx) } : {}),
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: true,
        ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
      });
    },
    async discard(definition, owner) {
      const { rows } = await boss.getDb().executeSql(
        `WITH waiting AS (
           DELETE FROM ${SCHEMA}.job WHERE name = $1 AND data->>'owner' = $2 AND state IN ('created', 'retry', 'failed', 'completed', 'cancelled') RETURNING 1
         )
         SELECT count(*) AS discarded FROM waiting`,
        [definition.name, ownerKey(owner)],
      );
      return Number((rows[0] as { discarded: number | string }).discarded);
    },
    async givenUp(definition, field, keys) {
      if (keys.length === 0) return [];
      const { rows } = await boss.getDb().executeSql(
        `SELECT latest.key, latest.output FROM (
           SELECT DISTINCT ON (data->>$2) data->>$2 AS key, state, output
           FROM ${SCHEMA}.job WHERE name = $1 AND data->>$2 = ANY($3::text[])
           ORDER BY data->>$2, created_on DESC
         ) latest
         WHERE latest.state = 'failed'
           AND NOT EXISTS (SELECT 1 FROM ${SCHEMA}.job j WHERE j.name = $1 AND j.data->>$2 = latest.key AND j.state < 'completed')`,
        [definition.name, field, keys],
      );
      return (rows as { key: string; output: unknown }[]).map((row) => ({ key: row.key, error: jobError(row.output) }));
    },
    wake(definition) {
      wakeQueue(definition.name);
    },
    async stats() {
      // pg-boss 12's states: created (waiting, or scheduled for later), retry, active, completed,
      // cancelled, failed. "Waiting" is a job due now that no worker took yet; its age runs from
      // when it became due.
      const { rows } = await boss.getDb().executeSql(
        `SELECT name,
                count(*) FILTER (WHERE state = 'created' AND start_after <= now()) AS waiting,
                count(*) FILTER (WHERE state = 'retry') AS retrying,
                count(*) FILTER (WHERE state = 'active') AS active,
                count(*) FILTER (WHERE state = 'failed') AS failed,
                coalesce(extract(epoch FROM now() - min(start_after) FILTER (WHERE state IN ('created', 'retry') AND start_after <= now())), 0) AS oldest
         FROM ${SCHEMA}.job GROUP BY name`,
      );
      return (rows as Record<string, string | number>[]).map((row) => ({
        queue: String(row.name),
        waiting: Number(row.waiting),
        retrying: Number(row.retrying),
        active: Number(row.active),
        failed: Number(row.failed),
        oldestWaitingSeconds: Number(row.oldest),
      }));
    },
    async schedule(definition, cron) {
      await ensureQueue(definition);
      await boss.schedule(definition.name, cron, {}, { tz: "UTC" });
    },
    async prepare(definitions) {
      for (const definition of definitions) await ensureQueue(definition);
    },
    async startWorkers(definitions, services) {
      const pollingIntervalSeconds = options.pollingIntervalSeconds ?? 1;
      for (const definition of definitions) {
        await ensureQueue(definition);
        const handle = async (job: { id: string; data: unknown }) => {
          if (!definition.sealed) return definition.handle(job.data as object, services);
          // Erased data is work already done: the process died before the job was marked complete.
          if (job.data === null) return;
          await definition.handle(openData(definition, job.data as object), services);
          await boss.getDb().executeSql(`UPDATE ${SCHEMA}.job SET data = NULL WHERE name = $1 AND id = $2`, [definition.name, job.id]);
        };
        // Every line the job logs names it (and its queue); each run is counted by result.
        const run = (job: { id: string; data: unknown }) =>
          withLogContext({ jobId: job.id, queue: definition.name }, () =>
            handle(job).then(
              () => void jobRuns.inc({ queue: definition.name, result: "completed" }),
              (error: unknown) => {
                jobRuns.inc({ queue: definition.name, result: "failed" });
                // pg-boss retries it while it has tries left (a failure for good shows in sakina_jobs{state="failed"}).
                log.info(errorFields(error), `${definition.name} job failed`);
                throw error;
              },
            ),
          );
        const slots = definition.concurrency?.(services) ?? 1;
        if (slots > 1) {
          runners.set(definition.name, runConcurrently(boss, definition.name, slots, WORKER_POLL_SECONDS * 1000, run));
          continue;
        }
        const id = await boss.work(definition.name, { pollingIntervalSeconds: WORKER_POLL_SECONDS }, async (batch) => {
          for (const job of batch) await run(job);
        });
        workerIds.set(definition.name, id);
      }
      dueCheck = watchDueJobs(boss, [...workerIds.keys(), ...runners.keys()], pollingIntervalSeconds * 1000, wakeQueue, (error) => {
        if (!stopped) log.error(errorFields(error), "Job queue error (due check)");
      });
    },
    async stop() {
      dueCheck?.stop();
      await Promise.all([...runners.values()].map((runner) => runner.stop(5000)));
      await boss.stop({ graceful: true, timeout: 5000 });
      stopped = true;
    },
  };
}

/** The message a failed job's last try ended with, as pg-boss stored it (an error, or its own words for a timeout). */
function jobError(output: unknown) {
  const stored = output as { message?: unknown; value?: unknown } | null;
  const inner = stored?.value;
  const message = stored?.message ?? (typeof inner === "string" ? inner : (inner as { message?: unknown } | undefined)?.message);
  return typeof message === "string" ? message : JSON.stringify(output ?? null);
}

/**
 * One query a poll for all the kinds this process works, waking those with a job due (new, a retry
 * or a scheduled one whose time came; sent by this process or another), instead of each kind's
 * worker fetching on its own: a dozen fetches a second, nearly all finding nothing, each through
 * PGlite's one connection ahead of the pages' queries. An idle server on PGlite spent 26-31 ms of CPU
 * a second; with this check, about 15 ms. A job is still taken within `intervalMs` of being due, as
 * before, and `wake` still has this process's worker fetch at once.
 */
function watchDueJobs(boss: PgBoss, names: string[], intervalMs: number, wake: (name: string) => void, onError: (error: unknown) => void) {
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  const check = async () => {
    try {
      const { rows } = await boss
        .getDb()
        .executeSql(`SELECT DISTINCT name FROM ${SCHEMA}.job WHERE name = ANY($1::text[]) AND state < 'active' AND start_after < now()`, [names]);
      if (!stopped) for (const row of rows as { name: string }[]) wake(row.name);
    } catch (error) {
      onError(error);
    }
    if (!stopped) timer = setTimeout(() => void check(), intervalMs);
  };
  timer = setTimeout(() => void check(), intervalMs);
  return {
    stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
    },
  };
}

interface ConcurrentRunner {
  wake(): void;
  stop(timeoutMs: number): Promise<void>;
}

/**
 * Runs up to `slots` jobs of one kind at once with a single poller (pg-boss's own worker runs a
 * fetched batch to its end before it fetches again, so one slow job would hold back the next):
 * it fetches as many jobs as there are free slots, runs each on its own, completes or fails each
 * as it ends, and fetches again as soon as a slot frees or it is woken. Like pg-boss's worker, a
 * job still running at its expiry is given up here (the queue retries it), so its slot frees.
 */
function runConcurrently(
  boss: PgBoss,
  name: string,
  slots: number,
  intervalMs: number,
  run: (job: { id: string; data: unknown }) => Promise<void>,
): ConcurrentRunner {
  const running = new Set<Promise<unknown>>();
  let stopping = false;
  let nudged = false;
  let interrupt: (() => void) | null = null;
  const wake = () => {
    nudged = true;
    interrupt?.();
  };
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      interrupt = done;
      function done() {
        clearTimeout(timer);
        interrupt = null;
        resolve();
      }
    });
  const start = (job: { id: string; data: unknown; expireInSeconds?: number | string }) => {
    const expiry = Number(job.expireInSeconds ?? 0) * 1000;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      if (expiry > 0) timer = setTimeout(() => reject(new Error(`${name} job ${job.id} ran past its expiry`)), expiry);
    });
    const task = Promise.race([run(job), expired])
      .then(
        () => boss.complete(name, job.id),
        (error: unknown) => boss.fail(name, job.id, error instanceof Error ? { message: error.message } : { value: String(error) }),
      )
      .catch((error: unknown) => {
        if (!stopping) log.error({ ...errorFields(error), queue: name }, `Job queue error (${name})`);
      })
      .finally(() => {
        clearTimeout(timer);
        running.delete(task);
        wake();
      });
    running.add(task);
  };
  const fetchFailed = (error: unknown) => {
    if (!stopping) log.error({ ...errorFields(error), queue: name }, `Job queue error (${name})`);
    return [];
  };
  const loop = (async () => {
    while (!stopping) {
      nudged = false;
      const free = slots - running.size;
      const jobs = free > 0 ? await boss.fetch(name, { batchSize: free }).catch(fetchFailed) : [];
      for (const job of jobs) start(job as { id: string; data: unknown; expireInSeconds?: number });
      // A full batch may have left more waiting; otherwise wait for a slot, a wake or the next poll.
      if (stopping || (free > 0 && jobs.length === free) || nudged) continue;
      await pause(intervalMs);
    }
  })();
  return {
    wake,
    async stop(timeoutMs) {
      stopping = true;
      interrupt?.();
      await loop;
      await Promise.race([Promise.allSettled(running), new Promise((resolve) => setTimeout(resolve, timeoutMs).unref())]);
    },
  };
}

/**
 * pg-boss's `db` option for a Drizzle transaction: its SQL goes through the transaction's own
 * connection (a pg PoolClient, or PGlite's transaction handle), both of which answer `{ rows }`.
 */
function transactionExecutor(tx: Db) {
  const client = (tx as unknown as { session?: { client?: { query?: unknown } } }).session?.client;
  if (!client || typeof client.query !== "function") throw new Error("Not a Drizzle transaction with a SQL client");
  const query = client.query as (text: string, values?: unknown[]) => Promise<{ rows: unknown[] }>;
  return { executeSql: (text: string, values?: unknown[]) => query.call(client, text, values) };
}
