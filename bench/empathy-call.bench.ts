// Payment confirmation → telephony request: how long a paid empathy call waits before the app asks
// Twilio to dial.
//
//   npx tsx bench/empathy-call.bench.ts [--samples N]          (default 50; DATABASE_URL for PostgreSQL)
//
// Per sample: a $5 PaymentIntent is created through the app's own code and paid on the fake Stripe
// API (pm_card_visa). The clock starts when the app is told the payment succeeded, i.e. when
// startEmpathyCall begins (what POST /api/empathy/start-call and the payment_intent.succeeded
// webhook both run): it retrieves the PaymentIntent from Stripe, checks it, commits the request,
// the call and its job in one transaction, and wakes the call worker. The clock stops when the
// fake Twilio has read the body of POST /Calls.json. The real job queue (pg-boss) and its workers
// run, on a fresh database. Everything is on loopback in this process, so the figures leave out
// the network to Stripe and Twilio, which in production adds two round trips.
//
// It runs twice: as the app does (the worker is woken after the commit), and with the wake-up
// turned off, which shows what polling the queue alone would cost.
//
// Then a burst with a provider that hangs: one paid call whose create-call request the fake Twilio
// holds for 30 s (an overloaded API), and, while it is held, 19 more paid calls started at once.
// It reports the 19 calls' dial latency (start-call to the fake reading their request): with dials
// run one at a time per process they would all wait for the held one.
import { performance } from "node:perf_hooks";
import Stripe from "stripe";
import { createEmpathyPaymentIntent, startEmpathyCall } from "../app/features/empathy/empathy.server";
import { startFakeStripe } from "../tests/fakes/stripe";
import { startFakeTwilio } from "../tests/fakes/twilio";
import { createTestServices } from "../tests/support/services";

function numberArg(name: string, fallback: number) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return Math.floor(value);
}
const SAMPLES = numberArg("samples", 50);

const [stripe, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio({ autoDial: false })]);
const services = await createTestServices({
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_API_URL: stripe.url,
  TWILIO_ACCOUNT_SID: twilio.accountSid,
  TWILIO_AUTH_TOKEN: twilio.authToken,
  TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
  TWILIO_API_URL: twilio.url,
  APP_URL: "http://127.0.0.1:9",
  MAX_CONCURRENT_CALLS: "10000",
  NODE_ENV: "production",
});
const url = new URL(stripe.url);
const stripeApi = new Stripe(stripe.secretKey, { host: url.hostname, port: Number(url.port), protocol: "http" });
const wake = services.jobs.wake.bind(services.jobs);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
let numberSeq = 0;

async function sample() {
  const phone = `+1212555${String(1000 + (numberSeq++ % 8000)).padStart(4, "0")}`;
  const created = await createEmpathyPaymentIntent(services, { phone, email: null, language: "english", voice: "female" });
  await stripeApi.paymentIntents.confirm(created.paymentIntentId, { payment_method: "pm_card_visa", return_url: "http://127.0.0.1:9/" });
  const before = twilio.requests.length;
  const started = performance.timeOrigin + performance.now();
  const result = await startEmpathyCall(services, created.paymentIntentId, "http://127.0.0.1:9");
  if (!result.ok) throw new Error(`start-call refused: ${result.reason}`);
  for (;;) {
    const request = twilio.requests
      .slice(before)
      .find((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === phone);
    if (request) return request.at - started;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

async function run(label: string) {
  for (let i = 0; i < 3; i++) await sample(); // warm-up: JIT, connections, prepared queues
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) times.push(await sample());
  times.sort((a, b) => a - b);
  const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
  console.log(
    `${label.padEnd(34)} n=${SAMPLES}  p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms  max ${times.at(-1)!.toFixed(1)} ms  mean ${mean.toFixed(1)} ms`,
  );
}

console.log(
  `Payment confirmation → Twilio call request, ${services.database.kind === "pglite" ? "PGlite (embedded)" : "PostgreSQL"}, Node ${process.version}`,
);
await run("as shipped (worker woken)");
services.jobs.wake = () => {};
await run("queue polling only (1 s interval)");
services.jobs.wake = wake;

async function paidIntent(phone: string) {
  const created = await createEmpathyPaymentIntent(services, { phone, email: null, language: "english", voice: "female" });
  await stripeApi.paymentIntents.confirm(created.paymentIntentId, { payment_method: "pm_card_visa", return_url: "http://127.0.0.1:9/" });
  return created.paymentIntentId;
}

async function burstWithOneHanging(others: number, hangMs: number) {
  const phones = Array.from({ length: others + 1 }, () => `+1212555${String(1000 + (numberSeq++ % 8000)).padStart(4, "0")}`);
  const intents = await Promise.all(phones.map(paidIntent));
  const held = twilio.hangNext({ to: phones[0], ms: hangMs });
  const heldStart = startEmpathyCall(services, intents[0]!, "http://127.0.0.1:9");
  await held.arrived;
  const before = twilio.requests.length;
  const started = performance.timeOrigin + performance.now();
  // When each call was requested: its start-call has committed the call and its job.
  const requestedAt = await Promise.all(
    intents.slice(1).map(async (id) => {
      const result = await startEmpathyCall(services, id, "http://127.0.0.1:9");
      if (!result.ok) throw new Error(`start-call refused: ${result.reason}`);
      return performance.timeOrigin + performance.now();
    }),
  );
  const dialled: number[] = [];
  const fromBurst: number[] = [];
  for (const [index, phone] of phones.slice(1).entries()) {
    for (;;) {
      const request = twilio.requests
        .slice(before)
        .find((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === phone);
      if (request) {
        dialled.push(request.at - requestedAt[index]!);
        fromBurst.push(request.at - started);
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
  const stillHeld = !twilio.calls.size || ![...twilio.calls.values()].some((c) => c.params.To === phones[0]);
  held.release();
  await heldStart;
  dialled.sort((a, b) => a - b);
  fromBurst.sort((a, b) => a - b);
  console.log(
    `${others} calls while one request hangs ${hangMs / 1000} s (held throughout: ${stillHeld}):` +
      `\n  call requested → dial  p50 ${percentile(dialled, 50).toFixed(1)} ms  max ${dialled.at(-1)!.toFixed(1)} ms` +
      `\n  burst start → dial     p50 ${percentile(fromBurst, 50).toFixed(1)} ms  max ${fromBurst.at(-1)!.toFixed(1)} ms`,
  );
}
await burstWithOneHanging(19, 30_000);

await services.close();
await twilio.close();
await stripe.close();
