import PgBoss from "pg-boss";
import type { DatabaseHandle, Db } from "~/platform/db.server";

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

/** How often the queue fails expired jobs (so a job a dead worker held is retried within expiry + this). */
export const MAINTENANCE_SECONDS = 15;

export async function startJobQueue(database: DatabaseHandle, options: { pollingIntervalSeconds?: number } = {}): Promise<Jobs> {
  // Finished jobs leave the database within a day: e-mail jobs carry addresses, and the privacy
  // page promises contact details of anonymous calls are gone 24 hours after the call.
  const retention = { archiveCompletedAfterSeconds: 3600, deleteAfterHours: 22, maintenanceIntervalSeconds: MAINTENANCE_SECONDS };
  const boss = new PgBoss(
    database.connectionString
      ? { connectionString: database.connectionString, max: 4, ...retention }
      : { db: { executeSql: database.executeSql }, ...retention },
  );
  // After stop(), a connection the database drops (a shutdown, a test database removed) is not
  // worth reporting; before it, every queue error is.
  let stopped = false;
  boss.on("error", (error) => {
    if (!stopped) console.error("Job queue error:", error);
  });
  await boss.start();
  const created = new Set<string>();
  const workerIds = new Map<string, string>();

  async function ensureQueue(definition: JobDefinition<object, never>) {
    if (created.has(definition.name)) return;
    await boss.createQueue(definition.name, {
      name: definition.name,
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
      return boss.send(definition.name, data, {
        ...(sendOptions.tx ? { db: transactionExecutor(sendOptions.tx) } : {}),
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: true,
        ...(definition.expireInSeconds ? { expireInSeconds: definition.expireInSeconds } : {}),
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
      });
    },
    wake(definition) {
      const id = workerIds.get(definition.name);
      if (id) boss.notifyWorker(id);
    },
    async schedule(definition, cron) {
      await ensureQueue(definition);
      await boss.schedule(definition.name, cron, {}, { tz: "UTC" });
    },
    async prepare(definitions) {
      for (const definition of definitions) await ensureQueue(definition);
    },
    async startWorkers(definitions, services) {
      for (const definition of definitions) {
        await ensureQueue(definition);
        const id = await boss.work(definition.name, { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1 }, async (batch) => {
          for (const job of batch) await definition.handle(job.data as object, services);
        });
        workerIds.set(definition.name, id);
      }
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 });
      stopped = true;
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
