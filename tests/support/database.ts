import { randomBytes } from "node:crypto";
import pg from "pg";

/**
 * A database of its own for one test file or one e2e server: a fresh PostgreSQL database when
 * DATABASE_URL is set (CI runs the suite both ways), otherwise nothing, and PGlite is used.
 */
export async function createIsolatedDatabase(): Promise<{
  databaseUrl?: string;
  /** What a process needs to use it: the URL and, as every deployment on a server, a shared SESSION_SECRET. */
  env: Record<string, string>;
  drop(): Promise<void>;
}> {
  const base = process.env.DATABASE_URL;
  if (!base) return { env: {}, drop: async () => {} };
  const name = `sakina_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    env: { DATABASE_URL: url.toString(), SESSION_SECRET: randomBytes(32).toString("hex") },
    async drop() {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
