// The global limit on simultaneous calls: a database semaphore with a lease, not a retry loop.
// Waiting calls keep their place and are placed in order as lines free; calls whose end was never
// reported are swept; a job whose worker died mid-dial is picked up within a minute.
import { eq, inArray, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { advanceCallStatus, createCall, findCall, queuePosition } from "#models/calls";
import { calls as callsTable } from "#models/schema";
import { callSweeperJob, placeCallJob } from "~/calls/engine.server";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { waitFor } from "../support/wait";
import { queueTestCall } from "../support/queue-call";

let twilio: FakeTwilio;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, close } = await startAppWithFakes({
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { MAX_CONCURRENT_CALLS: "1", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

// One test's failure must not hold the only line for the next: whatever is still live or waiting
// is hung up and ended.
afterEach(async () => {
  for (const [sid, call] of twilio.calls) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await twilio.flush();
  await app.services.db
    .update(callsTable)
    .set({ status: "canceled", waitingSince: null })
    .where(inArray(callsTable.status, ["queued", "initiated", "ringing", "in-progress"]));
});

const test = (to: string) => queueTestCall(app.services, { purpose: "test", to, language: "en", voice: "alloy" });

async function placed(callId: number) {
  return waitFor(
    async () => {
      const row = await findCall(app.services.db, callId);
      return row?.providerCallId ? row : null;
    },
    { what: `call ${callId} placed`, timeoutMs: 60_000 },
  );
}

async function callPlaceJobs() {
  const result = await app.services.db.execute(sql`select state, retry_count from pgboss.job where name = 'call-place'`);
  return ((result as { rows?: unknown[] }).rows ?? result) as { state: string; retry_count: number }[];
}

describe("more calls than lines", () => {
  it("places every waiting call in order as lines free, with no job retried in a loop", async () => {
    const first = await test("+12125557401");
    const firstPlaced = await placed(first.id);
    await twilio.waitForStatus(firstPlaced.providerCallId!, "in-progress", 10_000);
    // RECORD_CALLS is off here: nothing is recorded.
    expect(twilio.calls.get(firstPlaced.providerCallId!)!.params.Record).toBeUndefined();

    const second = await test("+12125557402");
    const third = await test("+12125557403");
    // Both wait for the one line, in the order they came.
    await waitFor(async () => ((await findCall(app.services.db, third.id))?.waitingSince ? true : null), {
      what: "the third call waiting",
    });
    await waitFor(async () => ((await findCall(app.services.db, second.id))?.waitingSince ? true : null), {
      what: "the second call waiting",
    });
    expect(await queuePosition(app.services.db, (await findCall(app.services.db, second.id))!)).toBe(1);
    expect(await queuePosition(app.services.db, (await findCall(app.services.db, third.id))!)).toBe(2);
    // A waiting call is a finished job, not one failing and retrying until a line frees.
    expect((await callPlaceJobs()).filter((job) => job.retry_count > 0 || job.state === "retry" || job.state === "failed")).toEqual([]);

    twilio.hangup(firstPlaced.providerCallId!);
    const secondPlaced = await placed(second.id);
    const stillWaiting = (await findCall(app.services.db, third.id))!;
    expect(stillWaiting.providerCallId).toBeNull();
    expect(await queuePosition(app.services.db, stillWaiting)).toBe(1);

    await twilio.waitForStatus(secondPlaced.providerCallId!, "in-progress", 10_000);
    twilio.hangup(secondPlaced.providerCallId!);
    const thirdPlaced = await placed(third.id);
    expect(thirdPlaced.startedAt!.getTime()).toBeGreaterThanOrEqual(secondPlaced.startedAt!.getTime());
    await twilio.waitForStatus(thirdPlaced.providerCallId!, "in-progress", 10_000);
    twilio.hangup(thirdPlaced.providerCallId!);
    await waitFor(async () => ((await findCall(app.services.db, third.id))?.status === "completed" ? true : null), {
      what: "the third call ended",
    });
    expect((await callPlaceJobs()).filter((job) => job.retry_count > 0 || job.state === "failed")).toEqual([]);
  });
});

describe("the sweeper", () => {
  it("ends a call still marked live long past its time limit, and frees its line", async () => {
    const stale = await createCall(app.services.db, {
      purpose: "test",
      toNumber: "+12125557411",
      language: "en",
      voice: "alloy",
      timeLimitSeconds: 60,
    });
    await advanceCallStatus(app.services.db, stale.id, "in-progress");
    // The live call holds the only line: a new call waits.
    const waiting = await test("+12125557412");
    await waitFor(async () => ((await findCall(app.services.db, waiting.id))?.waitingSince ? true : null), {
      what: "the new call waiting",
    });
    // Only now is it overdue: the app's own minute sweeper must not free the line before the new
    // call has had to wait for it.
    await app.services.db
      .update(callsTable)
      .set({ answeredAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(callsTable.id, stale.id));

    await callSweeperJob.handle({}, app.services);
    const swept = (await findCall(app.services.db, stale.id))!;
    expect(swept.status).toBe("completed");
    expect(swept.lastError).toMatch(/Ended by the sweeper/);
    expect(swept.delivered).toBe(false);
    const next = await placed(waiting.id);
    await twilio.waitForStatus(next.providerCallId!, "in-progress", 10_000);
    twilio.hangup(next.providerCallId!);
    await waitFor(async () => ((await findCall(app.services.db, waiting.id))?.status === "completed" ? true : null), {
      what: "the call ended",
    });

    // Running it again changes nothing.
    await callSweeperJob.handle({}, app.services);
    expect((await findCall(app.services.db, stale.id))!.updatedAt.getTime()).toBe(swept.updatedAt.getTime());
  });
});

describe("a worker killed mid-dial", () => {
  it("leaves a call that is placed within a minute, once its job expires", async () => {
    const call = await createCall(app.services.db, {
      purpose: "test",
      toNumber: "+12125557421",
      language: "en",
      voice: "alloy",
      timeLimitSeconds: 60,
    });
    // What a worker that died while its dial request was in flight leaves behind: the call claimed,
    // the job active since then. Both are as old as the lease.
    await app.services.db
      .update(callsTable)
      .set({ dialClaimedAt: new Date(Date.now() - 40_000) })
      .where(eq(callsTable.id, call.id));
    const jobId = await app.services.jobs.enqueue(
      placeCallJob,
      { callId: call.id, origin: app.url },
      { startAfter: new Date(Date.now() + 3_600_000) },
    );
    await app.services.db.execute(
      sql`update pgboss.job set state = 'active', started_on = now() - interval '45 seconds', start_after = now() - interval '45 seconds' where id = ${jobId}`,
    );
    const started = Date.now();
    const placedCall = await placed(call.id);
    expect(Date.now() - started).toBeLessThan(60_000);
    await twilio.waitForStatus(placedCall.providerCallId!, "in-progress", 10_000);
    twilio.hangup(placedCall.providerCallId!);
  });
});
