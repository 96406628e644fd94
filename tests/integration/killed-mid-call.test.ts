// A process killed (kill -9) while it bridges live calls leaves no phantom calls holding the lines
// (issue 45.3): its calls' bridge leases lapse, and the restarted process asks Twilio about them,
// hangs up the ones Twilio still has up (nobody can speak on them) and frees their lines, so with
// MAX_CONCURRENT_CALLS=2 a new paid call is placed within 2 minutes of the restart, not after the
// dead calls' time limit.
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";
import { payAndAskForCall } from "../support/paid-call";
import { realtimeEnv, stripeEnv, twilioEnv } from "../support/app-with-fakes";

let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let server: RunningServer;

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  server = await startServer(
    {
      ...stripeEnv(stripe, "whsec_test_killed_mid_call"),
      ...twilioEnv(twilio),
      ...realtimeEnv(realtime),
      TRUST_PROXY: "1",
      SEED_DEMO_DATA: "false",
      MAX_CONCURRENT_CALLS: "2",
      // The cut calls' retries (if any) come long after the test: the lines are the new call's to take.
      EMPATHY_RETRY_DELAY_SECONDS: "600",
    },
    // What the restarted process rightly says about each call it found nobody bridging.
    { allowStderr: [/^call \d+: no bridge renewed its lease \(its process died\); hung up at Twilio, which had it in-progress$/] },
  );
  // Only the start-call request places calls here, not the webhook.
  stripe.setWebhook(`${server.url}/webhooks/stripe`, "whsec_elsewhere");
  const url = new URL(stripe.url);
  stripeApi = new Stripe(stripe.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
});

afterAll(async () => {
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await server?.stop();
  await twilio?.close();
  await realtime?.close();
  await stripe?.close();
});

let visitor = 0;

/** Pays for a call to `phone` and asks for it, as the page does. */
async function paidCall(phone: string) {
  await payAndAskForCall({ url: server.url, stripe: stripeApi, phone, forwardedFor: `198.51.100.${++visitor}` });
}

const callsTo = (phone: string) => [...twilio.calls.values()].filter((c) => c.params.To === phone);

describe("a process killed during two live calls", () => {
  it("frees their lines once restarted: a new paid call is placed within 2 minutes", async () => {
    const live = ["+12125558101", "+12125558102"];
    // The calls' audio is cut without Twilio seeing it (as when the bridge's host vanishes): it
    // keeps them in progress, as it would until someone hangs up.
    for (const phone of live) twilio.silentStreamDrops.add(phone);
    for (const phone of live) await paidCall(phone);
    const calls = [];
    for (const phone of live) {
      const call = await waitFor(() => callsTo(phone)[0], { what: `the call to ${phone}`, timeoutMs: 20_000 });
      const stream = await twilio.stream(call.sid, 20_000);
      // The listener's greeting reached the caller: the call is bridged, its lease held.
      await waitFor(() => stream.marksEchoed.length > 0, { what: "the greeting heard", timeoutMs: 20_000 });
      calls.push(call);
    }

    await server.kill();
    await server.restart();
    const restartedAt = Date.now();
    expect(calls.map((call) => call.status)).toEqual(["in-progress", "in-progress"]);

    // Both lines are held by the dead process's calls as far as the database knows: the new call waits.
    const next = "+12125558103";
    await paidCall(next);
    const placed = await waitFor(() => callsTo(next)[0], { what: "the new paid call placed", timeoutMs: 120_000, intervalMs: 200 });
    expect(Date.now() - restartedAt).toBeLessThan(120_000);
    // The dead process's calls were hung up at Twilio by the app (nobody bridged them), not left to their time limit.
    expect(calls.map((call) => ({ status: call.status, hangupBy: call.hangupBy }))).toEqual([
      { status: "completed", hangupBy: "app" },
      { status: "completed", hangupBy: "app" },
    ]);
    expect(callsTo(next)).toEqual([placed]);
  }, 200_000);
});
