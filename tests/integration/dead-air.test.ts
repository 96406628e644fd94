// A caller is never left in dead air: when the listener (the realtime model) owes them words, after
// the call connects or after they spoke, and none come within AGENT_SILENCE_SECONDS, Twilio's own
// voice says the apology in their language, the call ends, and it does not count (tried again, then
// refunded). The status page says "connected" only once the listener's voice reached the caller.
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { findCallQuality } from "#models/call-quality";
import { findEmpathyRequest } from "#models/empathy";
import { calls as callsTable } from "#models/schema";
import { parseEmpathyToken, empathyRefundJob } from "~/features/empathy/empathy.server";
import { bridgeMediaStream } from "~/voice/bridge.server";
import { callTexts } from "~/voice/call-texts.server";
import en from "~/locales/en";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeCall, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { expectLog } from "../support/console";
import { waitFor } from "../support/wait";
import { payAndAskForCall } from "../support/paid-call";

type App = Awaited<ReturnType<typeof startAppInProcess>>;
let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
/** Waits one second for the listener's voice (production: 8). */
const AGENT_SILENCE_SECONDS = 1;
let app: App;

function envFor(agentSilenceSeconds: string, stripe: FakeStripe): Record<string, string> {
  return {
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: "whsec_test_dead_air",
    STRIPE_API_URL: stripe.url,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    OPENAI_API_KEY: realtime.apiKey,
    OPENAI_BASE_URL: realtime.url,
    TRUST_PROXY: "1",
    SEED_DEMO_DATA: "false",
    EMPATHY_RETRY_DELAY_SECONDS: "0",
    CALL_DELIVERED_MIN_SECONDS: "1",
    AGENT_SILENCE_SECONDS: agentSilenceSeconds,
  };
}

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  app = await startAppInProcess(envFor(String(AGENT_SILENCE_SECONDS), stripe));
  // Only the start-call request places calls here, not the webhook.
  stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
  stripeApi = stripeClient(stripe);
});

function stripeClient(fake: FakeStripe) {
  const url = new URL(fake.url);
  return new Stripe(fake.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
}

afterAll(async () => {
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await twilio?.flush();
  await app?.stop();
  await twilio?.close();
  await realtime?.close();
  await stripe?.close();
});

// Each test says how the model behaves in every session it opens.
beforeEach(() => realtime.clearScript());

let visitor = 0;
let numberSeq = 700;
const nextNumber = () => `+1212555${String(numberSeq++).padStart(4, "0")}`;

/** Pays for a Spanish call to `phone` and asks for it, as the page does. */
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

const attemptsOf = (target: App, requestId: number) =>
  target.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId)).orderBy(callsTable.attempt);

/** A text as the server-rendered page writes it. */
const asHtml = (text: string) => text.replaceAll("'", "&#x27;");

const callsTo = (phone: string) => [...twilio.calls.values()].filter((c) => c.params.To === phone);

/** Attempt `n` to `phone` at Twilio, and its media stream once the app accepted it. */
async function attempt(phone: string, n: number) {
  const call = await waitFor(() => callsTo(phone)[n - 1], { what: `attempt ${n} to ${phone}`, timeoutMs: 20_000 });
  return { call, stream: await twilio.stream(call.sid, 20_000) };
}

/** The call ended after the apology: the app closed the stream, Twilio's voice said sorry in Spanish, then hung up. */
async function expectApologyAndEnd(call: FakeCall, stream: Awaited<ReturnType<FakeTwilio["stream"]>>) {
  const closed = await stream.closed;
  expect(closed.initiator).toBe("app");
  await waitFor(() => call.status === "completed", { what: `call ${call.sid} completed`, timeoutMs: 10_000 });
  expect(call.said).toEqual([callTexts("es").apology]);
}

/** Every attempt was undelivered for `reason`, and the $5 went back once. */
async function expectRefundedOnce(target: App, paid: Awaited<ReturnType<typeof paidCall>>, reason: string) {
  const refunded = await waitFor(
    async () => {
      const row = await findEmpathyRequest(target.services.db, paid.requestId);
      return row?.status === "refunded" ? row : null;
    },
    { what: `request ${paid.requestId} refunded`, timeoutMs: 30_000 },
  );
  const attempts = await attemptsOf(target, paid.requestId);
  expect(attempts.map((a) => [a.attempt, a.delivered, a.undeliveredReason])).toEqual([
    [1, false, reason],
    [2, false, reason],
    [3, false, reason],
  ]);
  const refunds = () => [...stripe.refunds.values()].filter((r) => r.payment_intent === paid.paymentIntentId);
  expect(refunds()).toHaveLength(1);
  expect(refunded.refundId).toBe(refunds()[0]!.id);
  await empathyRefundJob.handle({ requestId: paid.requestId, origin: target.url }, target.services);
  expect(refunds()).toHaveLength(1);
  return attempts;
}

describe("a listener that never speaks", () => {
  it("gets the apology in the caller's language, the call ends, and after three attempts the $5 goes back", async () => {
    expectLog("warn", /the realtime model failed \(no audio within 1 s of the stream's start\)/);
    realtime.script([{ silent: true }]);
    const phone = nextNumber();
    const paid = await paidCall(phone);
    for (let n = 1; n <= 3; n++) {
      const { call, stream } = await attempt(phone, n);
      await expectApologyAndEnd(call, stream);
      // The model sent nothing, so nothing of it reached the caller.
      expect(stream.receivedAudioMs()).toBe(0);
    }
    const attempts = await expectRefundedOnce(app, paid, "model_unreachable");
    for (const row of attempts) expect(row.agentHeardAt).toBeNull();
  });

  it("is not kept alive by the caller's frames: the line streams audio, the caller says hello twice, and the call still ends", async () => {
    expectLog("warn", /the realtime model failed \(no audio within 1 s (of the stream's start|after the caller's turn)\)/);
    realtime.script([{ silent: true }, { silent: true }, { silent: true }]);
    const phone = nextNumber();
    const paid = await paidCall(phone);
    const { call, stream } = await attempt(phone, 1);
    // Twilio sends the caller's line every 20 ms; twice the caller speaks into the silence (each a
    // whole turn: the model hears it start and stop).
    const session = realtime.sessions.length - 1;
    await stream.sendSpeech(400);
    await realtime.waitForServerEvent(session, "input_audio_buffer.speech_stopped");
    await stream.sendSpeech(400);
    await expectApologyAndEnd(call, stream);
    const [row] = await attemptsOf(app, paid.requestId);
    expect(row!.callerHeardAt).not.toBeNull();
    await waitFor(async () => (await attemptsOf(app, paid.requestId))[0]?.delivered === false, { what: "attempt 1 judged" });
    expect((await attemptsOf(app, paid.requestId))[0]!.undeliveredReason).toBe("model_unreachable");
  });

  it("the bridge's idle limit counts the model's silence, not the caller's frames", async () => {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    const logs: string[] = [];
    server.on("connection", (ws) =>
      bridgeMediaStream(app.services, ws, 999_999, (m) => logs.push(m), { startTimeoutMs: 60_000, idleTimeoutMs: 300 }),
    );
    await new Promise((resolve) => server.once("listening", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const closed = new Promise<number>((resolve) => client.once("close", (code) => resolve(code)));
    await new Promise((resolve) => client.once("open", resolve));
    // A frame every 20 ms, as a live line sends, until the bridge gives up.
    const frames = setInterval(() => client.send(JSON.stringify({ event: "media", media: { payload: "/////w==" } })), 20);
    try {
      await closed;
    } finally {
      clearInterval(frames);
      await new Promise((resolve) => server.close(resolve));
    }
    expect(logs.join("\n")).toMatch(/no audio for 0.3 s from the model's side/);
  });
});

describe("a listener that answers, then falls silent after the caller spoke", () => {
  it("gets the same apology and end, and the call does not count however it began", async () => {
    expectLog("warn", /the realtime model failed \(no audio within 1 s after the caller's turn\)/);
    realtime.script([{ say: "Hola, soy tu oyente. ¿Cómo estás?" }, { silent: true }]);
    const phone = nextNumber();
    const paid = await paidCall(phone);
    for (let n = 1; n <= 3; n++) {
      const { call, stream } = await attempt(phone, n);
      await waitFor(async () => (await attemptsOf(app, paid.requestId))[n - 1]?.agentHeardAt, {
        what: `the greeting of attempt ${n} heard`,
      });
      const greeting = stream.receivedAudioMs();
      expect(greeting).toBeGreaterThan(0);
      await stream.sendSpeech(800);
      await expectApologyAndEnd(call, stream);
      // Nothing came after the greeting.
      expect(stream.receivedAudioMs()).toBe(greeting);
    }
    const attempts = await expectRefundedOnce(app, paid, "model_stopped");
    for (const row of attempts) {
      expect(row.agentHeardAt).not.toBeNull();
      expect(row.callerHeardAt).not.toBeNull();
    }
  });
});

describe("a listener that greets, then stalls with its socket open while the caller talks", () => {
  it("gets the apology within the silence limit and 2 s, the stall is kept in the call's quality, and the $5 goes back", async () => {
    expectLog("warn", /the realtime model failed \(no audio within 1 s after the caller spoke, and nothing else from the model\)/);
    // About 3 s of greeting, then nothing more: not the caller's turn ending, not an error.
    realtime.script([{ say: "Hola, soy tu oyente. Cuéntame, ¿cómo estás hoy?", stallAfter: true }]);
    const phone = nextNumber();
    const paid = await paidCall(phone);
    for (let n = 1; n <= 3; n++) {
      const { call, stream } = await attempt(phone, n);
      await waitFor(() => stream.receivedAudioMs() > 0 && stream.pendingPlaybackMs() === 0, {
        what: `the greeting of attempt ${n} played`,
      });
      const greeting = stream.receivedAudioMs();
      expect(greeting).toBeGreaterThanOrEqual(2_500);
      let closedAt = 0;
      void stream.closed.then(() => (closedAt = Date.now()));
      // The caller talks for a second on the live line, then waits for the listener's answer.
      const framesBefore = stream.inboundSendTimes.length;
      stream.startRealtimeAudio({ speech: true });
      // A second of live speech is 50 frames of 20 ms, paced as a phone sends them.
      await waitFor(() => stream.inboundSendTimes.length - framesBefore >= 50 || null, { what: "a second of the caller's speech" });
      stream.startRealtimeAudio({ speech: false });
      const spokeUntil = Date.now();
      await waitFor(() => closedAt, {
        what: `the apology within ${AGENT_SILENCE_SECONDS} s + 2 s`,
        timeoutMs: (AGENT_SILENCE_SECONDS + 2) * 1000,
      });
      expect(closedAt - spokeUntil).toBeLessThanOrEqual((AGENT_SILENCE_SECONDS + 2) * 1000);
      await expectApologyAndEnd(call, stream);
      expect(stream.receivedAudioMs()).toBe(greeting);
      const [row] = (await attemptsOf(app, paid.requestId)).filter((a) => a.attempt === n);
      // The stall, as the owner's call timeline shows it: ended by dead air, the caller's turn unanswered.
      const quality = await waitFor(
        async () => {
          const kept = await findCallQuality(app.services.db, row!.id);
          return kept?.endedBy ? kept : null;
        },
        { what: `the quality of attempt ${n}` },
      );
      expect(quality.endedBy).toBe("dead_air");
      expect(quality.endedAt!.getTime()).toBeGreaterThan(spokeUntil);
      expect(quality.turns.at(-1)).toMatchObject({ latencyMs: null });
    }
    await expectRefundedOnce(app, paid, "model_stopped");
  });
});

describe("the call page", () => {
  it('says "connecting" while the phone is answered but the listener has not spoken, and "connected" once they have', async () => {
    // Its own app, with time for a slow listener (the model's answer waits for the test), and its
    // own payments account: the two apps' databases number their requests alike.
    const ownStripe = await startFakeStripe();
    const slow = await startAppInProcess(envFor("30", ownStripe));
    try {
      realtime.script([{ say: "Hola, soy tu oyente.", held: true }]);
      const phone = nextNumber();
      const paid = await paidCall(phone, slow, stripeClient(ownStripe));
      const { call, stream } = await attempt(phone, 1);
      await waitFor(async () => (await attemptsOf(slow, paid.requestId))[0]?.streamConnectedAt, { what: "the stream connected" });
      expect(call.status).toBe("in-progress");
      // Twilio says in-progress: the page does not claim the listener is there (with or without
      // JavaScript, the page's loader is what it shows and what it polls).
      const waiting = await (await paid.visitorClient.get(paid.statusUrl)).text();
      expect(waiting).toContain(asHtml(en.empathy.progressConnecting));
      expect(waiting).not.toContain(asHtml(en.empathy.progressConnected));

      const session = realtime.sessions.findIndex((s) => s.responses.some((r) => r.step && "held" in r.step));
      realtime.release(session);
      await waitFor(async () => (await attemptsOf(slow, paid.requestId))[0]?.agentHeardAt, { what: "the greeting heard" });
      const connected = await (await paid.visitorClient.get(paid.statusUrl)).text();
      expect(connected).toContain(asHtml(en.empathy.progressConnected));
      expect(connected).not.toContain(asHtml(en.empathy.progressConnecting));
      await stream.hangup();
    } finally {
      await slow.stop();
      await ownStripe.close();
    }
  });
});
