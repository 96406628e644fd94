import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { count, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { businesses } from "#models/schema";
import { parseEnv } from "~/platform/env.server";
import { createServices } from "~/server/services.server";
import { createIsolatedDatabase } from "../support/database";

// Several processes on one PostgreSQL server: what each does at start-up must not trip the others.
// PGlite serves one process only, so this is a PostgreSQL test.
describe.runIf(process.env.DATABASE_URL)("processes started together on a fresh database", () => {
  it("all start: migrations and the demo seed run once, one process at a time", async () => {
    const database = await createIsolatedDatabase();
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-procs-"));
    const env = parseEnv({ NODE_ENV: "test", DATA_DIR: dataDir, SEED_DEMO_DATA: "true", ...database.env });
    try {
      const started = await Promise.allSettled([1, 2, 3].map(() => createServices(env, { runWorkers: false })));
      const failures = started.flatMap((result) => (result.status === "rejected" ? [String(result.reason)] : []));
      const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
      try {
        expect(failures).toEqual([]);
        const [{ demos }] = (await running[0]!.db
          .select({ demos: count() })
          .from(businesses)
          .where(eq(businesses.bookingLink, "demo-salon"))) as [{ demos: number }];
        expect(demos).toBe(1);
        // Every process prints the same working demo login, whichever seeded it.
        const logins = running.map((services) => services.startupNotes.find((note) => note.startsWith("Demo owner login")));
        expect(new Set(logins).size).toBe(1);
        expect(logins[0]).toMatch(/demo@sakina\.app \/ demo-/);
      } finally {
        await Promise.all(running.map((services) => services.close()));
      }
    } finally {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
