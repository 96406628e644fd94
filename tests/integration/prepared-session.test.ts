import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STREAM_LIMITS } from "~/voice/bridge.server";
import { STREAM_TOKEN_TTL_MS } from "~/calls/engine.server";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";

// The greeting is prepared while Twilio fetches the call's TwiML, in the process that answered it.
// When the call's stream goes elsewhere (another process behind the load balancer, or nowhere: a
// network failure between Twilio and the app), that paid realtime session must not stay open
// waiting for it until the call ends.
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

describe("a session prepared for a stream that never comes", () => {
  it("is closed within the stream's start limit, not left open for the call", async () => {
    expect(STREAM_LIMITS.startTimeoutMs).toBeLessThan(STREAM_TOKEN_TTL_MS / 4);
    const phone = "+12125550164";
    twilio.unreachableStreams.add(phone);
    const response = await httpClient(app.url, { forwardedFor: "203.0.113.64" }).postJson("/api/calls/make-call", { to: phone });
    expect(response.status).toBe(202);
    const placed = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), { what: "the call" });
    // The TwiML was fetched, so the greeting's session was opened here; the stream never connects.
    const session = await realtime.waitForSession(0, 10_000);
    const opened = Date.now();
    await waitFor(() => session.closed, { what: "the unclaimed session to close", timeoutMs: STREAM_LIMITS.startTimeoutMs + 5_000 });
    expect(Date.now() - opened).toBeLessThan(STREAM_LIMITS.startTimeoutMs + 5_000);
    expect(realtime.sessions).toHaveLength(1);
    twilio.hangup(placed.sid);
  }, 40_000);
});
