import { log } from "~/platform/observability/log.server";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import { drizzle as drizzlePglite } from "drizzle-orm/pglite";
import { migrate as migratePglite } from "drizzle-orm/pglite/migrator";
import { drizzle as drizzlePg } from "drizzle-orm/node-postgres";
import { migrate as migratePg } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";
import * as schema from "#models/schema";
import { lockDataDir } from "./data/data-dir-lock.server";
import { withParsedStatements } from "./data/pglite-statements.server";

import type { Db } from "#models/db";

export type { Db };

export interface DatabaseHandle {
  db: Db;
  kind: "pglite" | "postgres";
  /** For libraries that speak SQL directly (the job queue). */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Set only for a real PostgreSQL server. */
  connectionString?: string;
  /** Set only for the embedded database: the job queue reaches it through pg-boss's PGlite adapter. */
  pglite?: PGlite;
  /**
   * Calls `onPayload` with each NOTIFY on `channel` (committed transactions only) until the
   * handle closes. On PostgreSQL this holds one connection of its own, outside the pool,
   * reconnecting after a drop (notifications sent while it was down are lost).
   */
  listen(channel: string, onPayload: (payload: string) => void): Promise<void>;
  /**
   * Runs `work` while no other process holds the lock `name` (a PostgreSQL advisory lock, so it
   * holds across every process on the server): start-up steps such as the demo seed, which two
   * processes started together would otherwise both attempt. PGlite has one process: it just runs.
   */
  exclusively<T>(name: string, work: () => Promise<T>): Promise<T>;
  /**
   * Brings the query planner's statistics up to date (ANALYZE of the tables that changed), so it
   * knows a business with thousands of bookings from one with three: without them it reads every
   * upcoming booking to show a page of 25. PostgreSQL's autovacuum keeps them; PGlite has none, so
   * the retention job asks every ten minutes.
   */
  refreshStatistics(): Promise<void>;
  close(): Promise<void>;
}

/** How long a dropped LISTEN connection waits before connecting again. */
const LISTEN_RECONNECT_MS = 2_000;

// Both the source module (app/platform/) and the built bundle (build/server/) sit two folders
// below the project root, so this resolves to models/migrations from either.
export const migrationsFolder = fileURLToPath(new URL("../../models/migrations", import.meta.url));

export async function openDatabase(options: {
  databaseUrl?: string;
  /** PGlite's data directory; "memory://" keeps it in memory. */
  dataDir?: string;
  pglite?: PGlite;
}): Promise<DatabaseHandle> {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10 });
    let closing = false;
    // An idle connection dropped by the server is replaced on the next query; it is worth a log
    // line while running, and nothing once the pool is shutting down.
    pool.on("error", (error) => {
      if (!closing) log.error("PostgreSQL pool error: %s", error.message);
    });
    // The pool listens for errors only on its idle connections: one checked out (a transaction
    // between statements, the migration lock) whose server ends it (a restart, the database
    // dropped) would otherwise throw from the socket, unhandled, and end the process. Its query
    // fails and the pool discards it; the error is worth a line.
    pool.on("connect", (client) => {
      client.on("error", (error) => {
        if (!closing) log.error("PostgreSQL connection lost: %s", error.message);
      });
    });
    const db = drizzlePg(pool, { schema });
    const exclusively = async <T>(name: string, work: () => Promise<T>): Promise<T> => {
      const client = await pool.connect();
      try {
        await client.query("SELECT pg_advisory_lock(hashtext($1))", [name]);
        try {
          return await work();
        } finally {
          await client.query("SELECT pg_advisory_unlock(hashtext($1))", [name]);
        }
      } finally {
        client.release();
      }
    };
    // Two processes started together on a fresh database would both create the same tables.
    await exclusively("sakina:migrations", () => migratePg(db, { migrationsFolder }));
    const listeners = new Set<pg.Client>();
    const reconnects = new Set<NodeJS.Timeout>();
    const listenOn = async (channel: string, onPayload: (payload: string) => void): Promise<void> => {
      const client = new pg.Client({ connectionString: options.databaseUrl });
      const retry = () => {
        listeners.delete(client);
        client.end().catch(() => {});
        if (closing) return;
        const timer = setTimeout(() => {
          reconnects.delete(timer);
          listenOn(channel, onPayload).catch((error: Error) => {
            log.error(`LISTEN ${channel} could not reconnect: %s`, error.message);
            retry();
          });
        }, LISTEN_RECONNECT_MS);
        reconnects.add(timer);
      };
      client.on("error", (error) => {
        if (closing) return;
        log.error(`LISTEN ${channel} connection lost: %s`, error.message);
        retry();
      });
      client.on("notification", (message) => {
        if (message.channel === channel) onPayload(message.payload ?? "");
      });
      listeners.add(client);
      try {
        await client.connect();
        await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      } catch (error) {
        listeners.delete(client);
        client.end().catch(() => {});
        throw error;
      }
    };
    return {
      db: db as unknown as Db,
      kind: "postgres",
      connectionString: options.databaseUrl,
      executeSql: async (text, values) => ({ rows: (await pool.query(text, values)).rows }),
      listen: listenOn,
      exclusively,
      // Autovacuum analyses the tables as they change.
      refreshStatistics: async () => {},
      close: async () => {
        closing = true;
        for (const timer of reconnects) clearTimeout(timer);
        await Promise.all([...listeners].map((client) => client.end().catch(() => {})));
        await pool.end();
      },
    };
  }

  let client = options.pglite;
  let unlock = () => {};
  if (!client) {
    const dataDir = options.dataDir ?? "memory://";
    if (!dataDir.startsWith("memory://")) {
      mkdirSync(dataDir, { recursive: true });
      unlock = lockDataDir(path.resolve(dataDir));
    }
    try {
      client = await PGlite.create(dataDir.startsWith("memory://") ? dataDir : path.resolve(dataDir), { extensions: { btree_gist } });
    } catch (error) {
      unlock();
      throw error;
    }
  }
  const pglite = client;
  const db = drizzlePglite(withParsedStatements(pglite), { schema });
  try {
    await migratePglite(db, { migrationsFolder });
  } catch (error) {
    await pglite.close();
    unlock();
    throw error;
  }
  return {
    db: db as unknown as Db,
    kind: "pglite",
    pglite,
    // PGlite refuses several statements in one prepared query; a batch without values is run by
    // exec() as a script.
    executeSql: async (text, values) => {
      if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows };
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
    listen: async (channel, onPayload) => {
      await pglite.listen(channel, onPayload);
    },
    exclusively: (_name, work) => work(),
    // Autovacuum's own rule: a table is analysed once more than 50 rows and a tenth of it changed
    // since the last time, so a quiet database costs one catalogue read (a whole ANALYZE holds the
    // one connection for 0.1-0.2 s with 5,000 bookings).
    refreshStatistics: async () => {
      // The session counts its changes locally and publishes them now and then: now, first.
      await pglite.query("SELECT pg_stat_force_next_flush()");
      const { rows } = await pglite.query<{ table: string }>(
        "SELECT quote_ident(schemaname) || '.' || quote_ident(relname) AS table FROM pg_stat_user_tables WHERE n_mod_since_analyze > 50 + 0.1 * n_live_tup",
      );
      for (const { table } of rows) await pglite.exec(`ANALYZE ${table}`);
    },
    close: async () => {
      await pglite.close();
      unlock();
    },
  };
}
