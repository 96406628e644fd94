import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Db } from "#models/db";
import { acquireLease, purgeExpiredLeases, releaseLease } from "#models/live-leases";
import { openDatabase, type DatabaseHandle } from "~/platform/db.server";
import { createIsolatedDatabase } from "../support/database";

// The count behind every cap on what is held open (voice sessions, event streams): exact when many
// ask at once (on PostgreSQL through a pool, as several processes do), and not fooled by what a
// dead process left behind.
let isolated: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let database: DatabaseHandle;
let db: Db;

beforeAll(async () => {
  isolated = await createIsolatedDatabase();
  database = await openDatabase(isolated.databaseUrl ? { databaseUrl: isolated.databaseUrl } : { dataDir: "memory://" });
  db = database.db;
});

afterAll(async () => {
  await database?.close();
  await isolated?.drop();
});

const lease = { kind: "test:cap", holder: "someone", limit: 3, ttlSeconds: 60 };

describe("live leases", () => {
  it("grants exactly the limit to twenty asking at once, and a place again once one is released", async () => {
    const granted = (await Promise.all(Array.from({ length: 20 }, () => acquireLease(db, lease)))).filter((id) => id !== null);
    expect(granted).toHaveLength(3);
    expect(await acquireLease(db, { ...lease, holder: "someone else" })).not.toBeNull();
    await releaseLease(db, granted[0]!);
    expect(await acquireLease(db, lease)).not.toBeNull();
    expect(await acquireLease(db, lease)).toBeNull();
  });

  it("does not count a lease whose holder stopped renewing it, and the retention purge drops it", async () => {
    const holder = { ...lease, holder: "crashed" };
    for (let i = 0; i < 3; i++) expect(await acquireLease(db, holder)).not.toBeNull();
    expect(await acquireLease(db, holder)).toBeNull();
    // The process holding two of them died a minute ago: their leases ran out.
    await db.execute(sql`UPDATE live_leases SET expires_at = now() - interval '1 second'
      WHERE id IN (SELECT id FROM live_leases WHERE holder = 'crashed' LIMIT 2)`);
    expect(await acquireLease(db, holder)).not.toBeNull();
    expect(await acquireLease(db, holder)).not.toBeNull();
    expect(await acquireLease(db, holder)).toBeNull();
    await db.execute(sql`UPDATE live_leases SET expires_at = now() - interval '1 second' WHERE holder = 'someone else'`);
    await purgeExpiredLeases(db);
    const left = (await db.execute(sql`SELECT count(*)::int AS n FROM live_leases WHERE holder = 'someone else'`)) as unknown as {
      rows: { n: number }[];
    };
    expect(left.rows[0]!.n).toBe(0);
  });
});
