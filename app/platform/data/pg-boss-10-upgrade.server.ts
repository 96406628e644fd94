import { sql } from "drizzle-orm";
import type { PgBoss } from "pg-boss";
import type { DatabaseHandle } from "~/platform/db.server";

/**
 * The job queue of an installation that ran on pg-boss 10, carried over to pg-boss 12.
 *
 * pg-boss 11 rewrote its schema and migrates nothing from pg-boss 10's (schema version 24: its
 * start() fails with "Version 24 not found", and pg-boss 12 refuses any version below 25). Its
 * release notes ask for the new schema to be installed and the jobs moved over with INSERT …
 * SELECT, which is what this does, at start-up, under the job queue's start-up lock:
 *
 * 1. `setAside`, before pg-boss starts: the old schema is renamed (one statement), so pg-boss
 *    installs its own beside it;
 * 2. `adopt`, once it has: each old queue is created anew with its retry and expiry settings, and
 *    in one transaction every job (waiting, retrying, running, finished, given up, and the archive's)
 *    is copied with its id, state, retries and times, and the old schema dropped. A process killed
 *    in between leaves the old schema for the next start to copy; none is copied twice.
 *
 * Cron schedules are not copied: the app declares its own at every start.
 */
const OLD_SCHEMA = "pgboss_v10";

/** The last schema version of pg-boss 10. */
const PG_BOSS_10_SCHEMA = 24;

export async function setAsidePgBoss10Schema(database: DatabaseHandle, schema: string) {
  const { rows } = await database.executeSql(`SELECT to_regclass($1) IS NOT NULL AS installed`, [`${schema}.version`]);
  if (!(rows[0] as { installed: boolean }).installed) return;
  const { rows: versions } = await database.executeSql(`SELECT version FROM ${schema}.version`);
  const version = Number((versions[0] as { version: number | string } | undefined)?.version);
  if (!(version <= PG_BOSS_10_SCHEMA)) return;
  await database.executeSql(`ALTER SCHEMA ${schema} RENAME TO ${OLD_SCHEMA}`);
}

interface OldQueue {
  name: string;
  retry_limit: number | null;
  retry_delay: number | null;
  retry_backoff: boolean | null;
  expire_seconds: number | null;
}

export async function adoptPgBoss10Jobs(database: DatabaseHandle, boss: PgBoss, schema: string, queueDefaults: { deleteAfterSeconds: number }) {
  const { rows } = await database.executeSql(`SELECT to_regnamespace($1) IS NOT NULL AS present`, [OLD_SCHEMA]);
  if (!(rows[0] as { present: boolean }).present) return;
  const { rows: queues } = await database.executeSql(
    `SELECT name, retry_limit, retry_delay, retry_backoff, expire_seconds FROM ${OLD_SCHEMA}.queue WHERE name NOT LIKE '\\_\\_pgboss%'`,
  );
  for (const queue of queues as OldQueue[]) {
    await boss.createQueue(queue.name, {
      ...queueDefaults,
      ...(queue.retry_limit !== null ? { retryLimit: queue.retry_limit } : {}),
      ...(queue.retry_delay !== null ? { retryDelay: queue.retry_delay } : {}),
      ...(queue.retry_backoff !== null ? { retryBackoff: queue.retry_backoff } : {}),
      ...(queue.expire_seconds ? { expireInSeconds: queue.expire_seconds } : {}),
    });
  }
  const columns = `id, name, priority, data, state::text AS state, retry_limit, retry_count, retry_delay, retry_backoff,
    expire_in, singleton_key, singleton_on, start_after, created_on, started_on, completed_on, keep_until, output, dead_letter`;
  await database.db.transaction(async (tx) => {
    // pgboss.job routes each row to its queue's table; the queue's own row gives the policy and
    // how long a finished job is kept (pg-boss 10 kept it in the archive instead).
    await tx.execute(
      sql.raw(`
        INSERT INTO ${schema}.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay, retry_backoff,
          expire_seconds, deletion_seconds, singleton_key, singleton_on, start_after, created_on, started_on, completed_on,
          keep_until, output, dead_letter, policy)
        SELECT old.id, old.name, old.priority, old.data, old.state::${schema}.job_state, old.retry_limit, old.retry_count,
          old.retry_delay, old.retry_backoff, greatest(1, extract(epoch FROM old.expire_in))::int, q.deletion_seconds,
          old.singleton_key, old.singleton_on, old.start_after, old.created_on, old.started_on, old.completed_on,
          old.keep_until, old.output, old.dead_letter, q.policy
        FROM (SELECT ${columns} FROM ${OLD_SCHEMA}.job UNION ALL SELECT ${columns} FROM ${OLD_SCHEMA}.archive) old
        JOIN ${schema}.queue q ON q.name = old.name
        ON CONFLICT DO NOTHING`),
    );
    await tx.execute(sql.raw(`DROP SCHEMA ${OLD_SCHEMA} CASCADE`));
  });
}
