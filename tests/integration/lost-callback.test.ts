// The provider's word decides how a call ends when the app missed its end: a paid call whose one
// `completed` status callback never arrived is ended from Twilio's own record of the call (GET
// Calls/{sid}) by the sweep, judged on its real duration, and neither dialled again nor refunded;
// a call Twilio still has as in progress is left alone.
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEmpathyRequest } from "#models/empathy";
import { calls as callsTable } from "#models/schema";
import { callSweeperJob } from "~/calls/engine.server";
import { parseEmpathyToken } from "~/features/empathy/empathy.server";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { waitFor } from "../support/wait";
import { payAndAskForCall } from "../support/paid-call";
import { realtimeEnv, stripeEnv, twilioEnv } from "../support/app-with-fakes";

type App = Awaited<ReturnType<typeof startAppInProcess>>;
let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: App;

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  app = await startAppInProcess({
    ...stripeEnv(stripe, "whsec_test_lost_callback"),
    ...twilioEnv(twilio),
    ...realtimeEnv(realtime),
    TRUST_PROXY: "1",
    SEED_DEMO_DATA: "false",
    EMPATHY_RETRY_DELAY_SECONDS: "0",
    // Three seconds with the caller heard (production: 30).
    CALL_DELIVERED_MIN_SECONDS: "3",
    // A call the app heard nothing about for a second is checked with Twilio (production: 45 s,
    // with the minute sweep: a lost end is found within two minutes).
    CALL_QUIET_CHECK_SECONDS: "1",
  });
  // Only the start-call request places calls here, not the webhook.
  stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
  const url = new URL(stripe.url);
  stripeApi = new Stripe(stripe.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
});

afterAll(async () => {
  await app?.stop();
  await twilio?.close();
  await realtime?.close();
  await stripe?.close();
});

let visitor = 0;
let numberSeq = 700;
const nextNumber = () => `+1212555${String(numberSeq++).padStart(4, "0")}`;

/** Pays for a call to `phone` and asks for it, as the page does. */
async function paidCall(phone: string) {
  const paid = await payAndAskForCall({
    url: app.url,
    stripe: stripeApi,
    phone,
    forwardedFor: `198.51.100.${++visitor}`,
    language: "spanish",
  });
  return { requestId: parseEmpathyToken(app.services, paid.token)!, paymentIntentId: paid.paymentIntentId };
}

const attemptsOf = (requestId: number) =>
  app.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId)).orderBy(callsTable.attempt);
const callsTo = (phone: string) => [...twilio.calls.values()].filter((c) => c.params.To === phone);
const refundsOf = (paymentIntentId: string) => [...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntentId);
const fetchesOf = (sid: string) => twilio.requests.filter((r) => r.method === "GET" && r.path.endsWith(`/Calls/${sid}.json`));

/** Answers the paid call to `phone` and talks: the caller heard the listener and was heard. */
async function conversation(phone: string, requestId: number) {
  const call = await waitFor(() => callsTo(phone)[0], { what: "the call", timeoutMs: 20_000 });
  const stream = await twilio.stream(call.sid, 20_000);
  await waitFor(async () => (await attemptsOf(requestId))[0]?.agentHeardAt, { what: "the greeting heard", timeoutMs: 20_000 });
  stream.sendSpeech(800);
  await waitFor(async () => (await attemptsOf(requestId))[0]?.callerHeardAt, { what: "the caller heard", timeoutMs: 20_000 });
  return { call, stream };
}

describe("a call whose end the app missed", () => {
  it("is ended from Twilio's record by the sweep, counted as delivered: one call placed for the payment, no refund", async () => {
    const phone = nextNumber();
    twilio.loseStatusCallback(phone, "completed");
    const paid = await paidCall(phone);
    const { call, stream } = await conversation(phone, paid.requestId);
    await waitFor(() => (call.startedAt && Date.now() - call.startedAt.getTime() > 3200 ? true : null), { what: "three seconds" });
    await stream.hangup();
    await twilio.waitForStatus(call.sid, "completed");
    await twilio.flush();
    // Twilio ended the call and its one `completed` callback was lost: the app still has it live.
    expect(twilio.statusCallbacks(call.sid).find((d) => d.params.CallStatus === "completed")?.status).toBe(0);
    expect((await attemptsOf(paid.requestId))[0]!.status).toBe("in-progress");

    // The minute sweep (run here as it runs every minute) asks Twilio and ends the call from its record.
    const [ended] = await waitFor(
      async () => {
        await callSweeperJob.handle({}, app.services);
        const attempts = await attemptsOf(paid.requestId);
        return attempts[0]?.status === "completed" ? attempts : null;
      },
      { what: "the call ended from Twilio's record", timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(fetchesOf(call.sid).length).toBeGreaterThan(0);
    expect(ended!.durationSeconds).toBe(call.duration);
    expect(ended!.durationSeconds).toBeGreaterThanOrEqual(3);
    expect({ delivered: ended!.delivered, reason: ended!.undeliveredReason }).toEqual({ delivered: true, reason: null });
    await waitFor(async () => ((await findEmpathyRequest(app.services.db, paid.requestId))?.status === "completed" ? true : null), {
      what: "the request completed",
    });

    // Sweeping again changes nothing: one call placed for the payment, no second attempt, no refund.
    await callSweeperJob.handle({}, app.services);
    await twilio.flush();
    expect(await attemptsOf(paid.requestId)).toHaveLength(1);
    expect(callsTo(phone)).toHaveLength(1);
    expect(refundsOf(paid.paymentIntentId)).toHaveLength(0);
    expect((await findEmpathyRequest(app.services.db, paid.requestId))!.status).toBe("completed");
  });

  it("waits while Twilio cannot be asked, without a guess, and ends from its record once it can", async () => {
    const phone = nextNumber();
    twilio.loseStatusCallback(phone, "completed");
    const paid = await paidCall(phone);
    const { call, stream } = await conversation(phone, paid.requestId);
    await waitFor(() => (call.startedAt && Date.now() - call.startedAt.getTime() > 3200 ? true : null), { what: "three seconds" });
    await stream.hangup();
    await twilio.waitForStatus(call.sid, "completed");
    await twilio.flush();
    // Twilio's API is in trouble: the sweeps that ask it get 503s and leave the call as it is.
    twilio.failNextFetch(503, { code: 20503, message: "Service Unavailable" }, 1000);
    const asked = fetchesOf(call.sid).length;
    await waitFor(
      async () => {
        await callSweeperJob.handle({}, app.services);
        return fetchesOf(call.sid).length >= asked + 2;
      },
      { what: "two sweeps asking Twilio", timeoutMs: 20_000, intervalMs: 100 },
    );
    const waiting = (await attemptsOf(paid.requestId))[0]!;
    expect({ status: waiting.status, delivered: waiting.delivered }).toEqual({ status: "in-progress", delivered: null });
    expect(callsTo(phone)).toHaveLength(1);

    twilio.clearFailures();
    const [ended] = await waitFor(
      async () => {
        await callSweeperJob.handle({}, app.services);
        const attempts = await attemptsOf(paid.requestId);
        return attempts[0]?.status === "completed" ? attempts : null;
      },
      { what: "the call ended from Twilio's record", timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(ended!.durationSeconds).toBe(call.duration);
    expect(ended!.delivered).toBe(true);
    await callSweeperJob.handle({}, app.services);
    expect(await attemptsOf(paid.requestId)).toHaveLength(1);
    expect(callsTo(phone)).toHaveLength(1);
    expect(refundsOf(paid.paymentIntentId)).toHaveLength(0);
  });

  it("is left alone while Twilio has it in progress, and ends as its callback says", async () => {
    const phone = nextNumber();
    const paid = await paidCall(phone);
    const { call, stream } = await conversation(phone, paid.requestId);
    // The sweep asks Twilio about the quiet call; Twilio has it in progress, so it stays up.
    await waitFor(
      async () => {
        await callSweeperJob.handle({}, app.services);
        return fetchesOf(call.sid).length > 0;
      },
      { what: "the sweep asking Twilio", timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(call.status).toBe("in-progress");
    expect(twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith(`/Calls/${call.sid}.json`))).toEqual([]);
    expect((await attemptsOf(paid.requestId))[0]!.status).toBe("in-progress");

    await waitFor(() => (call.startedAt && Date.now() - call.startedAt.getTime() > 3200 ? true : null), { what: "three seconds" });
    await stream.hangup();
    const [ended] = await waitFor(
      async () => {
        const attempts = await attemptsOf(paid.requestId);
        return attempts[0]?.status === "completed" ? attempts : null;
      },
      { what: "the call ended", timeoutMs: 20_000 },
    );
    expect(ended!.durationSeconds).toBe(call.duration);
    expect(ended!.delivered).toBe(true);
    expect(callsTo(phone)).toHaveLength(1);
    expect(refundsOf(paid.paymentIntentId)).toHaveLength(0);
  });
});
