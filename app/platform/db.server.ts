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

import type { Db } from "#models/db";

export type { Db };

export interface DatabaseHandle {
  db: Db;
  kind: "pglite" | "postgres";
  /** For libraries that speak SQL directly (the job queue). */
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>;
  /** Set only for a real PostgreSQL server. */
  connectionString?: string;
  close(): Promise<void>;
}

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
      if (!closing) console.error("PostgreSQL pool error:", error.message);
    });
    const db = drizzlePg(pool, { schema });
    await migratePg(db, { migrationsFolder });
    return {
      db: db as unknown as Db,
      kind: "postgres",
      connectionString: options.databaseUrl,
      executeSql: async (text, values) => ({ rows: (await pool.query(text, values)).rows }),
      close: () => {
        closing = true;
        return pool.end();
      },
    };
  }

  let client = options.pglite;
  if (!client) {
    const dataDir = options.dataDir ?? "memory://";
    if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
    client = await PGlite.create(dataDir.startsWith("memory://") ? dataDir : path.resolve(dataDir), { extensions: { btree_gist } });
  }
  const pglite = client;
  const db = drizzlePglite(pglite, { schema });
  await migratePglite(db, { migrationsFolder });
  return {
    db: db as unknown as Db,
    kind: "pglite",
    // PGlite refuses several statements in one prepared query; pg-boss sends such batches
    // without values, which exec() runs as a script.
    executeSql: async (text, values) => {
      if (values && values.length > 0) return { rows: (await pglite.query(text, values)).rows };
      const results = await pglite.exec(text);
      return { rows: results.at(-1)?.rows ?? [] };
    },
    close: () => pglite.close(),
  };
}
