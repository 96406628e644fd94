// Tests of the fake Stripe server itself, driven through the real `stripe` SDK (and, for the
// Stripe.js stand-in and the hosted Checkout page, through Chromium when it is installed).
import http from "node:http";
import type { AddressInfo } from "node:net";
import vm from "node:vm";
import type { Browser } from "playwright-core";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { axeViolations, chromiumPath, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { startFakeStripe, type FakeStripe } from "./stripe";
import { stripeJsSource } from "./stripe-js";

let fake: FakeStripe;
let stripe: Stripe;

function sdk(key: string) {
  return new Stripe(key, { host: "127.0.0.1", port: Number(new URL(fake.url).port), protocol: "http", maxNetworkRetries: 0 });
}

/** Calls the SDK and returns the error it throws. */
async function failure(call: () => Promise<unknown>): Promise<Stripe.errors.StripeError> {
  try {
    await call();
  } catch (error) {
    return error as Stripe.errors.StripeError;
  }
  throw new Error("expected the call to fail");
}

/** A tiny HTTP server that records what is posted to it and answers with `status`. */
async function startReceiver(status = 200) {
  const received: { body: string; signature: string }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), signature: String(req.headers["stripe-signature"] ?? "") });
      res.writeHead(receiver.status, { "content-type": "text/html" });
      res.end(
        req.url === "/webhook" ? "ok" : `<!doctype html><html lang="en"><title>App</title><main><h1>Back at the app</h1></main></html>`,
      );
    });
  });
  const receiver = { received, status, url: "", close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return receiver;
}

beforeAll(async () => {
  fake = await startFakeStripe();
  stripe = sdk(fake.secretKey);
});
afterAll(async () => {
  await fake?.close();
});

describe("payment intents", () => {
  it("creates a customer and a PaymentIntent and confirms it with a test card", async () => {
    const customer = await stripe.customers.create({ email: "amina@example.com", name: "Amina", metadata: { businessId: "1" } });
    expect(customer.id).toMatch(/^cus_/);
    expect(customer).toMatchObject({ object: "customer", livemode: false, metadata: { businessId: "1" } });

    const intent = await stripe.paymentIntents.create({
      amount: 2500,
      currency: "usd",
      customer: customer.id,
      metadata: { bookingId: "42" },
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    expect(intent.id).toMatch(/^pi_/);
    expect(intent.status).toBe("requires_payment_method");
    expect(intent.client_secret).toMatch(new RegExp(`^${intent.id}_secret_`));

    const confirmed = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" });
    expect(confirmed.status).toBe("succeeded");
    expect(confirmed.amount_received).toBe(2500);
    expect(confirmed.payment_method).toMatch(/^pm_/);
    expect(confirmed.latest_charge).toMatch(/^ch_/);

    const again = await stripe.paymentIntents.retrieve(intent.id, { expand: ["latest_charge", "customer"] });
    expect((again.latest_charge as Stripe.Charge).status).toBe("succeeded");
    expect((again.customer as Stripe.Customer).email).toBe("amina@example.com");
    expect(fake.lastEvent("payment_intent.succeeded")?.data.object.id).toBe(intent.id);
  });

  it("declines a declined card with a 402 card_error and leaves the intent payable", async () => {
    const intent = await stripe.paymentIntents.create({
      amount: 1000,
      currency: "eur",
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    const error = await failure(() => stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_chargeDeclined" }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(error).toMatchObject({
      statusCode: 402,
      code: "card_declined",
      decline_code: "generic_decline",
      message: "Your card was declined.",
    });
    const after = await stripe.paymentIntents.retrieve(intent.id);
    expect(after.status).toBe("requires_payment_method");
    expect(after.last_payment_error).toMatchObject({ type: "card_error", code: "card_declined", decline_code: "generic_decline" });

    const funds = await failure(() =>
      stripe.paymentIntents.create({
        amount: 1000,
        currency: "eur",
        confirm: true,
        off_session: true,
        payment_method: "pm_card_chargeDeclinedInsufficientFunds",
      }),
    );
    expect(funds).toMatchObject({ statusCode: 402, decline_code: "insufficient_funds" });
    expect((funds.raw as { payment_intent?: { status: string } }).payment_intent?.status).toBe("requires_payment_method");
  });

  it("refuses parameters this API version does not know, missing ones, and a missing return_url", async () => {
    const unknown = await failure(() =>
      stripe.paymentIntents.create({ amount: 1000, currency: "usd", payment_method_types: ["card"] } as Stripe.PaymentIntentCreateParams),
    );
    expect(unknown).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(unknown).toMatchObject({
      statusCode: 400,
      code: "parameter_unknown",
      param: "payment_method_types",
      message: "Received unknown parameter: payment_method_types",
    });

    const nested = await failure(() =>
      stripe.paymentIntents.create({
        amount: 1000,
        currency: "usd",
        automatic_payment_methods: { enabled: true, foo: 1 },
      } as Stripe.PaymentIntentCreateParams),
    );
    expect(nested).toMatchObject({ code: "parameter_unknown", param: "automatic_payment_methods[foo]" });

    const missing = await failure(() => stripe.paymentIntents.create({ amount: 1000 } as Stripe.PaymentIntentCreateParams));
    expect(missing).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "currency" });

    const tooSmall = await failure(() => stripe.paymentIntents.create({ amount: 10, currency: "usd" }));
    expect(tooSmall).toMatchObject({ code: "amount_too_small", param: "amount" });

    const allowed = await stripe.paymentIntents.create({ amount: 1000, currency: "usd", allowed_payment_method_types: ["card"] });
    expect(allowed.allowed_payment_method_types).toEqual(["card"]);

    const intent = await stripe.paymentIntents.create({ amount: 1000, currency: "usd" });
    const noReturn = await failure(() => stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa" }));
    expect(noReturn.message).toMatch(/you must provide a `return_url`/);
    const ok = await stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa", return_url: "https://app.example/return" });
    expect(ok.status).toBe("succeeded");
    const twice = await failure(() =>
      stripe.paymentIntents.confirm(intent.id, { payment_method: "pm_card_visa", return_url: "https://app.example/return" }),
    );
    expect(twice).toMatchObject({ code: "payment_intent_unexpected_state" });
  });

  it("answers 404 resource_missing for an unknown id and 401 for a wrong key", async () => {
    const missing = await failure(() => stripe.paymentIntents.retrieve("pi_x"));
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(missing).toMatchObject({ statusCode: 404, code: "resource_missing", message: "No such payment_intent: 'pi_x'" });
    expect(missing.requestId).toMatch(/^req_/);

    const wrong = await failure(() => sdk("sk_test_wrong_key_1234").customers.create({ email: "a@example.com" }));
    expect(wrong).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
    expect(wrong.message).toMatch(/^Invalid API Key provided: sk_test_\*+1234$/);

    const publishable = await failure(() => sdk(fake.publishableKey).customers.create({ email: "a@example.com" }));
    expect(publishable).toBeInstanceOf(Stripe.errors.StripeAuthenticationError);
  });

  it("replays an idempotent request and refuses the key with other parameters", async () => {
    const before = fake.paymentIntents.size;
    const first = await stripe.paymentIntents.create({ amount: 1500, currency: "usd" }, { idempotencyKey: "booking-7" });
    const second = await stripe.paymentIntents.create({ amount: 1500, currency: "usd" }, { idempotencyKey: "booking-7" });
    expect(second.id).toBe(first.id);
    expect(second.lastResponse.headers["idempotent-replayed"]).toBe("true");
    expect(fake.paymentIntents.size).toBe(before + 1);
    const other = await failure(() => stripe.paymentIntents.create({ amount: 1600, currency: "usd" }, { idempotencyKey: "booking-7" }));
    expect(other).toBeInstanceOf(Stripe.errors.StripeIdempotencyError);
  });

  it("fails the next matching requests on demand", async () => {
    fake.failNext({ method: "POST", pathPrefix: "/v1/customers" }, 500, {
      type: "api_error",
      message: "Something went wrong on Stripe's end.",
    });
    const error = await failure(() => stripe.customers.create({ email: "retry@example.com" }));
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError);
    expect(error.statusCode).toBe(500);
    fake.failNext({ method: "GET", pathPrefix: "/v1/customers/" }, 429, {
      type: "invalid_request_error",
      code: "rate_limit",
      message: "Too many requests.",
    });
    const customer = await stripe.customers.create({ email: "retry@example.com" });
    expect(await failure(() => stripe.customers.retrieve(customer.id))).toBeInstanceOf(Stripe.errors.StripeRateLimitError);
    expect((await stripe.customers.retrieve(customer.id)).id).toBe(customer.id);
  });

  it("refunds a succeeded payment only", async () => {
    const paid = fake.seedPaymentIntent({ amount: 3000, currency: "usd", status: "succeeded", metadata: { bookingId: "9" } });
    const refund = await stripe.refunds.create({ payment_intent: paid.id, amount: 1000, reason: "requested_by_customer" });
    expect(refund).toMatchObject({ object: "refund", amount: 1000, status: "succeeded", payment_intent: paid.id });
    expect((await stripe.refunds.retrieve(refund.id)).id).toBe(refund.id);
    expect(fake.lastEvent("charge.refunded")?.data.object).toMatchObject({ amount_refunded: 1000, refunded: false });
    const tooMuch = await failure(() => stripe.refunds.create({ payment_intent: paid.id, amount: 5000 }));
    expect(tooMuch.param).toBe("amount");
    const unpaid = fake.seedPaymentIntent({ amount: 3000 });
    const refused = await failure(() => stripe.refunds.create({ payment_intent: unpaid.id }));
    expect(refused).toMatchObject({ statusCode: 400, code: "charge_not_refundable" });
  });

  it("lets a publishable key only retrieve and confirm with the client secret", async () => {
    const intent = await stripe.paymentIntents.create({ amount: 1200, currency: "usd", metadata: { secret: "server-only" } });
    const browserLike = sdk(fake.publishableKey);
    const seen = await browserLike.paymentIntents.retrieve(intent.id, { client_secret: intent.client_secret! });
    expect(seen.status).toBe("requires_payment_method");
    expect(seen.metadata).toBeUndefined();
    const withoutSecret = await failure(() => browserLike.paymentIntents.retrieve(intent.id));
    expect(withoutSecret.statusCode).toBe(400);
    // Stripe.js's confirmation (publishable key, client secret) needs a return_url as the server's does.
    const clientSecret = intent.client_secret!;
    const noReturn = await failure(() =>
      browserLike.paymentIntents.confirm(intent.id, {
        client_secret: clientSecret,
        payment_method: "pm_card_visa",
      } as Stripe.PaymentIntentConfirmParams),
    );
    expect(noReturn).toMatchObject({ statusCode: 400, type: "StripeInvalidRequestError", param: "return_url" });
    expect(noReturn.message).toMatch(/you must provide a `return_url`/);
    const relative = await failure(() =>
      browserLike.paymentIntents.confirm(intent.id, {
        client_secret: clientSecret,
        payment_method: "pm_card_visa",
        return_url: "/back",
      } as Stripe.PaymentIntentConfirmParams),
    );
    expect(relative).toMatchObject({ statusCode: 400, param: "return_url", message: "Not a valid URL" });
    expect((await stripe.paymentIntents.retrieve(intent.id)).status).toBe("requires_payment_method");
    const never = await stripe.paymentIntents.create({
      amount: 1200,
      currency: "usd",
      automatic_payment_methods: { enabled: true, allow_redirects: "never" },
    });
    const paid = await browserLike.paymentIntents.confirm(never.id, {
      client_secret: never.client_secret!,
      payment_method: "pm_card_visa",
    } as Stripe.PaymentIntentConfirmParams);
    expect(paid.status).toBe("succeeded");
    const rawCard = await failure(() =>
      stripe.paymentIntents.confirm(intent.id, {
        payment_method_data: { type: "card", card: { number: "4242424242424242" } },
      } as unknown as Stripe.PaymentIntentConfirmParams),
    );
    expect(rawCard.message).toMatch(/Sending credit card numbers directly/);
  });
});

describe("checkout", () => {
  it("creates a session whose hosted page pays without JavaScript and redirects", async () => {
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      customer_email: "buyer@example.com",
      line_items: [
        { price_data: { currency: "usd", unit_amount: 4500, product_data: { name: "Session with a counsellor" } }, quantity: 1 },
      ],
      payment_intent_data: { metadata: { bookingId: "77" }, setup_future_usage: "off_session" },
      metadata: { bookingId: "77" },
      success_url: "https://app.example/paid?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://app.example/cancelled",
    });
    expect(session.id).toMatch(/^cs_/);
    expect(session.url).toBe(`${fake.url}/checkout/${session.id}`);
    expect(session.amount_total).toBe(4500);

    const page = await fetch(session.url!);
    const html = await page.text();
    expect(html).toContain('<label for="card-number">Card number</label>');
    expect(html).toContain('value="4242 4242 4242 4242"');
    expect(html).toContain('href="https://app.example/cancelled"');

    const declined = await fetch(session.url!, {
      method: "POST",
      body: new URLSearchParams({ card_number: "4000 0000 0000 0002", email: "buyer@example.com" }),
      redirect: "manual",
    });
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain("Your card was declined.");

    const paid = await fetch(session.url!, {
      method: "POST",
      body: new URLSearchParams({ card_number: "4242 4242 4242 4242", email: "buyer@example.com" }),
      redirect: "manual",
    });
    expect(paid.status).toBe(303);
    expect(paid.headers.get("location")).toBe(`https://app.example/paid?session_id=${session.id}`);

    const done = await stripe.checkout.sessions.retrieve(session.id, { expand: ["payment_intent", "line_items"] });
    expect(done).toMatchObject({ status: "complete", payment_status: "paid" });
    const intent = done.payment_intent as Stripe.PaymentIntent;
    expect(intent).toMatchObject({ status: "succeeded", amount: 4500, metadata: { bookingId: "77" } });
    expect(intent.customer).toMatch(/^cus_/);
    expect(done.line_items?.data[0]?.description).toBe("Session with a counsellor");
    expect(fake.lastEvent("checkout.session.completed")?.data.object.id).toBe(session.id);
  });

  it("refuses a recurring price in payment mode and unknown parameters", async () => {
    const product = await stripe.products.create({ name: "Plan" });
    const monthly = await stripe.prices.create({
      currency: "usd",
      unit_amount: 900,
      product: product.id,
      recurring: { interval: "month" },
    });
    const wrongMode = await failure(() =>
      stripe.checkout.sessions.create({
        mode: "payment",
        line_items: [{ price: monthly.id, quantity: 1 }],
        success_url: "https://app.example/ok",
      }),
    );
    expect(wrongMode.param).toBe("line_items[0][price]");
    const unknown = await failure(() =>
      stripe.checkout.sessions.create({
        mode: "subscription",
        payment_method_types: ["card"],
        line_items: [{ price: monthly.id, quantity: 1 }],
      } as Stripe.Checkout.SessionCreateParams),
    );
    expect(unknown).toMatchObject({ code: "parameter_unknown", param: "payment_method_types" });
  });
});

describe("webhooks", () => {
  it("delivers signed events after the response, records them, and replays on demand", async () => {
    const receiver = await startReceiver(200);
    const secret = "whsec_test_fake";
    fake.setWebhook(`${receiver.url}/webhook`, secret);
    try {
      const intent = await stripe.paymentIntents.create({
        amount: 2000,
        currency: "usd",
        confirm: true,
        payment_method: "pm_card_visa",
        automatic_payment_methods: { enabled: true, allow_redirects: "never" },
      });
      await fake.flush();
      const delivered = receiver.received.at(-1)!;
      const event = stripe.webhooks.constructEvent(delivered.body, delivered.signature, secret);
      expect(event).toMatchObject({ type: "payment_intent.succeeded", object: "event", api_version: "2026-10-28.endive", livemode: false });
      expect((event.data.object as Stripe.PaymentIntent).id).toBe(intent.id);
      expect(fake.deliveries.at(-1)).toMatchObject({ eventId: event.id, type: "payment_intent.succeeded", status: 200 });
      expect(() => stripe.webhooks.constructEvent(delivered.body, delivered.signature, "whsec_other")).toThrow(
        Stripe.errors.StripeSignatureVerificationError,
      );

      receiver.status = 500;
      expect(await fake.resend(event.id)).toBe(500);
      expect(receiver.received.at(-1)!.body).toBe(delivered.body);
      expect(fake.deliveries.at(-1)).toMatchObject({ eventId: event.id, status: 500 });
    } finally {
      await receiver.close();
    }
  });
});

describe("billing", () => {
  it("lists prices by lookup key and refuses a duplicate meter event identifier", async () => {
    const meter = await stripe.billing.meters.create({
      display_name: "Minutes",
      event_name: "voice_minutes",
      default_aggregation: { formula: "sum" },
      customer_mapping: { event_payload_key: "stripe_customer_id", type: "by_id" },
      value_settings: { event_payload_key: "value" },
    });
    expect(meter.id).toMatch(/^mtr_/);
    const product = await stripe.products.create({ name: "Voice" });
    const metered = await stripe.prices.create({
      currency: "usd",
      product: product.id,
      unit_amount: 5,
      lookup_key: "voice_minute",
      recurring: { interval: "month", usage_type: "metered", meter: meter.id },
    });
    const listed = await stripe.prices.list({ lookup_keys: ["voice_minute"], active: true, expand: ["data.product"] });
    expect(listed).toMatchObject({ object: "list", has_more: false, url: "/v1/prices" });
    expect(listed.data.map((p) => p.id)).toEqual([metered.id]);
    expect((listed.data[0]!.product as Stripe.Product).name).toBe("Voice");
    const taken = await failure(() =>
      stripe.prices.create({ currency: "usd", product: product.id, unit_amount: 6, lookup_key: "voice_minute" }),
    );
    expect(taken.param).toBe("lookup_key");

    const customer = await stripe.customers.create({ email: "meter@example.com" });
    const event = await stripe.billing.meterEvents.create({
      event_name: "voice_minutes",
      payload: { stripe_customer_id: customer.id, value: "12" },
      identifier: "call-1",
    });
    expect(event).toMatchObject({ object: "billing.meter_event", identifier: "call-1" });
    const duplicate = await failure(() =>
      stripe.billing.meterEvents.create({
        event_name: "voice_minutes",
        payload: { stripe_customer_id: customer.id, value: "12" },
        identifier: "call-1",
      }),
    );
    expect(duplicate).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError);
    expect(duplicate.message).toBe("An event already exists with identifier call-1.");
    expect(fake.meterEvents.size).toBe(1);
    expect(fake.meterEventErrors).toEqual([]);
  });

  it("pages meters as Stripe pages lists: newest first, limit 10 by default, has_more and starting_after", async () => {
    const own = await startFakeStripe();
    try {
      const api = new Stripe(own.secretKey, {
        host: "127.0.0.1",
        port: Number(new URL(own.url).port),
        protocol: "http",
        maxNetworkRetries: 0,
      });
      const made: string[] = [];
      for (let n = 0; n < 23; n++) {
        made.push(
          (await api.billing.meters.create({ display_name: `M${n}`, event_name: `m_${n}`, default_aggregation: { formula: "sum" } })).id,
        );
      }
      const newest = [...made].reverse();
      const first = await api.billing.meters.list();
      expect(first.data.map((m) => m.id)).toEqual(newest.slice(0, 10));
      expect(first.has_more).toBe(true);
      const second = await api.billing.meters.list({ starting_after: first.data.at(-1)!.id });
      expect(second.data.map((m) => m.id)).toEqual(newest.slice(10, 20));
      const last = await api.billing.meters.list({ starting_after: second.data.at(-1)!.id });
      expect([last.data.map((m) => m.id), last.has_more]).toEqual([newest.slice(20), false]);
      const before = await api.billing.meters.list({ ending_before: last.data[0]!.id, limit: 3 });
      expect(before.data.map((m) => m.id)).toEqual(newest.slice(17, 20));
      // The SDK's auto-pagination walks every page once.
      const all: string[] = [];
      for await (const meter of api.billing.meters.list({ limit: 4 })) all.push(meter.id);
      expect(all).toEqual(newest);
      expect(await failure(() => api.billing.meters.list({ limit: 101 }))).toMatchObject({ statusCode: 400, param: "limit" });
      expect(await failure(() => api.billing.meters.list({ starting_after: "mtr_unknown" }))).toMatchObject({
        statusCode: 400,
        param: "starting_after",
      });
    } finally {
      await own.close();
    }
  });

  it("starts a subscription in trial, refuses the removed expansion, and cancels it", async () => {
    const customer = await stripe.customers.create({ email: "sub@example.com" });
    const price = await stripe.prices.create({
      currency: "usd",
      unit_amount: 1900,
      product_data: { name: "Pro" },
      recurring: { interval: "month" },
    });
    const trialEnd = Math.floor(Date.now() / 1000) + 14 * 86400;

    const refused = await failure(() =>
      stripe.subscriptions.create({
        customer: customer.id,
        items: [{ price: price.id }],
        trial_end: trialEnd,
        expand: ["latest_invoice.payment_intent"],
      }),
    );
    expect(refused).toMatchObject({ statusCode: 400, param: "expand" });
    expect(fake.subscriptions.size).toBe(0);

    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_end: trialEnd,
      expand: ["latest_invoice.confirmation_secret"],
    });
    expect(sub.id).toMatch(/^sub_/);
    expect(sub.status).toBe("trialing");
    expect(sub.items.data[0]!.current_period_end).toBe(trialEnd);
    expect((sub.latest_invoice as Stripe.Invoice).status).toBe("paid");

    const noCard = await failure(() => stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] }));
    expect(noCard.message).toMatch(/no attached payment source or default payment method/);

    const incomplete = await stripe.subscriptions.create({
      customer: customer.id,
      items: [
        {
          price: (
            await stripe.prices.create({
              currency: "usd",
              unit_amount: 500,
              product_data: { name: "Extra" },
              recurring: { interval: "month" },
            })
          ).id,
        },
      ],
      payment_behavior: "default_incomplete",
      expand: ["latest_invoice.confirmation_secret"],
    });
    expect(incomplete.status).toBe("incomplete");
    const secret = (incomplete.latest_invoice as Stripe.Invoice).confirmation_secret!.client_secret;
    const intentId = secret.split("_secret_")[0]!;
    await sdk(fake.publishableKey).paymentIntents.confirm(intentId, {
      client_secret: secret,
      payment_method: "pm_card_visa",
    } as Stripe.PaymentIntentConfirmParams);
    expect((await stripe.subscriptions.retrieve(incomplete.id)).status).toBe("active");

    const updated = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    expect(updated.cancel_at_period_end).toBe(true);
    expect(fake.lastEvent("customer.subscription.updated")?.data.previous_attributes).toMatchObject({ cancel_at_period_end: false });
    const canceled = await stripe.subscriptions.cancel(sub.id);
    expect(canceled.status).toBe("canceled");
    expect(fake.lastEvent("customer.subscription.deleted")?.data.object.id).toBe(sub.id);
  });
});

describe("consumer subscriptions", () => {
  async function monthlyPrice(amount: number, name: string) {
    return stripe.prices.create({ currency: "usd", unit_amount: amount, product_data: { name }, recurring: { interval: "month" } });
  }
  /** A 7-day trial as the app starts it: no card yet, one to collect with the pending SetupIntent. */
  async function trialWithoutCard(email: string, amount = 900) {
    const customer = await stripe.customers.create({ email });
    const price = await monthlyPrice(amount, "Sakina Plus");
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      trial_period_days: 7,
      expand: ["pending_setup_intent"],
    });
    return { customer, price, sub, setupIntent: sub.pending_setup_intent as Stripe.SetupIntent };
  }
  const cardData = (clientSecret: string, number: string) =>
    ({
      client_secret: clientSecret,
      payment_method_data: { type: "card", card: { number } },
    }) as unknown as Stripe.SetupIntentConfirmParams;
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  /** The events of a type about one object, oldest first. */
  const eventsOf = (type: string, id: string) => fake.events.filter((e) => e.type === type && e.data.object.id === id);

  it("gives a trial started with default_incomplete a pending SetupIntent, whose success becomes the default card", async () => {
    const { customer, sub, setupIntent: si } = await trialWithoutCard("trial@example.com");
    expect(sub.status).toBe("trialing");
    expect(sub.trial_end).toBe(sub.trial_start! + 7 * 86400);
    expect(sub.default_payment_method).toBeNull();
    expect(sub.payment_settings?.save_default_payment_method).toBe("on_subscription");
    expect(si.id).toMatch(/^seti_/);
    expect(si).toMatchObject({
      object: "setup_intent",
      customer: customer.id,
      usage: "off_session",
      status: "requires_payment_method",
      metadata: {},
      payment_method: null,
    });
    expect(si.client_secret).toMatch(new RegExp(`^${si.id}_secret_`));
    expect(fake.setupIntents.get(si.id)?.status).toBe("requires_payment_method");
    expect((await stripe.subscriptions.retrieve(sub.id)).pending_setup_intent).toBe(si.id);

    // What Stripe.js's confirmSetup does: the publishable key with the client secret.
    const browserLike = sdk(fake.publishableKey);
    const seen = await browserLike.setupIntents.retrieve(si.id, { client_secret: si.client_secret! });
    expect(seen).toMatchObject({ id: si.id, status: "requires_payment_method", usage: "off_session" });
    expect(seen.customer).toBeUndefined();
    expect(seen.metadata).toBeUndefined();
    expect((await failure(() => browserLike.setupIntents.retrieve(si.id))).statusCode).toBe(400);
    expect((await failure(() => browserLike.setupIntents.retrieve(si.id, { client_secret: "seti_x_secret_y" }))).statusCode).toBe(404);

    const declined = await failure(() => browserLike.setupIntents.confirm(si.id, cardData(si.client_secret!, "4000000000000002")));
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError);
    expect(declined).toMatchObject({
      statusCode: 402,
      code: "card_declined",
      decline_code: "generic_decline",
      message: "Your card was declined.",
    });
    const redacted = (declined.raw as { setup_intent?: Record<string, unknown> }).setup_intent;
    expect(redacted).toMatchObject({ id: si.id, status: "requires_payment_method" });
    expect(redacted?.customer).toBeUndefined();
    const afterDecline = await stripe.setupIntents.retrieve(si.id);
    expect(afterDecline.status).toBe("requires_payment_method");
    expect(afterDecline.last_setup_error).toMatchObject({ type: "card_error", code: "card_declined", decline_code: "generic_decline" });
    expect(fake.lastEvent("setup_intent.setup_failed")?.data.object.id).toBe(si.id);
    expect((await stripe.subscriptions.retrieve(sub.id)).pending_setup_intent).toBe(si.id);

    const confirmed = await browserLike.setupIntents.confirm(si.id, cardData(si.client_secret!, "4242424242424242"));
    expect(confirmed).toMatchObject({ id: si.id, status: "succeeded", last_setup_error: null });
    const card = confirmed.payment_method as string;
    expect(card).toMatch(/^pm_/);
    expect(fake.paymentMethods.get(card)?.customer).toBe(customer.id);
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({
      status: "trialing",
      default_payment_method: card,
      pending_setup_intent: null,
    });
    expect(fake.events.slice(-2).map((e) => e.type)).toEqual(["setup_intent.succeeded", "customer.subscription.updated"]);
    expect(fake.lastEvent("setup_intent.succeeded")?.data.object).toMatchObject({ id: si.id, customer: customer.id, payment_method: card });
    const updated = fake.lastEvent("customer.subscription.updated")!;
    expect(updated.data.object).toMatchObject({ id: sub.id, default_payment_method: card, pending_setup_intent: null });
    expect(updated.data.previous_attributes).toEqual({ default_payment_method: null, pending_setup_intent: si.id });

    const twice = await failure(() => browserLike.setupIntents.confirm(si.id, cardData(si.client_secret!, "4242424242424242")));
    expect(twice).toMatchObject({ statusCode: 400, code: "setup_intent_unexpected_state" });
  });

  it("creates no pending SetupIntent when a card is on file or the trial is not default_incomplete; confirms one server-side", async () => {
    const price = await monthlyPrice(900, "Sakina Plus");
    const carded = await stripe.customers.create({
      email: "carded@example.com",
      payment_method: "pm_card_visa",
      invoice_settings: { default_payment_method: "pm_card_visa" },
    });
    const defaultCard = carded.invoice_settings.default_payment_method as string;
    expect(defaultCard).toMatch(/^pm_/);
    expect(fake.paymentMethods.get(defaultCard)?.customer).toBe(carded.id);
    const withCard = await stripe.subscriptions.create({
      customer: carded.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      trial_period_days: 7,
      expand: ["pending_setup_intent"],
    });
    expect(withCard).toMatchObject({ status: "trialing", pending_setup_intent: null });

    const bare = await stripe.customers.create({ email: "bare@example.com" });
    const allowIncomplete = await stripe.subscriptions.create({ customer: bare.id, items: [{ price: price.id }], trial_period_days: 7 });
    expect(allowIncomplete).toMatchObject({ status: "trialing", pending_setup_intent: null });

    const unknownSetting = await failure(() =>
      stripe.subscriptions.create({
        customer: bare.id,
        items: [{ price: price.id }],
        payment_settings: { save_default_payment_method: "always" } as unknown as Stripe.SubscriptionCreateParams.PaymentSettings,
      }),
    );
    expect(unknownSetting).toMatchObject({ statusCode: 400, param: "payment_settings[save_default_payment_method]" });

    // save_default_payment_method off: the card is saved to the customer, not to the subscription.
    const off = await stripe.subscriptions.create({
      customer: bare.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      trial_end: nowSeconds() + 3 * 86400,
      expand: ["pending_setup_intent"],
    });
    const si = off.pending_setup_intent as Stripe.SetupIntent;
    expect(si.status).toBe("requires_payment_method");
    const rawCard = await failure(() => stripe.setupIntents.confirm(si.id, cardData(si.client_secret!, "4242424242424242")));
    expect(rawCard.message).toMatch(/Sending credit card numbers directly/);
    const refused = await failure(() => stripe.setupIntents.confirm(si.id, { payment_method: "pm_card_chargeDeclinedInsufficientFunds" }));
    expect(refused).toMatchObject({ statusCode: 402, type: "StripeCardError", decline_code: "insufficient_funds" });
    const missing = await failure(() => stripe.setupIntents.confirm(si.id));
    expect(missing).toMatchObject({ statusCode: 400, code: "setup_intent_unexpected_state" });
    const ok = await stripe.setupIntents.confirm(si.id, { payment_method: "pm_card_visa", expand: ["payment_method"] });
    expect(ok.status).toBe("succeeded");
    expect((ok.payment_method as Stripe.PaymentMethod).customer).toBe(bare.id);
    expect(await stripe.subscriptions.retrieve(off.id)).toMatchObject({ default_payment_method: null, pending_setup_intent: null });
    expect(fake.lastEvent("customer.subscription.updated")?.data.previous_attributes).toEqual({ pending_setup_intent: si.id });
  });

  it("advanceSubscription ends the trial and renews, charging the default card", async () => {
    const { sub, setupIntent: si } = await trialWithoutCard("renew@example.com", 1900);
    const { payment_method: card } = await stripe.setupIntents.confirm(si.id, { payment_method: "pm_card_visa" });
    const trialStart = sub.items.data[0]!.current_period_start;

    const first = fake.advanceSubscription(sub.id);
    expect(first).toMatchObject({ id: sub.id, status: "active", default_payment_method: card });
    expect(first.trial_end).toBeLessThanOrEqual(nowSeconds());
    const item = first.items.data[0]!;
    expect(item.current_period_start).toBeGreaterThanOrEqual(trialStart);
    expect(item.current_period_start).toBe(first.trial_end);
    const expectedEnd = new Date(item.current_period_start * 1000);
    expectedEnd.setUTCMonth(expectedEnd.getUTCMonth() + 1);
    expect(item.current_period_end).toBe(expectedEnd.getTime() / 1000);
    const invoice = await stripe.invoices.retrieve(first.latest_invoice);
    expect(invoice).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "paid",
      amount_due: 1900,
      amount_paid: 1900,
      customer: sub.customer,
    });
    expect(invoice.lines.data[0]).toMatchObject({
      amount: 1900,
      period: { start: item.current_period_start, end: item.current_period_end },
    });
    expect(fake.lastEvent("invoice.paid")?.data.object.id).toBe(invoice.id);
    expect(fake.lastEvent("payment_intent.succeeded")?.data.object).toMatchObject({ amount: 1900, payment_method: card });
    const updated = fake.lastEvent("customer.subscription.updated")!;
    expect(updated.data.object).toMatchObject({ id: sub.id, status: "active" });
    expect(updated.request).toEqual({ id: null, idempotency_key: null });
    expect(updated.data.previous_attributes).toMatchObject({
      status: "trialing",
      trial_end: sub.trial_end,
      latest_invoice: sub.latest_invoice,
    });
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: "active", latest_invoice: invoice.id });

    // The next period: one interval on, invoiced and charged again.
    const second = fake.advanceSubscription(sub.id);
    expect(second.items.data[0]!.current_period_start).toBe(item.current_period_end);
    expect(second.status).toBe("active");
    expect(second.latest_invoice).not.toBe(invoice.id);
    expect(fake.invoices.get(second.latest_invoice)).toMatchObject({
      billing_reason: "subscription_cycle",
      status: "paid",
      amount_paid: 1900,
    });
    const again = fake.lastEvent("customer.subscription.updated")!;
    expect(again.data.previous_attributes).not.toHaveProperty("status");
    expect(again.data.previous_attributes).toHaveProperty("items");

    expect(() => fake.trialWillEnd(sub.id)).toThrow(/not trialing/);
    const { sub: trialing } = await trialWithoutCard("ending@example.com");
    const event = fake.trialWillEnd(trialing.id);
    expect(event).toMatchObject({
      type: "customer.subscription.trial_will_end",
      data: { object: { id: trialing.id, status: "trialing" } },
    });
    expect(fake.lastEvent("customer.subscription.trial_will_end")?.id).toBe(event.id);
  });

  it("a declined renewal leaves the subscription past_due until the card is updated and the invoice paid", async () => {
    const { customer, sub, setupIntent: si } = await trialWithoutCard("pastdue@example.com");
    // 4000 0000 0000 0341: saved fine, every charge declined.
    const saved = await stripe.setupIntents.confirm(si.id, { payment_method: "pm_card_chargeCustomerFail" });
    expect(saved.status).toBe("succeeded");

    const failed = fake.advanceSubscription(sub.id);
    expect(failed.status).toBe("past_due");
    const invoiceId = failed.latest_invoice as string;
    expect(fake.invoices.get(invoiceId)).toMatchObject({ status: "open", attempted: true, attempt_count: 1, amount_remaining: 900 });
    expect(fake.lastEvent("invoice.payment_failed")?.data.object.id).toBe(invoiceId);
    const updated = fake.lastEvent("customer.subscription.updated")!;
    expect(updated.data.object).toMatchObject({ id: sub.id, status: "past_due" });
    expect(updated.data.previous_attributes).toMatchObject({ status: "trialing" });

    // Paying again with the same card: declined, the invoice stays open.
    const declined = await failure(() => stripe.invoices.pay(invoiceId));
    expect(declined).toMatchObject({ statusCode: 402, type: "StripeCardError", code: "card_declined" });
    expect(eventsOf("invoice.payment_failed", invoiceId)).toHaveLength(2);
    expect(fake.invoices.get(invoiceId)).toMatchObject({ status: "open", attempt_count: 2 });
    const notTheirs = await failure(() => stripe.invoices.pay(invoiceId, { payment_method: "pm_card_visa" }));
    expect(notTheirs).toMatchObject({ statusCode: 400, param: "payment_method", code: "resource_missing" });

    // The card update: Checkout in setup mode (currency is required there without allowed_payment_method_types).
    const setupParams: Stripe.Checkout.SessionCreateParams = {
      mode: "setup",
      customer: customer.id,
      setup_intent_data: { metadata: { subscriptionId: sub.id } },
      success_url: "https://app.example/card-updated?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://app.example/account",
    };
    const noCurrency = await failure(() => stripe.checkout.sessions.create(setupParams));
    expect(noCurrency).toMatchObject({ statusCode: 400, code: "parameter_missing", param: "currency" });
    const session = await stripe.checkout.sessions.create({ ...setupParams, currency: "usd" });
    expect(session).toMatchObject({ mode: "setup", setup_intent: null, amount_total: null });
    const page = await fetch(session.url!);
    expect(await page.text()).toContain("Save card");
    const posted = await fetch(session.url!, {
      method: "POST",
      body: new URLSearchParams({ card_number: "4242 4242 4242 4242", email: "pastdue@example.com" }),
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    const done = await stripe.checkout.sessions.retrieve(session.id);
    expect(done).toMatchObject({ status: "complete", customer: customer.id });
    expect(fake.events.slice(-2).map((e) => e.type)).toEqual(["setup_intent.succeeded", "checkout.session.completed"]);
    const setup = await stripe.setupIntents.retrieve(done.setup_intent as string);
    expect(setup).toMatchObject({ status: "succeeded", customer: customer.id, metadata: { subscriptionId: sub.id } });
    const newCard = setup.payment_method as string;
    expect(fake.paymentMethods.get(newCard)?.customer).toBe(customer.id);

    const switched = await stripe.subscriptions.update(sub.id, { default_payment_method: newCard });
    expect(switched).toMatchObject({ status: "past_due", default_payment_method: newCard });
    expect(fake.lastEvent("customer.subscription.updated")?.data.previous_attributes).toEqual({
      default_payment_method: saved.payment_method,
    });
    const paid = await stripe.invoices.pay(invoiceId);
    expect(paid).toMatchObject({ id: invoiceId, status: "paid", amount_paid: 900, amount_remaining: 0, attempt_count: 3 });
    expect(fake.lastEvent("invoice.paid")?.data.object.id).toBe(invoiceId);
    const active = fake.lastEvent("customer.subscription.updated")!;
    expect(active.data.object).toMatchObject({ id: sub.id, status: "active" });
    expect(active.data.previous_attributes).toEqual({ status: "past_due" });
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("active");
    const twice = await failure(() => stripe.invoices.pay(invoiceId));
    expect(twice).toMatchObject({ statusCode: 400, message: "Invoice is already paid" });
    expect((await failure(() => stripe.invoices.pay("in_missing"))).statusCode).toBe(404);
  });

  it("a default card that declines (customer's invoice_settings) fails the renewal too", async () => {
    const customer = await stripe.customers.create({ email: "declines@example.com" });
    const declining = await stripe.paymentMethods.attach("pm_card_chargeDeclined", { customer: customer.id });
    const unattached = await failure(() =>
      stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: "pm_card_visa" } }),
    );
    expect(unattached).toMatchObject({ statusCode: 400, param: "invoice_settings[default_payment_method]" });
    const withDefault = await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: declining.id } });
    expect(withDefault.invoice_settings.default_payment_method).toBe(declining.id);
    const price = await monthlyPrice(700, "Sakina Plus");
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 7 });
    expect(sub).toMatchObject({ status: "trialing", default_payment_method: null });

    const after = fake.advanceSubscription(sub.id);
    expect(after.status).toBe("past_due");
    expect(fake.lastEvent("invoice.payment_failed")?.data.object.id).toBe(after.latest_invoice);
    expect(fake.lastEvent("payment_intent.payment_failed")?.data.object.last_payment_error).toMatchObject({
      decline_code: "generic_decline",
    });

    // Paying with a card given for this payment only.
    const good = await stripe.paymentMethods.attach("pm_card_mastercard", { customer: customer.id });
    const paid = await stripe.invoices.pay(after.latest_invoice, { payment_method: good.id });
    expect(paid.status).toBe("paid");
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ status: "active", default_payment_method: null });

    // Paid outside Stripe: marked paid without a charge.
    const next = fake.advanceSubscription(sub.id);
    expect(next.status).toBe("past_due");
    const charges = fake.charges.size;
    const outOfBand = await stripe.invoices.pay(next.latest_invoice, { paid_out_of_band: true });
    expect(outOfBand).toMatchObject({ status: "paid", attempt_count: 1 });
    expect(fake.charges.size).toBe(charges);
    expect((await stripe.subscriptions.retrieve(sub.id)).status).toBe("active");
  });

  it("ends a trial now, cancels at the period end or at once", async () => {
    const customer = await stripe.customers.create({ email: "cancel@example.com" });
    const card = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
    await stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } });
    const price = await monthlyPrice(1200, "Sakina Plus");
    const sub = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }], trial_period_days: 7 });

    // trial_end=now: billing starts now, the first period's invoice is charged to the customer's card.
    const started = await stripe.subscriptions.update(sub.id, { trial_end: "now", expand: ["latest_invoice"] });
    expect(started.status).toBe("active");
    expect(started.trial_end).toBeLessThanOrEqual(nowSeconds());
    expect(started.items.data[0]!.current_period_start).toBe(started.trial_end);
    expect(started.latest_invoice as Stripe.Invoice).toMatchObject({
      billing_reason: "subscription_update",
      status: "paid",
      amount_paid: 1200,
    });
    expect(fake.lastEvent("payment_intent.succeeded")?.data.object).toMatchObject({ amount: 1200, payment_method: card.id });
    expect(fake.lastEvent("customer.subscription.updated")?.data.previous_attributes).toMatchObject({ status: "trialing" });

    const unchanged = fake.events.length;
    await stripe.subscriptions.update(sub.id, { metadata: {} });
    expect(fake.events.length).toBe(unchanged);

    const ending = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });
    const periodEnd = ending.items.data[0]!.current_period_end;
    expect(ending).toMatchObject({ status: "active", cancel_at_period_end: true, cancel_at: periodEnd });
    expect(ending.canceled_at).toBeGreaterThan(0);
    expect(ending.cancellation_details?.reason).toBe("cancellation_requested");
    expect(fake.lastEvent("customer.subscription.updated")?.data.previous_attributes).toMatchObject({
      cancel_at_period_end: false,
      cancel_at: null,
      canceled_at: null,
    });
    const kept = await stripe.subscriptions.update(sub.id, { cancel_at_period_end: false });
    expect(kept).toMatchObject({ cancel_at_period_end: false, cancel_at: null, canceled_at: null });
    await stripe.subscriptions.update(sub.id, { cancel_at_period_end: true });

    const invoicesBefore = fake.invoices.size;
    const ended = fake.advanceSubscription(sub.id);
    expect(ended.status).toBe("canceled");
    expect(ended.ended_at).toBeLessThanOrEqual(nowSeconds());
    expect(fake.invoices.size).toBe(invoicesBefore);
    expect(fake.lastEvent("customer.subscription.deleted")?.data.object).toMatchObject({ id: sub.id, status: "canceled" });
    expect(() => fake.advanceSubscription(sub.id)).toThrow(/canceled/);
    const refused = await failure(() => stripe.subscriptions.update(sub.id, { cancel_at_period_end: false }));
    expect(refused.statusCode).toBe(400);

    // DELETE /v1/subscriptions/:id cancels at once.
    const other = await stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] });
    expect(other.status).toBe("active");
    const canceled = await stripe.subscriptions.cancel(other.id, { cancellation_details: { feedback: "too_expensive" } });
    expect(canceled).toMatchObject({
      status: "canceled",
      cancellation_details: { feedback: "too_expensive", reason: "cancellation_requested" },
    });
    expect(canceled.ended_at).toBe(canceled.canceled_at);
    expect(fake.lastEvent("customer.subscription.deleted")?.data.object.id).toBe(other.id);
    expect((await stripe.subscriptions.retrieve(other.id)).status).toBe("canceled");
  });

  it("Checkout in subscription mode starts the trial with the card as the subscription's default", async () => {
    const customer = await stripe.customers.create({ email: "nojs@example.com" });
    const price = await monthlyPrice(900, "Sakina Plus");
    const session = await stripe.checkout.sessions.create({
      mode: "subscription",
      customer: customer.id,
      line_items: [{ price: price.id, quantity: 1 }],
      subscription_data: { trial_period_days: 7, metadata: { plan: "plus" } },
      success_url: "https://app.example/welcome?session_id={CHECKOUT_SESSION_ID}",
      cancel_url: "https://app.example/plans",
    });
    expect(session.amount_total).toBe(0);
    const posted = await fetch(session.url!, {
      method: "POST",
      body: new URLSearchParams({ card_number: "4242 4242 4242 4242", email: "nojs@example.com" }),
      redirect: "manual",
    });
    expect(posted.status).toBe(303);
    const completed = fake.lastEvent("checkout.session.completed")!.data.object;
    expect(completed).toMatchObject({ id: session.id, status: "complete", customer: customer.id });
    expect(completed.subscription).toMatch(/^sub_/);
    const sub = await stripe.subscriptions.retrieve(completed.subscription, { expand: ["default_payment_method"] });
    expect(sub).toMatchObject({ status: "trialing", metadata: { plan: "plus" }, pending_setup_intent: null });
    expect(sub.trial_end).toBe(sub.trial_start! + 7 * 86400);
    expect(sub.default_payment_method as Stripe.PaymentMethod).toMatchObject({ customer: customer.id, card: { last4: "4242" } });
    expect(fake.lastEvent("customer.subscription.created")?.data.object.id).toBe(sub.id);
  });
});

describe("the Stripe.js stand-in without a browser", () => {
  /** Runs the stand-in in a Node VM with just the DOM it touches: a mount node, inputs, location.assign. */
  function loadStripeJs() {
    class FakeNode {
      id = "";
      value = "";
      children: FakeNode[] = [];
      parentNode: FakeNode | null = null;
      listeners: Record<string, ((event: unknown) => void)[]> = {};
      attributes: Record<string, string> = {};
      appendChild(child: FakeNode) {
        child.parentNode = this;
        this.children.push(child);
        return child;
      }
      removeChild(child: FakeNode) {
        this.children = this.children.filter((c) => c !== child);
        child.parentNode = null;
      }
      setAttribute(name: string, value: string) {
        this.attributes[name] = value;
      }
      removeAttribute(name: string) {
        delete this.attributes[name];
      }
      addEventListener(type: string, listener: (event: unknown) => void) {
        (this.listeners[type] ??= []).push(listener);
      }
      focus() {}
      blur() {}
      find(id: string): FakeNode | null {
        if (this.id === id) return this;
        for (const child of this.children) {
          const found = child.find(id);
          if (found) return found;
        }
        return null;
      }
    }
    const mountNode = new FakeNode();
    const navigations: string[] = [];
    const window: Record<string, any> = {
      location: { href: "https://app.example/subscribe", assign: (url: string) => navigations.push(url) },
    };
    const document = {
      createElement: () => new FakeNode(),
      querySelector: (selector: string) => (selector === "#payment" ? mountNode : null),
    };
    vm.runInContext(stripeJsSource(fake.url), vm.createContext({ window, document, fetch, URL, setTimeout, console }));
    const typeCard = (number: string) => {
      const input = mountNode.find("fake-stripe-card")!;
      input.value = number;
      for (const listener of input.listeners.input ?? []) listener({});
    };
    return { Stripe: window.Stripe as (key: string) => any, typeCard, navigations };
  }

  it("confirmSetup saves the card of a subscription's pending SetupIntent and redirects like Stripe.js", async () => {
    const customer = await stripe.customers.create({ email: "elements@example.com" });
    const price = await stripe.prices.create({
      currency: "usd",
      unit_amount: 900,
      product_data: { name: "Sakina Plus" },
      recurring: { interval: "month" },
    });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      trial_period_days: 7,
      expand: ["pending_setup_intent"],
    });
    const si = sub.pending_setup_intent as Stripe.SetupIntent;
    const { Stripe: StripeJs, typeCard, navigations } = loadStripeJs();
    const browserStripe = StripeJs(fake.publishableKey);
    const elements = browserStripe.elements({ clientSecret: si.client_secret });
    elements.create("payment").mount("#payment");

    await expect(browserStripe.confirmPayment({ elements, redirect: "if_required" })).rejects.toThrow(
      "Invalid value for stripe.confirmPayment intent secret: value should be a PaymentIntent client secret. You specified: a SetupIntent client secret.",
    );
    await expect(browserStripe.confirmSetup({ elements })).rejects.toThrow(
      "stripe.confirmSetup(): the confirmParams.return_url argument is required unless passing redirect: 'if_required'",
    );
    const empty = await browserStripe.confirmSetup({ elements, redirect: "if_required" });
    expect(empty.error).toMatchObject({ type: "validation_error", message: "Your card number is incomplete." });

    typeCard("4000 0000 0000 0002");
    const declined = await browserStripe.confirmSetup({ elements, redirect: "if_required" });
    expect(declined.error).toMatchObject({
      type: "card_error",
      code: "card_declined",
      setup_intent: { id: si.id, status: "requires_payment_method" },
    });
    expect(declined.error.setup_intent.customer).toBeUndefined();
    expect(navigations).toEqual([]);

    typeCard("4242 4242 4242 4242");
    void browserStripe.confirmSetup({ elements, confirmParams: { return_url: "/subscribed?plan=plus" } });
    await vi.waitFor(() => expect(navigations).toHaveLength(1));
    const back = new URL(navigations[0]!);
    expect(back.origin + back.pathname).toBe("https://app.example/subscribed");
    expect(Object.fromEntries(back.searchParams)).toEqual({
      plan: "plus",
      setup_intent: si.id,
      setup_intent_client_secret: si.client_secret,
      redirect_status: "succeeded",
    });
    const retrieved = await browserStripe.retrieveSetupIntent(si.client_secret);
    expect(retrieved.setupIntent).toMatchObject({ id: si.id, status: "succeeded" });
    expect(retrieved.setupIntent.metadata).toBeUndefined();
    const card = retrieved.setupIntent.payment_method as string;
    expect(await stripe.subscriptions.retrieve(sub.id)).toMatchObject({ default_payment_method: card, pending_setup_intent: null });
    expect(fake.requests.filter((r) => r.path === `/v1/setup_intents/${si.id}/confirm`).map((r) => r.auth)).toEqual([
      "publishable",
      "publishable",
    ]);

    // redirect: "if_required" resolves with the SetupIntent; a PaymentIntent's secret is refused.
    const second = await stripe.subscriptions.create({
      customer: (await stripe.customers.create({ email: "elements2@example.com" })).id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      trial_period_days: 7,
      expand: ["pending_setup_intent"],
    });
    const secret = (second.pending_setup_intent as Stripe.SetupIntent).client_secret!;
    const result = await browserStripe.confirmSetup({ elements, clientSecret: secret, redirect: "if_required" });
    expect(result.setupIntent).toMatchObject({ status: "succeeded" });
    const intent = await stripe.paymentIntents.create({ amount: 1000, currency: "usd" });
    await expect(browserStripe.confirmSetup({ elements, clientSecret: intent.client_secret, redirect: "if_required" })).rejects.toThrow(
      /value should be a SetupIntent client secret/,
    );
  });
});

describe.skipIf(!chromiumPath())("in a browser", () => {
  let browser: Browser;
  let app: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    [browser, app] = await Promise.all([launchBrowser(), startReceiver(200)]);
  });
  afterAll(async () => {
    await browser?.close();
    await app?.close();
  });

  it("the Stripe.js stand-in pays with the Payment Element and the wallet button", async () => {
    const script = await fetch(fake.jsUrl);
    expect(script.headers.get("content-type")).toMatch(/^application\/javascript/);
    const context = await newVisitor(browser, { javaScript: true });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/pay`);
      await page.addScriptTag({ url: fake.jsUrl });
      const declined = await stripe.paymentIntents.create({ amount: 1800, currency: "usd" });
      await page.evaluate(
        async ([pk, clientSecret]) => {
          const w = window as unknown as Record<string, any>;
          w.stripe = w.Stripe(pk);
          w.elements = w.stripe.elements({ clientSecret });
          const element = w.elements.create("payment");
          document
            .querySelector("main")!
            .insertAdjacentHTML("beforeend", '<form id="pay"><div id="payment"></div><div id="wallet"></div></form>');
          await new Promise((resolve) => {
            element.on("ready", resolve);
            element.mount("#payment");
          });
        },
        [fake.publishableKey, declined.client_secret!] as const,
      );
      expect(describeViolations(await axeViolations(page))).toBe("");
      const empty = await page.evaluate(() => (window as unknown as Record<string, any>).elements.submit());
      expect(empty.error).toMatchObject({ type: "validation_error", message: "Your card number is incomplete." });

      // The intent allows redirect-based methods (the default): Stripe refuses it without a return_url,
      // "if_required" or not, and nothing is charged.
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      const noReturn = await page.evaluate(() => {
        const w = window as unknown as Record<string, any>;
        return w.stripe.confirmPayment({ elements: w.elements, redirect: "if_required" });
      });
      expect(noReturn.error).toMatchObject({ type: "invalid_request_error", param: "return_url" });
      expect(noReturn.error.message).toMatch(/you must provide a `return_url`/);
      expect(fake.paymentIntents.get(declined.id)?.status).toBe("requires_payment_method");

      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      const decline = await page.evaluate(() => {
        const w = window as unknown as Record<string, any>;
        return w.stripe.confirmPayment({
          elements: w.elements,
          redirect: "if_required",
          confirmParams: { return_url: `${location.origin}/done` },
        });
      });
      expect(decline.error).toMatchObject({ type: "card_error", code: "card_declined", message: "Your card was declined." });

      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      const paid = await page.evaluate(() => {
        const w = window as unknown as Record<string, any>;
        return w.stripe.confirmPayment({
          elements: w.elements,
          redirect: "if_required",
          confirmParams: { return_url: `${location.origin}/done` },
        });
      });
      expect(paid.paymentIntent).toMatchObject({ id: declined.id, status: "succeeded" });
      const retrieved = await page.evaluate(
        (clientSecret) => (window as unknown as Record<string, any>).stripe.retrievePaymentIntent(clientSecret),
        declined.client_secret!,
      );
      expect(retrieved.paymentIntent).toMatchObject({ id: declined.id, status: "succeeded" });
      expect(retrieved.paymentIntent.metadata).toBeUndefined();
      expect(fake.requests.filter((r) => r.path === `/v1/payment_intents/${declined.id}/confirm`).map((r) => r.auth)).toEqual([
        "publishable",
        "publishable",
        "publishable",
      ]);

      // The wallet button, then the redirect to return_url.
      const wallet = await stripe.paymentIntents.create({ amount: 2200, currency: "usd" });
      await page.evaluate((clientSecret) => {
        const w = window as unknown as Record<string, any>;
        const elements = w.stripe.elements({ clientSecret });
        const express = elements.create("expressCheckout");
        express.on("confirm", () => {
          void elements
            .submit()
            .then(() => w.stripe.confirmPayment({ elements, confirmParams: { return_url: `${location.origin}/done` } }));
        });
        express.mount("#wallet");
      }, wallet.client_secret!);
      await Promise.all([page.waitForURL(/\/done\?/), page.getByRole("button", { name: "Pay with wallet" }).click()]);
      const back = new URL(page.url());
      expect(back.searchParams.get("payment_intent")).toBe(wallet.id);
      expect(back.searchParams.get("redirect_status")).toBe("succeeded");
      expect(fake.paymentIntents.get(wallet.id)?.status).toBe("succeeded");
    } finally {
      await context.close();
    }
  });

  it("the Stripe.js stand-in saves a card with confirmSetup and the Payment Element", async () => {
    const customer = await stripe.customers.create({ email: "setup-browser@example.com" });
    const price = await stripe.prices.create({
      currency: "usd",
      unit_amount: 900,
      product_data: { name: "Sakina Plus" },
      recurring: { interval: "month" },
    });
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: "default_incomplete",
      payment_settings: { save_default_payment_method: "on_subscription" },
      trial_period_days: 7,
      expand: ["pending_setup_intent"],
    });
    const si = sub.pending_setup_intent as Stripe.SetupIntent;
    const context = await newVisitor(browser, { javaScript: true });
    try {
      const page = await context.newPage();
      await page.goto(`${app.url}/subscribe`);
      await page.addScriptTag({ url: fake.jsUrl });
      await page.evaluate(
        async ([pk, clientSecret]) => {
          const w = window as unknown as Record<string, any>;
          w.stripe = w.Stripe(pk);
          w.elements = w.stripe.elements({ clientSecret });
          const element = w.elements.create("payment");
          document.querySelector("main")!.insertAdjacentHTML("beforeend", '<form id="subscribe"><div id="payment"></div></form>');
          await new Promise((resolve) => {
            element.on("ready", resolve);
            element.mount("#payment");
          });
        },
        [fake.publishableKey, si.client_secret!] as const,
      );
      await page.getByLabel("Card number").fill("4000 0000 0000 0002");
      const declined = await page.evaluate(() => {
        const w = window as unknown as Record<string, any>;
        return w.stripe.confirmSetup({ elements: w.elements, redirect: "if_required" });
      });
      expect(declined.error).toMatchObject({ type: "card_error", code: "card_declined", setup_intent: { id: si.id } });

      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await Promise.all([
        page.waitForURL(/\/subscribed\?/),
        page.evaluate(() => {
          const w = window as unknown as Record<string, any>;
          void w.stripe.confirmSetup({ elements: w.elements, confirmParams: { return_url: `${location.origin}/subscribed` } });
        }),
      ]);
      const back = new URL(page.url());
      expect(back.searchParams.get("setup_intent")).toBe(si.id);
      expect(back.searchParams.get("setup_intent_client_secret")).toBe(si.client_secret);
      expect(back.searchParams.get("redirect_status")).toBe("succeeded");
      const card = fake.setupIntents.get(si.id)?.payment_method as string;
      expect(fake.subscriptions.get(sub.id)).toMatchObject({ default_payment_method: card, pending_setup_intent: null });
    } finally {
      await context.close();
    }
  });

  it("the hosted Checkout page is accessible and pays without JavaScript", async () => {
    const session = await stripe.checkout.sessions.create({
      mode: "payment",
      line_items: [{ price_data: { currency: "usd", unit_amount: 3000, product_data: { name: "Session" } }, quantity: 2 }],
      success_url: `${app.url}/thanks?session_id={CHECKOUT_SESSION_ID}`,
      cancel_url: `${app.url}/cancelled`,
    });
    const context = await newVisitor(browser, { javaScript: false });
    try {
      const page = await context.newPage();
      await page.goto(session.url!);
      expect(describeViolations(await axeViolations(page, { javaScript: false }))).toBe("");
      expect(await page.getByLabel("Card number").inputValue()).toBe("4242 4242 4242 4242");
      await page.getByRole("button", { name: "Pay" }).click();
      await page.waitForURL(`${app.url}/thanks?session_id=${session.id}`);
      expect(fake.checkoutSessions.get(session.id)).toMatchObject({ status: "complete", payment_status: "paid", amount_total: 6000 });
    } finally {
      await context.close();
    }
  });
});
