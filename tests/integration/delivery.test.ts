// A paid call counts only when the listener really spoke with the caller. Every way a call can
// fail to become a conversation is played here against the fake Twilio, Realtime and Stripe
// servers: none is counted delivered, each is tried again, and the $5 goes back exactly once.
import { createServer } from "node:http";
import type { Duplex } from "node:stream";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { findEmpathyRequest } from "#models/empathy";
import { calls as callsTable } from "#models/schema";
import { parseEmpathyToken } from "~/features/empathy/empathy.server";
import { mediaStreamEndpoint } from "~/server/bridge-streams.server";
import { callTexts } from "~/voice/call-texts.server";
import en from "~/locales/en";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeCall, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { expectLog } from "../support/console";
import { converse } from "../support/conversation";
import { httpClient } from "../support/http-client";
import { freePort } from "../support/ports";
import { waitFor } from "../support/wait";
import { payAndAskForCall } from "../support/paid-call";

type App = Awaited<ReturnType<typeof startAppInProcess>>;
let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: App;

function envFor(openAiKey: string, stripe: FakeStripe): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: "whsec_test_delivery",
    STRIPE_API_URL: stripe.url,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    OPENAI_API_KEY: openAiKey,
    OPENAI_BASE_URL: realtime.url,
    TRUST_PROXY: "1",
    SEED_DEMO_DATA: "false",
    EMPATHY_RETRY_DELAY_SECONDS: "0",
    // Three seconds with the caller heard (production: 30).
    CALL_DELIVERED_MIN_SECONDS: "3",
    DIAL_RETRY_WINDOW_SECONDS: "3",
    DIAL_RETRY_DELAY_SECONDS: "1",
  };
}

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  app = await startAppInProcess(envFor(realtime.apiKey, stripe));
  // Only the start-call request places calls here, not the webhook.
  stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
  stripeApi = stripeClient(stripe);
});

function stripeClient(fake: FakeStripe) {
  const url = new URL(fake.url);
  return new Stripe(fake.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
}

afterAll(async () => {
  await app?.stop();
  await twilio?.close();
  await realtime?.close();
  await stripe?.close();
});

let visitor = 0;
let numberSeq = 300;
const nextNumber = () => `+1212555${String(numberSeq++).padStart(4, "0")}`;
const client = (target: App = app) => httpClient(target.url, { forwardedFor: `198.51.100.${++visitor}` });

/** Pays for a call to `phone` and asks for it, as the page does; resolves with the request's id and page. */
async function paidCall(phone: string, target: App = app, payer: Stripe = stripeApi) {
  const paid = await payAndAskForCall({
    url: target.url,
    stripe: payer,
    phone,
    forwardedFor: `198.51.100.${++visitor}`,
    language: "spanish",
  });
  const requestId = parseEmpathyToken(target.services, paid.token)!;
  return { requestId, paymentIntentId: paid.paymentIntentId, statusUrl: paid.statusUrl, visitorClient: paid.client };
}

async function waitForStatus(target: App, requestId: number, status: string, timeoutMs = 30_000) {
  return waitFor(
    async () => {
      const row = await findEmpathyRequest(target.services.db, requestId);
      return row?.status === status ? row : null;
    },
    { what: `request ${requestId} ${status}`, timeoutMs },
  );
}

async function attemptsOf(target: App, requestId: number) {
  return target.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId)).orderBy(callsTable.attempt);
}

const refundsOf = (paymentIntentId: string, fake: FakeStripe = stripe) =>
  [...fake.refunds.values()].filter((r) => r.payment_intent === paymentIntentId);

/** Every attempt ended undelivered for `reason`, the $5 went back once, and a second refund is impossible. */
async function expectRefundedOnce(target: App, paid: Awaited<ReturnType<typeof paidCall>>, reason: string, fake: FakeStripe = stripe) {
  const refundsOf = (id: string) => [...fake.refunds.values()].filter((r) => r.payment_intent === id);
  const refunded = await waitForStatus(target, paid.requestId, "refunded");
  const attempts = await attemptsOf(target, paid.requestId);
  expect(attempts).toHaveLength(3);
  for (const attempt of attempts)
    expect({ delivered: attempt.delivered, reason: attempt.undeliveredReason }).toEqual({ delivered: false, reason });
  expect(refundsOf(paid.paymentIntentId)).toHaveLength(1);
  expect(refunded.refundId).toBe(refundsOf(paid.paymentIntentId)[0]!.id);
  const { empathyRefundJob } = await import("~/features/empathy/empathy.server");
  await empathyRefundJob.handle({ requestId: paid.requestId, origin: target.url }, target.services);
  expect(refundsOf(paid.paymentIntentId)).toHaveLength(1);
  return refunded;
}

describe("a paid call that never becomes a conversation is not counted", () => {
  it("when a voicemail answers: nothing personal is said, the call ends, and after three attempts the $5 goes back", async () => {
    const phone = nextNumber();
    twilio.setOutcome(phone, "machine");
    const paid = await paidCall(phone);
    await expectRefundedOnce(app, paid, "voicemail");
    for (const call of [...twilio.calls.values()].filter((c) => c.params.To === phone)) {
      // Detection on the paid call too, and a machine hears nothing at all.
      expect(call.params.MachineDetection).toBe("Enable");
      expect(call.said).toEqual([]);
      expect(call.streamSid).toBeNull();
    }
    const page = await (await paid.visitorClient.get(paid.statusUrl)).text();
    expect(page).toContain('Your <bdi dir="ltr">$5</bdi> has been refunded');
  });

  it("when the media stream never connects", async () => {
    const phone = nextNumber();
    twilio.unreachableStreams.add(phone);
    const paid = await paidCall(phone);
    await expectRefundedOnce(app, paid, "stream_never_connected");
  });

  it("when the caller hangs up soon after hearing the agent", async () => {
    const phone = nextNumber();
    const paid = await paidCall(phone);
    for (let attempt = 1; attempt <= 3; attempt++) {
      const call = await waitFor(() => [...twilio.calls.values()].filter((c) => c.params.To === phone)[attempt - 1], {
        what: `attempt ${attempt}`,
        timeoutMs: 20_000,
      });
      const stream = await twilio.stream(call.sid, 20_000);
      // The caller heard the agent, then hangs up well before the three seconds a delivered call needs.
      await waitFor(
        async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.providerCallId, call.sid)))[0]?.agentHeardAt,
        { what: `the agent heard on attempt ${attempt}`, timeoutMs: 20_000 },
      );
      await stream.hangup();
    }
    await expectRefundedOnce(app, paid, "too_short");
  });

  it("when the model closes the session at once: the caller hears the apology in their language", async () => {
    const phone = nextNumber();
    expectLog("warn", /the realtime model failed \(connection closed/);
    const first = realtime.sessions.length;
    // Every session this call opens (the one prepared with the TwiML, a fresh one after it) drops at once.
    const dropping = setInterval(() => {
      for (let index = first; index < realtime.sessions.length; index++) {
        if (!realtime.sessions[index]!.closed) realtime.disconnect(index, 1011, "server error");
      }
    }, 10);
    const paid = await paidCall(phone).catch((error) => {
      clearInterval(dropping);
      throw error;
    });
    try {
      await expectRefundedOnce(app, paid, "model_unreachable");
    } finally {
      clearInterval(dropping);
    }
    const placed = [...twilio.calls.values()].filter((c) => c.params.To === phone);
    for (const call of placed) expect(call.said).toEqual([callTexts("es").apology]);
  });

  it("when the model refuses the session (a key it does not accept)", async () => {
    expectLog("warn", /the realtime model failed \(connection error: Unexpected server response: 401/);
    // Its own payments account: the two apps' databases number their requests alike.
    const ownStripe = await startFakeStripe();
    const refusing = await startAppInProcess(envFor("sk-not-the-right-key", ownStripe));
    try {
      const phone = nextNumber();
      const paid = await paidCall(phone, refusing, stripeClient(ownStripe));
      await expectRefundedOnce(refusing, paid, "model_unreachable", ownStripe);
      const placed = [...twilio.calls.values()].filter((c) => c.params.To === phone);
      expect(placed.map((c) => c.said)).toEqual(Array(3).fill([callTexts("es").apology]));
    } finally {
      await refusing.stop();
      await ownStripe.close();
    }
  });
});

describe("a real conversation", () => {
  it("counts once the caller heard the listener, was heard, and the call lasted long enough: no retry, no refund", async () => {
    const phone = nextNumber();
    const paid = await paidCall(phone);
    const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: "the call",
      timeoutMs: 20_000,
    });
    const stream = await twilio.stream(call.sid, 20_000);
    const [row] = await attemptsOf(app, paid.requestId);
    await waitFor(async () => (await attemptsOf(app, paid.requestId))[0]?.agentHeardAt, { what: "the greeting heard", timeoutMs: 20_000 });
    stream.sendSpeech(800);
    await waitFor(async () => (await attemptsOf(app, paid.requestId))[0]?.callerHeardAt, { what: "the caller heard", timeoutMs: 20_000 });
    await waitFor(() => (call.startedAt && Date.now() - call.startedAt.getTime() > 3200 ? true : null), { what: "three seconds" });
    await stream.hangup();
    await waitForStatus(app, paid.requestId, "completed");
    const attempts = await attemptsOf(app, paid.requestId);
    expect(attempts.map((a) => [a.id, a.delivered, a.undeliveredReason])).toEqual([[row!.id, true, null]]);
    expect(refundsOf(paid.paymentIntentId)).toHaveLength(0);
  });
});

/**
 * The call audio on a bridge of its own (MEDIA_STREAM_ORIGIN) beside the app, on the app's own
 * services (so on PGlite too): `shutDown` is that bridge stopping mid-call, as a deploy does;
 * `crash` its connections dying at once, as when its process is killed (nothing is written first).
 */
const crashed: ReturnType<typeof mediaStreamEndpoint>[] = [];
async function startBridge(target: App, port: number) {
  const endpoint = mediaStreamEndpoint(target.services, { heartbeat: true });
  const server = createServer((_, response) => response.writeHead(404).end());
  const connections = new Set<Duplex>();
  server.on("upgrade", (request, socket, head) => {
    connections.add(socket);
    endpoint.upgrade(request, socket, head);
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const stopListening = () => new Promise((resolve) => server.close(resolve));
  return {
    async shutDown() {
      await endpoint.close();
      await stopListening();
    },
    async crash() {
      for (const socket of connections) socket.destroy();
      await stopListening();
      // What a killed process would not do: its heartbeat stops when the app's database closes.
      crashed.push(endpoint);
    },
  };
}

describe("a call our own side cuts: the bridge shuts down mid-call while the web server is up", () => {
  let ownStripe: FakeStripe;
  let cutting: App;
  let bridgePort = 0;
  let bridge: Awaited<ReturnType<typeof startBridge>> | null = null;

  beforeAll(async () => {
    // Its own payments account: the two apps' databases number their requests alike.
    ownStripe = await startFakeStripe();
    bridgePort = await freePort();
    cutting = await startAppInProcess({ ...envFor(realtime.apiKey, ownStripe), MEDIA_STREAM_ORIGIN: `http://127.0.0.1:${bridgePort}` });
  });
  // Each test begins with the bridge up.
  beforeEach(async () => {
    bridge ??= await startBridge(cutting, bridgePort);
  });
  afterAll(async () => {
    await bridge?.shutDown();
    for (const [sid, call] of twilio?.calls ?? []) {
      if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
    }
    await twilio?.flush();
    await Promise.all(crashed.map((endpoint) => endpoint.close()));
    await cutting?.stop();
    await ownStripe?.close();
  });

  const callsTo = (phone: string) => [...twilio.calls.values()].filter((c) => c.params.To === phone);
  const attemptMoment = async (requestId: number, attempt: number, moment: "agentHeardAt" | "agentMinimumHeardAt" | "callerHeardAt") =>
    (await attemptsOf(cutting, requestId))[attempt - 1]?.[moment];

  /** The bridge stops or dies; Twilio asks the app what next, says what it is told, and the call ends. */
  async function cutAndHear(call: FakeCall, how: "shutDown" | "crash" = "shutDown") {
    await bridge![how]();
    bridge = null;
    await waitFor(() => call.status === "completed", { what: `call ${call.sid} completed`, timeoutMs: 10_000 });
    return call.said;
  }

  it.each([
    ["shuts down", "shutDown"],
    ["dies", "crash"],
  ] as const)(
    "when the bridge %s before the listener spoke the delivered minimum: the caller hears the apology, the attempt does not count, and the call is placed again",
    async (_, how) => {
      const phone = nextNumber();
      const paid = await paidCall(phone, cutting, stripeClient(ownStripe));
      const first = await waitFor(() => callsTo(phone)[0], { what: "attempt 1", timeoutMs: 20_000 });
      await twilio.stream(first.sid, 20_000);
      await waitFor(() => attemptMoment(paid.requestId, 1, "agentHeardAt"), { what: "the greeting heard", timeoutMs: 20_000 });
      expect(await cutAndHear(first, how)).toEqual([callTexts("es").apology]);
      const judged = await waitFor(async () => ((await attemptsOf(cutting, paid.requestId))[0]?.delivered === false ? true : null), {
        what: "attempt 1 judged",
      });
      expect(judged).toBe(true);
      expect((await attemptsOf(cutting, paid.requestId))[0]!.undeliveredReason).toBe("stream_cut");
      // The bridge is back (the deploy finished): the next attempt is a whole conversation, and counts.
      bridge = await startBridge(cutting, bridgePort);
      const second = await waitFor(() => callsTo(phone)[1], { what: "attempt 2", timeoutMs: 20_000 });
      await converse(twilio, realtime, second.sid, 3);
      await waitForStatus(cutting, paid.requestId, "completed");
      const attempts = await attemptsOf(cutting, paid.requestId);
      expect(attempts.map((a) => [a.attempt, a.delivered, a.undeliveredReason])).toEqual([
        [1, false, "stream_cut"],
        [2, true, null],
      ]);
      expect(refundsOf(paid.paymentIntentId, ownStripe)).toHaveLength(0);
    },
  );

  it("after the conversation had its minimum: the caller hears a goodbye, and the call counts", async () => {
    // A greeting of more than the three seconds a delivered call needs.
    realtime.script([{ say: "Hola, soy tu oyente de Sakina. Estoy aquí para escucharte con calma." }]);
    try {
      const phone = nextNumber();
      const paid = await paidCall(phone, cutting, stripeClient(ownStripe));
      const call = await waitFor(() => callsTo(phone)[0], { what: "the call", timeoutMs: 20_000 });
      const stream = await twilio.stream(call.sid, 20_000);
      await waitFor(() => attemptMoment(paid.requestId, 1, "agentMinimumHeardAt"), {
        what: "three seconds of the listener heard",
        timeoutMs: 20_000,
      });
      stream.sendSpeech(800);
      await waitFor(() => attemptMoment(paid.requestId, 1, "callerHeardAt"), { what: "the caller heard", timeoutMs: 20_000 });
      expect(await cutAndHear(call)).toEqual([callTexts("es").cutGoodbye]);
      await waitForStatus(cutting, paid.requestId, "completed");
      const attempts = await attemptsOf(cutting, paid.requestId);
      expect(attempts.map((a) => [a.attempt, a.delivered, a.undeliveredReason])).toEqual([[1, true, null]]);
      expect(attempts[0]!.streamCutAt).not.toBeNull();
      expect(callsTo(phone)).toHaveLength(1);
      expect(refundsOf(paid.paymentIntentId, ownStripe)).toHaveLength(0);
    } finally {
      realtime.clearScript();
    }
  });
});

describe("providers that fail", () => {
  it("a payments provider error reaches the browser as a clear JSON error, not a plain 500", async () => {
    stripe.failNext(
      { method: "POST", pathPrefix: "/v1/payment_intents" },
      500,
      { type: "api_error", message: "An unknown error occurred" },
      3,
    );
    const response = await client().postJson("/api/create-payment-intent", {
      amount: 5,
      phone: nextNumber(),
      language: "english",
      voice: "female",
      adult: true,
      recordingAccepted: true,
    });
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ error: en.payment.providerError });

    stripe.failNext(
      { method: "GET", pathPrefix: "/v1/payment_intents/" },
      500,
      { type: "api_error", message: "An unknown error occurred" },
      3,
    );
    const start = await client().postJson("/api/empathy/start-call", { paymentIntentId: "pi_unreachable123" });
    expect(start.status).toBe(502);
    expect(await start.json()).toEqual({ error: en.payment.providerCheckFailed });
  });

  it("a telephony API down for longer than the retry window ends in one refund, and the page says so while it waits", async () => {
    // Slow enough to read the page between two tries.
    app.services.env.DIAL_RETRY_WINDOW_SECONDS = 6;
    try {
      twilio.failNext(503, { code: 20503, message: "Service Unavailable" }, 1000);
      const phone = nextNumber();
      const paid = await paidCall(phone);
      const waiting = await waitFor(
        async () => {
          const page = await (await paid.visitorClient.get(paid.statusUrl)).text();
          return page.includes(en.empathy.networkDownTitle) ? page : null;
        },
        { what: "the page saying the network is not answering", timeoutMs: 20_000 },
      );
      // The time in an isolate of its own: it reads in its own direction inside an Arabic sentence.
      expect(waiting).toMatch(/We keep trying to place your call until <bdi>\d{1,2}:\d{2}/);
      const refunded = await waitForStatus(app, paid.requestId, "refunded");
      expect(refunded.refundReason).toBe("telephony_unavailable");
      const attempts = await attemptsOf(app, paid.requestId);
      // The network never took the call: one attempt, not three, and no call was placed.
      expect(attempts.map((a) => [a.status, a.undeliveredReason])).toEqual([["failed", "telephony_unavailable"]]);
      expect([...twilio.calls.values()].filter((c) => c.params.To === phone)).toHaveLength(0);
      expect(refundsOf(paid.paymentIntentId)).toHaveLength(1);
      const page = await (await paid.visitorClient.get(paid.statusUrl)).text();
      expect(page).toContain("the phone network did not answer");
    } finally {
      app.services.env.DIAL_RETRY_WINDOW_SECONDS = 3;
    }
  });
});
