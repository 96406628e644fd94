import pg from "pg";
import { describe, expect, it } from "vitest";
import { openDatabase } from "~/platform/db.server";
import { expectLog } from "../support/console";
import { createIsolatedDatabase } from "../support/database";
import { waitFor } from "../support/wait";

/**
 * A PostgreSQL server that ends a connection the app holds checked out (a restart, an
 * administrator, a database dropped under it) must cost that piece of work, not the process: an
 * error on a socket nobody listens to is thrown from the event loop and ends Node (CI's
 * PostgreSQL round once failed on "terminating connection due to administrator command").
 */
describe.runIf(process.env.DATABASE_URL)("a PostgreSQL connection ended by the server", () => {
  it("fails the work that held it and leaves the process and the pool working", async () => {
    const lost = expectLog(
      "error",
      /PostgreSQL connection lost: (terminating connection due to administrator command|Connection terminated unexpectedly)/,
    );
    const isolated = await createIsolatedDatabase({ premigrated: true });
    const handle = await openDatabase({ databaseUrl: isolated.databaseUrl });
    const admin = new pg.Client({ connectionString: isolated.databaseUrl });
    await admin.connect();
    try {
      const held = handle.exclusively("test:connection-lost", async () => {
        // The lock's connection is checked out and idle while this runs: the server ends it.
        const { rows } = await admin.query<{ pid: number }>(
          // pg_locks is the whole server's: only this test's database, where nothing else runs.
          "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid() AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
        );
        expect(rows).toHaveLength(1);
        await admin.query("SELECT pg_terminate_backend($1)", [rows[0]!.pid]);
        // The connection's error reaches the client while it is idle, checked out: the case that threw.
        await waitFor(() => lost.seen > 0, { what: "the lost connection's error", timeoutMs: 10_000 });
        return "done";
      });
      // Unlocking on the ended connection fails the work; nothing escapes as an uncaught error.
      const error: unknown = await held.then(
        () => null,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).not.toMatch(/Timed out/);
      expect((await handle.executeSql("SELECT 1 AS one")).rows).toEqual([{ one: 1 }]);
    } finally {
      await admin.end();
      await handle.close();
      await isolated.drop();
    }
  });
});
