// An installation that ran on pg-boss 10 starts under pg-boss 12 with nothing lost (issue 46,
// point 3): the database is tests/fixtures/pg-boss-10, made by the app as it was before the upgrade
// (see make-fixture.ts there), restored as an operator's would be (PGlite: its data folder;
// PostgreSQL: its dump, into a fresh database), then the new app starts on it. Every job that was
// waiting runs once, the scheduled one when it is due, the finished ones stay finished, and the
// owner who was signed in still is.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";
import { btree_gist } from "@electric-sql/pglite/contrib/btree_gist";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCall } from "#models/calls";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { startAppWithFakes, type AppWithFakes } from "../support/app-with-fakes";
import { createIsolatedDatabase } from "../support/database";
import { jobsIdle } from "../support/jobs";
import { readOutbox } from "../support/outbox";
import { waitFor } from "../support/wait";

const run = promisify(execFile);
const fixtures = path.resolve(import.meta.dirname, "../fixtures/pg-boss-10");
const kind = process.env.DATABASE_URL ? "postgres" : "pglite";
const fixture = JSON.parse(readFileSync(path.join(fixtures, `${kind}.json`), "utf8")) as {
  madeAt: string;
  sessionSecret: string;
  sessionCookie: string;
  jobs: {
    waiting: string;
    retrying: string;
    scheduled: string;
    completed: string;
    failed: string;
    call: { callId: number; jobId: string };
  };
};

/**
 * Every time in the database moves on by the time since the fixture was made, as if the old
 * server had stopped a moment ago: retention, session expiry and due times all count from then.
 * Partitions are moved through their parent table, once.
 */
const MOVE_TIMES_ON = `DO $$
DECLARE t record;
BEGIN
  FOR t IN
    SELECT c.oid::regclass AS name, string_agg(format('%1$I = %1$I + (now() - %2$L::timestamptz)', a.attname, '${fixture.madeAt}'), ', ') AS sets
    FROM pg_class c
    JOIN pg_namespace n ON n.oid = c.relnamespace
    JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
    WHERE n.nspname IN ('public', 'pgboss') AND c.relkind IN ('r', 'p') AND NOT c.relispartition
      AND a.atttypid = 'timestamptz'::regtype
    GROUP BY c.oid
  LOOP
    EXECUTE format('UPDATE %s SET %s', t.name, t.sets);
  END LOOP;
END $$`;

let dataDir: string;
let dropDatabase = async () => {};
let setup: AppWithFakes<{ twilio: { autoDial: false } }>;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-pg-boss-10-"));
  const env: Record<string, string> = { DATA_DIR: dataDir, SESSION_SECRET: fixture.sessionSecret };
  if (kind === "postgres") {
    const database = await createIsolatedDatabase();
    dropDatabase = database.drop;
    env.DATABASE_URL = database.databaseUrl!;
    await run("bash", ["-c", `gunzip -c "$0" | psql -q -v ON_ERROR_STOP=1 "$1"`, path.join(fixtures, "postgres.sql.gz"), env.DATABASE_URL]);
    const client = new pg.Client({ connectionString: env.DATABASE_URL });
    await client.connect();
    await client.query(MOVE_TIMES_ON);
    await client.end();
  } else {
    await run("tar", ["-xJf", path.join(fixtures, "pglite.tar.xz"), "-C", dataDir]);
    const pglite = await PGlite.create(path.join(dataDir, "pglite"), { extensions: { btree_gist } });
    await pglite.exec(MOVE_TIMES_ON);
    await pglite.close();
  }
  setup = await startAppWithFakes({ twilio: { autoDial: false }, env });
}, 120_000);

afterAll(async () => {
  await setup?.close();
  await dropDatabase();
  await rm(dataDir, { recursive: true, force: true });
});

async function job(id: string) {
  const { rows } = await setup.services.database.executeSql(
    `SELECT state::text AS state, retry_count, start_after, output FROM pgboss.job WHERE name = $1 AND id = $2`,
    [sendEmailJob.name, id],
  );
  return rows[0] as { state: string; retry_count: number; start_after: string; output: { message?: string } | null } | undefined;
}

async function mailsTo(address: string) {
  return (await readOutbox(dataDir)).filter((mail) => mail.to.includes(address)).length;
}

describe("a database the app used on pg-boss 10", () => {
  it("runs every job that was waiting once, and none that had finished", { timeout: 120_000 }, async () => {
    const { waiting, retrying, call } = fixture.jobs;
    for (const id of [waiting, retrying])
      await waitFor(async () => (await job(id))?.state === "completed", { what: `job ${id} done`, timeoutMs: 30_000 });
    // The call's job ran as the app started, before its bridge was up: the call kept its place and
    // is dialled when the waiting calls are woken.
    const placed = await waitFor(async () => (await findCall(setup.services.db, call.callId))?.providerCallId, {
      what: "the queued call dialled",
      timeoutMs: 90_000,
    });
    await jobsIdle(setup.services);
    // One run each: the retrying job was taken once more, the waiting one once.
    expect((await job(waiting))?.retry_count).toBe(0);
    expect((await job(retrying))?.retry_count).toBe(1);
    expect(await mailsTo("waiting@example.com")).toBe(1);
    expect(await mailsTo("retrying@example.com")).toBe(1);
    const dials = setup.twilio.requests.filter((request) => request.method === "POST" && request.path.endsWith("/Calls.json"));
    expect(dials.map((request) => request.params.To)).toEqual(["+12125557490"]);
    expect(setup.twilio.calls.has(placed)).toBe(true);
    // What had finished stays finished: kept as it was, never run again.
    expect((await job(fixture.jobs.completed))?.state).toBe("completed");
    expect(await job(fixture.jobs.failed)).toMatchObject({ state: "failed", output: { message: "Mailbox unavailable" } });
    expect(await mailsTo("sent@example.com")).toBe(0);
    expect(await mailsTo("gave-up@example.com")).toBe(0);
    const { rows } = await setup.services.database.executeSql(`SELECT to_regnamespace('pgboss_v10') IS NULL AS gone`);
    expect(rows).toEqual([{ gone: true }]);
  });

  it("runs the scheduled job when it comes due, once", async () => {
    const { scheduled } = fixture.jobs;
    const before = await job(scheduled);
    expect(before?.state).toBe("created");
    expect(new Date(before!.start_after).getTime()).toBeGreaterThan(Date.now() + 30 * 60_000);
    expect(await mailsTo("scheduled@example.com")).toBe(0);
    // Its hour has passed.
    await setup.services.database.executeSql(`UPDATE pgboss.job SET start_after = now() WHERE name = $1 AND id = $2`, [
      sendEmailJob.name,
      scheduled,
    ]);
    await waitFor(async () => (await job(scheduled))?.state === "completed", { what: "the scheduled job done", timeoutMs: 30_000 });
    await jobsIdle(setup.services);
    expect(await mailsTo("scheduled@example.com")).toBe(1);
  });

  it("keeps the owner who was signed in signed in", async () => {
    const response = await fetch(`${setup.url}/dashboard`, { headers: { Cookie: fixture.sessionCookie }, redirect: "manual" });
    expect(response.status).toBe(200);
    const anonymous = await fetch(`${setup.url}/dashboard`, { redirect: "manual" });
    expect(anonymous.status).not.toBe(200);
  });
});
