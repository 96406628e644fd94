import { and, eq, sql } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DIAL_STALLED_SECONDS } from "#models/calls";
import { findEmpathyRequest } from "#models/empathy";
import { calls as callsTable, empathyRequests, funnelEvents, payments } from "#models/schema";
import { callSweeperJob } from "~/calls/engine.server";
import { empathyErasureJob, parseEmpathyToken } from "~/features/empathy/empathy.server";
import en from "~/locales/en";
import es from "~/locales/es";
import type { FakeStripe } from "../fakes/stripe";
import type { FakeTwilio } from "../fakes/twilio";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { converse } from "../support/conversation";
import { startAppInProcess } from "../support/app-in-process";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";
import { readOutbox } from "../support/outbox";
import { waitFor } from "../support/wait";

const WEBHOOK_SECRET = "whsec_test_empathy";
let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, stripe, stripeApi, twilio, realtime, close } = await startAppWithFakes({
    stripe: { webhookSecret: WEBHOOK_SECRET },
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false", EMPATHY_RETRY_DELAY_SECONDS: "1", CALL_DELIVERED_MIN_SECONDS: "1" },
  }));
});

afterAll(() => close?.());

/** The newest call to `phone` on the fake Twilio, once placed. */
async function newestCallTo(phone: string, count: number) {
  return waitFor(async () => (await callsTo(phone))[count - 1], { what: `call ${count} to ${phone}`, timeoutMs: 20_000 });
}

let visitor = 0;
let numberSeq = 100;
const nextNumber = () => `+1212555${String(numberSeq++).padStart(4, "0")}`;

function client() {
  visitor += 1;
  return httpClient(app.url, { forwardedFor: `198.51.100.${visitor}` });
}

/** What the page does: create the $5 PaymentIntent through the app, then pay it (as Stripe.js would). */
async function paidIntent(phone = nextNumber(), extra: Record<string, unknown> = {}) {
  const response = await client().postJson("/api/create-payment-intent", {
    amount: 5,
    phone,
    language: "spanish",
    voice: "male",
    adult: true,
    recordingAccepted: true,
    ...extra,
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { clientSecret: string; paymentIntentId: string; statusUrl: string };
  await stripeApi.paymentIntents.confirm(body.paymentIntentId, { payment_method: "pm_card_visa", return_url: `${app.url}/` });
  return { ...body, phone };
}

async function callsTo(phone: string) {
  return [...twilio.calls.values()].filter((call) => call.params.To === phone);
}

function requestIdOf(statusUrl: string) {
  return parseEmpathyToken(app.services, statusUrl.split("/").pop()!)!;
}

describe("the $5 payment", () => {
  it("is a 500-cent USD PaymentIntent; the phone stays on our server, not in Stripe", async () => {
    const { paymentIntentId, phone } = await paidIntent();
    const intent = stripe.paymentIntents.get(paymentIntentId)!;
    expect(intent).toMatchObject({ amount: 500, currency: "usd", status: "succeeded" });
    expect(JSON.stringify(intent)).not.toContain(phone.slice(2));
  });

  it("refuses a missing phone, an invalid one, a country we don't call, a wrong amount and missing confirmations", async () => {
    const base = { amount: 5, language: "english", adult: true, recordingAccepted: true };
    const cases: [Record<string, unknown>, number, RegExp][] = [
      [{ ...base, phone: "" }, 400, /^Phone number required - Please enter your phone number to receive the call$/],
      [{ ...base, phone: "12345" }, 400, /not a valid phone number/],
      [{ ...base, phone: "+86 138 0013 8000" }, 400, /can't call numbers in this country/],
      [{ ...base, phone: "+1 900 555 0100" }, 400, /.+/],
      [{ ...base, phone: "+12125550100", amount: 50 }, 400, /costs \$5/],
      [{ ...base, phone: "+12125550100", language: "klingon" }, 400, /six languages/],
      [{ ...base, phone: "+12125550100", adult: false }, 400, /18 or older/],
      [{ ...base, phone: "+12125550100", recordingAccepted: false }, 400, /transcript notice/],
    ];
    for (const [body, status, message] of cases) {
      const response = await client().postJson("/api/create-payment-intent", body);
      expect(response.status, JSON.stringify(body)).toBe(status);
      expect((await response.json()).error, JSON.stringify(body)).toMatch(message);
    }
  });
});

describe("one payment, exactly one call", () => {
  it("20 concurrent start-call requests and the webhook place a single call", async () => {
    const { paymentIntentId, phone } = await paidIntent();
    const event = stripe.events.find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === paymentIntentId)!;
    stripe.setWebhook(`${app.url}/webhooks/stripe`, WEBHOOK_SECRET);
    const responses = await Promise.all([
      ...Array.from({ length: 20 }, () => client().postJson("/api/empathy/start-call", { phone, language: "spanish", paymentIntentId })),
      stripe.resend(event.id),
    ]);
    const statuses = responses.slice(0, 20).map((r) => (r as Response).status);
    expect(statuses.filter((s) => s === 200).length).toBeLessThanOrEqual(1);
    expect(statuses.every((s) => s === 200 || s === 409)).toBe(true);
    expect(responses[20]).toBe(200);

    await waitFor(async () => (await callsTo(phone)).length === 1, { what: "the call on the fake Twilio" });
    await converse(twilio, realtime, (await newestCallTo(phone, 1)).sid, 1);
    // Every request is answered and the queue has nothing left to run: a duplicate would be placed by now.
    await jobsIdle(app.services);
    const placed = await callsTo(phone);
    expect(placed).toHaveLength(1);
    expect(placed[0]!.params.TimeLimit).toBe("600");
    const rows = await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, phone));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ purpose: "empathy", language: "es", voice: "echo", timeLimitSeconds: 600 });
    const paymentRows = await app.services.db.select().from(payments).where(eq(payments.providerPaymentId, paymentIntentId));
    expect(paymentRows).toHaveLength(1);
  });

  it("the webhook alone places the call when the customer closed the tab after paying", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, WEBHOOK_SECRET);
    const { phone } = await paidIntent();
    await waitFor(async () => (await callsTo(phone)).length === 1, { what: "the call placed by the webhook" });
  });

  it("uses the phone and language stored with the payment, not the ones a later request sends", async () => {
    const { paymentIntentId, phone } = await paidIntent();
    const response = await client().postJson("/api/empathy/start-call", { phone: "+12125550999", language: "english", paymentIntentId });
    expect([200, 409]).toContain(response.status);
    await waitFor(async () => (await callsTo(phone)).length === 1, { what: "the call to the stored number" });
    expect(await callsTo("+12125550999")).toHaveLength(0);
  });
});

describe("payments that place no call", () => {
  async function intentWith(mutate: (intent: any) => void) {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    const { paymentIntentId, phone } = await paidIntent();
    mutate(stripe.paymentIntents.get(paymentIntentId)!);
    return { paymentIntentId, phone };
  }

  it.each([
    ["a wrong amount", (pi: any) => (pi.amount = 100), 400, /not a \$5\.00/],
    ["a wrong currency", (pi: any) => (pi.currency = "eur"), 400, /not a \$5\.00/],
    ["a payment not succeeded", (pi: any) => (pi.status = "requires_payment_method"), 402, /Payment processing/],
    [
      "a payment for something else",
      (pi: any) => (pi.metadata = { purpose: "business_starter", businessId: "1" }),
      400,
      /not for an empathy call/,
    ],
  ])("%s", async (_label, mutate, status, message) => {
    const { paymentIntentId, phone } = await intentWith(mutate);
    const response = await client().postJson("/api/empathy/start-call", { phone, language: "spanish", paymentIntentId });
    expect(response.status).toBe(status);
    expect((await response.json()).error).toMatch(message);
    await jobsIdle(app.services);
    expect(await callsTo(phone)).toHaveLength(0);
  });

  it("a payment already used", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    const { paymentIntentId, phone } = await paidIntent();
    const first = await client().postJson("/api/empathy/start-call", { phone, language: "spanish", paymentIntentId });
    expect(first.status).toBe(200);
    await waitFor(async () => (await callsTo(phone)).length === 1, { what: "the first call" });
    const again = await client().postJson("/api/empathy/start-call", { phone, language: "spanish", paymentIntentId });
    expect(again.status).toBe(409);
    expect((await again.json()).error).toBe("This payment has already been used for a call.");
    await jobsIdle(app.services);
    expect(await callsTo(phone)).toHaveLength(1);
  });

  it("an unknown or malformed PaymentIntent id", async () => {
    expect((await client().postJson("/api/empathy/start-call", { paymentIntentId: "pi_doesnotexist" })).status).toBe(404);
    expect((await client().postJson("/api/empathy/start-call", { paymentIntentId: "nope" })).status).toBe(400);
  });

  it("a forged webhook", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    const { paymentIntentId, phone } = await paidIntent();
    const event = stripe.events.find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === paymentIntentId)!;
    const payload = JSON.stringify(event);
    const forged = stripeApi.webhooks.generateTestHeaderString({ payload, secret: "whsec_attacker" });
    const response = await fetch(`${app.url}/webhooks/stripe`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Stripe-Signature": forged },
      body: payload,
    });
    expect(response.status).toBe(400);
    const unsigned = await fetch(`${app.url}/webhooks/stripe`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: payload,
    });
    expect(unsigned.status).toBe(400);
    await jobsIdle(app.services);
    expect(await callsTo(phone)).toHaveLength(0);
  });
});

describe("a call that does not reach the caller", () => {
  it("is retried, then refunded, with e-mails; the page says so", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    const phone = nextNumber();
    twilio.setOutcome(phone, "no-answer");
    const email = "listener-test@example.com";
    const { paymentIntentId, statusUrl } = await paidIntent(phone, { email });
    const visitorClient = client();
    expect((await visitorClient.postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);

    const requestId = requestIdOf(statusUrl);
    const refunded = await waitFor(
      async () => {
        const row = await findEmpathyRequest(app.services.db, requestId);
        return row?.status === "refunded" ? row : null;
      },
      { what: "the refund", timeoutMs: 30_000 },
    );
    expect(await callsTo(phone)).toHaveLength(3);
    const refund = [...stripe.refunds.values()].find((r) => r.payment_intent === paymentIntentId);
    expect(refund).toMatchObject({ amount: 500, status: "succeeded" });
    expect(refunded.refundId).toBe(refund!.id);
    const [payment] = await app.services.db.select().from(payments).where(eq(payments.providerPaymentId, paymentIntentId));
    expect(payment!.status).toBe("refunded");

    const mails = await waitFor(
      async () => {
        const all = (await readOutbox(app.dataDir)).filter((m) => m.to.includes(email));
        return all.length >= 2 ? all : null;
      },
      { what: "the two e-mails" },
    );
    // In the language the caller chose for the call.
    expect(mails.map((m) => m.subject).sort()).toEqual([es.empathyEmail.failedSubject, es.empathyEmail.refundedSubject].sort());
    expect(mails[0]!.text).toContain(statusUrl);

    const page = await (await visitorClient.get(statusUrl)).text();
    expect(page).toContain('Your <bdi dir="ltr">$5</bdi> has been refunded');
    expect(page).toContain("We couldn&#x27;t reach you after <bdi>3</bdi> attempts");

    // The refund job running again (a retried job) refunds nothing more.
    const { empathyRefundJob } = await import("~/features/empathy/empathy.server");
    await empathyRefundJob.handle({ requestId, origin: app.url }, app.services);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntentId)).toHaveLength(1);
  });

  it("can be asked for again at once from the confirmation page", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    // The automatic retry is ten minutes away here, so only the button can bring the call.
    app.services.env.EMPATHY_RETRY_DELAY_SECONDS = 600;
    try {
      const phone = nextNumber();
      twilio.setOutcome(phone, "busy");
      const { paymentIntentId, statusUrl } = await paidIntent(phone);
      const visitorClient = client();
      expect((await visitorClient.postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);
      const requestId = requestIdOf(statusUrl);
      await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "retrying", { what: "the first miss" });
      const missed = await (await visitorClient.get(statusUrl)).text();
      expect(missed).toContain("We couldn&#x27;t reach you");
      expect(missed).toContain("Call me again now");
      twilio.setOutcome(phone, null);

      const response = await visitorClient.postForm(statusUrl, {}, { tokenFrom: statusUrl });
      expect(response.status).toBe(302);
      expect(await (await visitorClient.get(statusUrl)).text()).toContain("Calling you again");
      await converse(twilio, realtime, (await newestCallTo(phone, 2)).sid, 1);
      await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "completed", {
        what: "the answered retry",
        timeoutMs: 20_000,
      });
      expect(await callsTo(phone)).toHaveLength(2);
    } finally {
      app.services.env.EMPATHY_RETRY_DELAY_SECONDS = 1;
    }
  });
});

describe("a dial the job queue gave up on", () => {
  it("ends the attempt, tries again, and refunds after the last one; a dial that is only waiting is left alone", async () => {
    stripe.setWebhook(`${app.url}/webhooks/stripe`, "whsec_elsewhere");
    // Each attempt after the first waits ten minutes in the queue, where the test can fail its job.
    app.services.env.EMPATHY_RETRY_DELAY_SECONDS = 600;
    const phone = nextNumber();
    twilio.setOutcome(phone, "busy");
    try {
      const { paymentIntentId, statusUrl } = await paidIntent(phone);
      expect((await client().postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);
      const requestId = requestIdOf(statusUrl);
      const attempt = (n: number) =>
        waitFor(
          async () => {
            const [row] = await app.services.db
              .select()
              .from(callsTable)
              .where(and(eq(callsTable.empathyRequestId, requestId), eq(callsTable.attempt, n)));
            return row ?? null;
          },
          { what: `attempt ${n}` },
        );
      /** The attempt was queued long enough ago for the sweeper to look at it. */
      const age = (id: number) =>
        app.services.db
          .update(callsTable)
          .set({ createdAt: sql`now() - interval '10 minutes'` })
          .where(eq(callsTable.id, id));
      /** What pg-boss does once a job has used its last retry (a database down for hours, a worker killed at every try). */
      const giveUp = async (id: number) => {
        const { rows } = await app.services.database.executeSql(
          `UPDATE pgboss.job SET state = 'failed', completed_on = now(), output = '{"message":"Connection terminated unexpectedly"}'::jsonb
           WHERE name = 'call-place' AND data->>'callId' = $1 AND state = 'created' RETURNING id`,
          [String(id)],
        );
        expect(rows).toHaveLength(1);
      };

      const second = await attempt(2);
      expect(second.status).toBe("queued");
      await age(second.id);
      // Its job is only waiting for its time: the sweeper leaves the call as it is.
      await callSweeperJob.handle({}, app.services);
      expect((await attempt(2)).status).toBe("queued");

      await giveUp(second.id);
      await callSweeperJob.handle({}, app.services);
      const ended = await attempt(2);
      expect(ended.status).toBe("failed");
      expect(ended.lastError).toContain("Connection terminated unexpectedly");
      expect((await findEmpathyRequest(app.services.db, requestId))!.status).toBe("retrying");

      // The last attempt's job gives up too: the $5 goes back.
      const third = await attempt(3);
      expect(third.status).toBe("queued");
      await age(third.id);
      await giveUp(third.id);
      await callSweeperJob.handle({}, app.services);
      const refunded = await waitFor(
        async () => {
          const row = await findEmpathyRequest(app.services.db, requestId);
          return row?.status === "refunded" ? row : null;
        },
        { what: "the refund" },
      );
      expect(refunded.refundReason).toBe("not_reached");
      expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntentId)).toEqual([
        expect.objectContaining({ amount: 500, status: "succeeded" }),
      ]);
      // The sweeper running again (every minute) ends and refunds nothing more.
      await callSweeperJob.handle({}, app.services);
      expect(await callsTo(phone)).toHaveLength(1);
      expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntentId)).toHaveLength(1);
    } finally {
      app.services.env.EMPATHY_RETRY_DELAY_SECONDS = 1;
      twilio.setOutcome(phone, null);
    }
  });
});

describe("a dial the phone network does not answer", () => {
  it("says the call is being checked, not placed again, until the network answers; then the phone rings once", async () => {
    const phone = nextNumber();
    const hang = twilio.hangNext({ to: phone });
    const { paymentIntentId, statusUrl } = await paidIntent(phone);
    const visitorClient = client();
    expect((await visitorClient.postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);
    await hang.arrived;
    const requestId = requestIdOf(statusUrl);
    const checking = en.empathy.progressChecking.replaceAll("'", "&#x27;");
    // Within the provider's usual second or two the page still says the call is being placed.
    expect(await (await visitorClient.get(statusUrl)).text()).not.toContain(checking);
    // The dial has hung past DIAL_STALLED_SECONDS (or its process died): its claim is that old.
    await app.services.db
      .update(callsTable)
      .set({ dialClaimedAt: new Date(Date.now() - (DIAL_STALLED_SECONDS + 1) * 1000) })
      .where(eq(callsTable.empathyRequestId, requestId));
    const page = await (await visitorClient.get(statusUrl)).text();
    expect(page).toContain(checking);
    expect(page).not.toContain(en.empathy.progressQueued);

    hang.release();
    const placed = await newestCallTo(phone, 1);
    await waitFor(async () => !(await (await visitorClient.get(statusUrl)).text()).includes(checking), {
      what: "the page to leave the check",
    });
    await converse(twilio, realtime, placed.sid, 1);
    await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "completed", {
      what: "the call to end",
      timeoutMs: 20_000,
    });
    expect(await callsTo(phone)).toHaveLength(1);
  });
});

describe("a server with payments but no telephony", () => {
  it("takes no money and places no call, with a clear 503 instead of an error", async () => {
    const noCalls = await startAppInProcess({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_API_URL: stripe.url,
      SEED_DEMO_DATA: "false",
    });
    try {
      const api = httpClient(noCalls.url);
      const pay = await api.postJson("/api/create-payment-intent", {
        amount: 5,
        phone: "+12125550100",
        language: "english",
        adult: true,
        recordingAccepted: true,
      });
      expect(pay.status).toBe(503);
      const intent = stripe.seedPaymentIntent({
        amount: 500,
        currency: "usd",
        status: "succeeded",
        metadata: { purpose: "empathy_call", empathyRequestId: "1" },
      });
      const start = await api.postJson("/api/empathy/start-call", { paymentIntentId: intent.id });
      expect(start.status).toBe(503);
      expect((await start.json()).error).toBe("Calls are not configured on this server yet, so no call can be requested.");
    } finally {
      await noCalls.stop();
    }
  });
});

describe("privacy", () => {
  it("records the funnel without phone numbers", async () => {
    const rows = await app.services.db.select().from(funnelEvents);
    const names = new Set(rows.map((row) => row.name));
    for (const name of ["payment_success", "call_initiated", "call_delivered"]) expect(names).toContain(name);
    expect(JSON.stringify(rows)).not.toMatch(/\+1212555/);
  });

  it("erases phone numbers 24 hours after the call, and running the erasure twice is safe", async () => {
    const { paymentIntentId, phone, statusUrl } = await paidIntent();
    expect((await client().postJson("/api/empathy/start-call", { paymentIntentId })).status).toBe(200);
    const requestId = requestIdOf(statusUrl);
    await converse(twilio, realtime, (await newestCallTo(phone, 1)).sid, 1);
    await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "completed", {
      what: "the call to end",
      timeoutMs: 20_000,
    });

    // Within 24 hours nothing is erased.
    await empathyErasureJob.handle({}, app.services);
    expect((await findEmpathyRequest(app.services.db, requestId))!.phone).toBe(phone);

    const dayAgo = new Date(Date.now() - 24 * 3_600_000 - 60_000);
    await app.services.db.update(empathyRequests).set({ finishedAt: dayAgo }).where(eq(empathyRequests.id, requestId));
    await empathyErasureJob.handle({}, app.services);
    const erased = (await findEmpathyRequest(app.services.db, requestId))!;
    expect(erased.phone).toBeNull();
    expect(erased.erasedAt).not.toBeNull();
    const callRows = await app.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId));
    expect(callRows.every((row) => row.toNumber === null)).toBe(true);

    await empathyErasureJob.handle({}, app.services);
    const again = (await findEmpathyRequest(app.services.db, requestId))!;
    expect(again.phone).toBeNull();
    expect(again.erasedAt!.getTime()).toBe(erased.erasedAt!.getTime());
    expect(again.status).toBe("completed");
  });
});
