// RECORD_CALLS=true: the provider records the call (one channel per party), the reference is kept,
// the disclosure says so, and the retention job deletes recordings after twelve months.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCall } from "#models/calls";
import { calls as callsTable } from "#models/schema";
import { runRetention } from "~/features/retention/retention.server";
import en from "~/locales/en";
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
    env: { RECORD_CALLS: "true", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

describe("with RECORD_CALLS=true", () => {
  it("records the call in two channels at the provider and keeps the reference; the notice says calls are recorded", async () => {
    const call = await queueTestCall(app.services, { purpose: "test", to: "+12125557501", language: "en", voice: "alloy" });
    const placed = await waitFor(async () => (await findCall(app.services.db, call.id))?.providerCallId, { what: "the call placed" });
    const fake = twilio.calls.get(placed)!;
    expect(fake.params).toMatchObject({ Record: "true", RecordingChannels: "dual" });
    await twilio.waitForStatus(placed, "in-progress", 10_000);
    twilio.hangup(placed);
    const recorded = await waitFor(
      async () => {
        const row = await findCall(app.services.db, call.id);
        return row?.recordingSid ? row : null;
      },
      { what: "the recording reference" },
    );
    const recording = twilio.recordings.get(recorded.recordingSid!)!;
    expect(recording).toMatchObject({ callSid: placed, channels: 2, deleted: false });

    const home = await (await fetch(`${app.url}/`)).text();
    expect(home).toContain(en.empathy.recordingTitle);
    expect(home).not.toContain(en.empathy.transcriptTitle);
  });

  it("deletes recordings older than twelve months at the provider and here, and a second run finds nothing", async () => {
    const [row] = await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, "+12125557501"));
    const sid = row!.recordingSid!;
    // Younger than a year: kept.
    expect((await runRetention(app.services)).recordingsDeleted).toBe(0);
    await app.services.db
      .update(callsTable)
      .set({ recordedAt: new Date(Date.now() - 366 * 86_400_000) })
      .where(eq(callsTable.id, row!.id));
    expect((await runRetention(app.services)).recordingsDeleted).toBe(1);
    expect(twilio.recordings.get(sid)!.deleted).toBe(true);
    expect((await findCall(app.services.db, row!.id))!.recordingSid).toBeNull();
    expect((await runRetention(app.services)).recordingsDeleted).toBe(0);
  });
});
