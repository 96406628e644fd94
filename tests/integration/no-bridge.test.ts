// While no bridge is up to carry the calls' audio (the bridge process is restarting or down), a
// paid call is not dialled (the person would answer into silence): it waits in the queue, keeping
// its place, and its page says what it waits for; once a bridge's heartbeat is back, it is placed
// within seconds, not at the next minute's sweep (issue 45.6).
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls as callsTable } from "#models/schema";
import { parseEmpathyToken } from "~/features/empathy/empathy.server";
import { bridgeLeases } from "~/voice/bridge-leases.server";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { freePort } from "../support/ports";
import { waitFor } from "../support/wait";
import { payAndAskForCall } from "../support/paid-call";

let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let app: Awaited<ReturnType<typeof startAppInProcess>>;
let bridge: ReturnType<typeof bridgeLeases> | undefined;

beforeAll(async () => {
  [stripe, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio()]);
  app = await startAppInProcess({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: "whsec_test_no_bridge",
    STRIPE_API_URL: stripe.url,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    TRUST_PROXY: "1",
    SEED_DEMO_DATA: "false",
    // The calls' audio goes to a bridge process of its own, which is not running.
    MEDIA_STREAM_ORIGIN: `http://127.0.0.1:${await freePort()}`,
  });
  // Only the start-call request places calls here, not the webhook.
  stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
  const url = new URL(stripe.url);
  stripeApi = new Stripe(stripe.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
});

afterAll(async () => {
  await bridge?.stop();
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await app?.stop();
  await twilio?.close();
  await stripe?.close();
});

describe("a paid call while no bridge is up", () => {
  it("waits in the queue, its page says why, and is placed once a bridge is back", async () => {
    const phone = "+12125558201";
    const {
      client: visitor,
      statusUrl,
      token,
    } = await payAndAskForCall({ url: app.url, stripe: stripeApi, phone, forwardedFor: "198.51.100.21" });
    const requestId = parseEmpathyToken(app.services, token)!;
    const callOf = async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId)))[0];

    // Its dialling job ran and put it in the queue (the event that rules the dial out): nothing rang.
    const waiting = await waitFor(async () => ((await callOf())?.waitingSince ? callOf() : null), { what: "the call waiting" });
    expect({ status: waiting!.status, providerCallId: waiting!.providerCallId }).toEqual({ status: "queued", providerCallId: null });
    expect([...twilio.calls.values()].filter((c) => c.params.To === phone)).toEqual([]);
    const page = await (await visitor.get(statusUrl)).text();
    expect(page).toContain("Our calling service is restarting. Your call keeps its place in the queue");

    // A bridge starts (its heartbeat, as the bridge process publishes it): the app's frequent look
    // (every 10 s) wakes the waiting calls, without the minute's sweep.
    bridge = bridgeLeases(app.services.db, { heartbeat: true });
    await bridge.started;
    const placed = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: "the call placed within the frequent look's 10 s",
      timeoutMs: 15_000,
    });
    expect([...twilio.calls.values()].filter((c) => c.params.To === phone)).toEqual([placed]);
    const after = await (await visitor.get(statusUrl)).text();
    expect(after).not.toContain("Our calling service is restarting");
  });
});
