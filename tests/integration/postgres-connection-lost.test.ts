import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "~/platform/db.server";
import { expectLog } from "../support/console";
import { createIsolatedDatabase } from "../support/database";

/**
 * A PostgreSQL server that ends a connection the app holds checked out (a restart, an
 * administrator, a database dropped under it) must cost that piece of work, not the process: an
 * error on a socket nobody listens to is thrown from the event loop and ends Node (CI's
 * PostgreSQL round once failed on "terminating connection due to administrator command").
 */
describe.runIf(process.env.DATABASE_URL)("a PostgreSQL connection ended by the server", () => {
  it("fails the work that held it and leaves the process and the pool working", async () => {
    expectLog("error", /PostgreSQL connection lost: terminating connection due to administrator command/);
    const isolated = await createIsolatedDatabase({ premigrated: true });
    const handle = await openDatabase({ databaseUrl: isolated.databaseUrl });
    const admin = new pg.Client({ connectionString: isolated.databaseUrl });
    await admin.connect();
    try {
      const held = handle.exclusively("test:connection-lost", async () => {
        // The lock's connection is checked out and idle while this runs: the server ends it.
        const { rows } = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()",
        );
        expect(rows).toHaveLength(1);
        await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        // Wait for the server to have ended it, then for its socket's news to reach the client.
        for (let i = 0; i < 100; i++) {
          const alive = await admin.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1", [rows[0]!.pid]);
          if (alive.rowCount === 0) break;
        }
        await new Promise((resolve) => setImmediate(resolve));
        return "done";
      });
      // Unlocking on the ended connection fails the work; nothing escapes as an uncaught error.
      await expect(held).rejects.toThrow();
      expect((await handle.executeSql("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await handle.close();
      await isolated.drop();
    }
  });
});
