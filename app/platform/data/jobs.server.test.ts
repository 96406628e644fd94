import { afterEach, describe, expect, it, vi } from "vitest";
import { openDatabase, type DatabaseHandle } from "~/platform/db.server";
import { startJobQueue, type JobDefinition, type Jobs } from "./jobs.server";

let database: DatabaseHandle | undefined;
let jobs: Jobs | undefined;

afterEach(async () => {
  await jobs?.stop();
  await database?.close();
  jobs = database = undefined;
});

/** A queue on an in-memory database whose workers run `definitions`, checking for due jobs twice a second. */
async function startQueue(definitions: JobDefinition<{ n: string }>[]) {
  database = await openDatabase({ dataDir: "memory://" });
  const queue = await startJobQueue(database, { signingSecret: "a secret for the job queue's tests", pollingIntervalSeconds: 0.5 });
  jobs = queue;
  await queue.startWorkers(definitions, {});
  return queue;
}

describe("the job queue's workers", () => {
  it("run jobs sent without a wake (as another process sends them) at the next due check, not at their own 30 s poll", async () => {
    const ran: string[] = [];
    const oneAtATime: JobDefinition<{ n: string }> = {
      name: "test-one-at-a-time",
      retryLimit: 0,
      retryDelaySeconds: 1,
      async handle(data) {
        ran.push(data.n);
      },
    };
    const severalAtOnce = { ...oneAtATime, name: "test-several-at-once", concurrency: () => 2 };
    const queue = await startQueue([oneAtATime, severalAtOnce]);
    // Straight into the tables, as another process's send is: nothing wakes this process's workers.
    await queue.boss.send(oneAtATime.name, { n: "first" });
    await queue.boss.send(severalAtOnce.name, { n: "second" });
    await queue.boss.send(severalAtOnce.name, { n: "third" });
    await vi.waitFor(() => expect([...ran].sort()).toEqual(["first", "second", "third"]), { timeout: 10_000, interval: 50 });
  });

  it("run a failed job again once its retry delay has passed", async () => {
    let attempts = 0;
    const failsOnce: JobDefinition<{ n: string }> = {
      name: "test-fails-once",
      retryLimit: 1,
      retryDelaySeconds: 1,
      async handle() {
        attempts += 1;
        if (attempts === 1) throw new Error("the first attempt fails");
      },
    };
    const queue = await startQueue([failsOnce]);
    const id = await queue.boss.send(failsOnce.name, { n: "retried" }, { retryLimit: 1, retryDelay: 1 });
    await vi.waitFor(
      async () => {
        expect(attempts).toBe(2);
        expect((await queue.boss.getJobById(failsOnce.name, id!))?.state).toBe("completed");
      },
      { timeout: 10_000, interval: 50 },
    );
  });
});
