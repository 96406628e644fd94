import PgBoss from "pg-boss";
import type { DatabaseHandle } from "./db.server";
import type { AppServices } from "./services.server";

/**
 * A job kind: its queue name, how it retries, and what it does. Handlers must be safe to run
 * twice for the same job (a process can die after the work but before the job is marked done).
 */
export interface JobDefinition<Data extends object> {
  name: string;
  retryLimit: number;
  retryDelaySeconds: number;
  handle(data: Data, services: AppServices): Promise<void>;
}

export interface Jobs {
  enqueue<Data extends object>(
    definition: JobDefinition<Data>,
    data: Data,
    options?: { startAfter?: Date; singletonKey?: string },
  ): Promise<string | null>;
  /** Runs registered handlers in this process; a server does, a one-off script may not. */
  startWorkers(definitions: JobDefinition<any>[], services: AppServices): Promise<void>;
  stop(): Promise<void>;
  boss: PgBoss;
}

export async function startJobQueue(
  database: DatabaseHandle,
  options: { pollingIntervalSeconds?: number } = {},
): Promise<Jobs> {
  const boss = new PgBoss(
    database.connectionString
      ? { connectionString: database.connectionString, max: 4 }
      : { db: { executeSql: database.executeSql } },
  );
  boss.on("error", (error) => console.error("Job queue error:", error));
  await boss.start();
  const created = new Set<string>();

  async function ensureQueue(definition: JobDefinition<any>) {
    if (created.has(definition.name)) return;
    await boss.createQueue(definition.name, {
      name: definition.name,
      retryLimit: definition.retryLimit,
      retryDelay: definition.retryDelaySeconds,
      retryBackoff: true,
    });
    created.add(definition.name);
  }

  return {
    boss,
    async enqueue(definition, data, sendOptions = {}) {
      await ensureQueue(definition);
      return boss.send(definition.name, data, {
        retryLimit: definition.retryLimit,
        retryDelay: definition.retryDelaySeconds,
        retryBackoff: true,
        ...(sendOptions.startAfter ? { startAfter: sendOptions.startAfter } : {}),
        ...(sendOptions.singletonKey ? { singletonKey: sendOptions.singletonKey } : {}),
      });
    },
    async startWorkers(definitions, services) {
      for (const definition of definitions) {
        await ensureQueue(definition);
        await boss.work(
          definition.name,
          { pollingIntervalSeconds: options.pollingIntervalSeconds ?? 1 },
          async (batch) => {
            for (const job of batch) await definition.handle(job.data, services);
          },
        );
      }
    },
    async stop() {
      await boss.stop({ graceful: true, wait: true, timeout: 5000 });
    },
  };
}
