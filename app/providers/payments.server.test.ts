import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "~/platform/env.server";
import { startFakeStripe, type FakeStripe } from "../../tests/fakes/stripe";
import { createBilling, type Billing } from "./billing.server";
import { createPayments, type Payments } from "./payments.server";

// The payments and billing interfaces with their real implementation (the Stripe SDK), pointed at the fake
// Stripe server only through STRIPE_API_URL, as every feature reaches it.
let fake: FakeStripe;
let payments: Payments;
let billing: Billing;
let stripe: Stripe;
const webhookSecret = "whsec_payments_interface";

beforeAll(async () => {
  fake = await startFakeStripe();
  const env = parseEnv({
    NODE_ENV: "test",
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_API_URL: fake.url,
    STRIPE_WEBHOOK_SECRET: webhookSecret,
  });
  payments = createPayments(env)!;
  billing = createBilling(env)!;
  const api = new URL(fake.url);
  stripe = new Stripe(fake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http" });
});
afterAll(() => fake?.close());

describe("payments interface over the fake Stripe server", () => {
  it("is absent without a secret key", () => {
    expect(createPayments(parseEnv({ NODE_ENV: "test" }))).toBeNull();
  });

  it("takes a payment, reads it back as paid, and refunds it once however often it is asked", async () => {
    const created = await payments.createPayment(
      { amountCents: 500, currency: "usd", description: "test", metadata: { purpose: "test" } },
      "payments-interface-1",
    );
    expect(created).toMatchObject({ amountCents: 500, currency: "usd", metadata: { purpose: "test" } });
    expect(created.clientSecret).toMatch(/^pi_.+_secret_/);
    expect(fake.paymentIntents.get(created.id)?.amount).toBe(500);

    await stripe.paymentIntents.confirm(created.id, { payment_method: "pm_card_visa", return_url: "http://127.0.0.1/return" });
    const paid = await payments.findPayment(created.id);
    expect(paid).toMatchObject({ id: created.id, status: "succeeded" });
    expect(paid!.paymentMethodId).toMatch(/^pm_/);

    const first = await payments.refund(created.id, { reason: "test" }, "refund-1");
    const again = await payments.refund(created.id, { reason: "test" }, "refund-1");
    const other = await payments.refund(created.id, { reason: "test" }, "refund-2");
    expect(again.refundId).toBe(first.refundId);
    expect(other.refundId).toBe("already_refunded");
    expect([...fake.refunds.values()].filter((r) => r.payment_intent === created.id)).toHaveLength(1);
  });

  it("answers null for a payment or checkout the provider does not know", async () => {
    expect(await payments.findPayment("pi_does_not_exist")).toBeNull();
    expect(await payments.findCheckout("cs_does_not_exist")).toBeNull();
  });

  it("makes a hosted checkout whose return address carries its id", async () => {
    const checkout = await payments.createCheckout({
      amountCents: 100,
      currency: "usd",
      description: "starter",
      metadata: { purpose: "test_checkout" },
      productName: "Starter",
      successUrl: "http://127.0.0.1/done?session_id={CHECKOUT_ID}",
      cancelUrl: "http://127.0.0.1/back",
    });
    expect(checkout.url).toMatch(/^https?:\/\//);
    expect(fake.checkoutSessions.get(checkout.id)?.success_url).toBe("http://127.0.0.1/done?session_id={CHECKOUT_SESSION_ID}");
    expect(await payments.findCheckout(checkout.id)).toMatchObject({ id: checkout.id, metadata: { purpose: "test_checkout" } });
  });

  it("reads signed events and refuses a wrong signature", async () => {
    const intent = fake.seedPaymentIntent({ amount: 500, currency: "usd", status: "succeeded", metadata: { purpose: "empathy_call" } });
    const payload = JSON.stringify({ id: "evt_interface_1", object: "event", type: "payment_intent.succeeded", data: { object: intent } });
    const signature = stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret });
    const event = await payments.verifyEvent(payload, signature);
    expect(event).toMatchObject({ id: "evt_interface_1", kind: "payment_succeeded", payment: { id: intent.id, amountCents: 500 } });

    const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_someone_else" });
    expect(await payments.verifyEvent(payload, forged)).toBeNull();
  });

  it("reports usage to a meter once per identifier", async () => {
    const customerId = await billing.createCustomer({ email: "meter@example.com", name: "Meter", metadata: {} }, "customer-meter");
    await billing.ensureMeteredPlan({
      productName: "Plan",
      currency: "usd",
      monthly: { lookupKey: "interface_monthly", amountCents: 9900, nickname: "monthly" },
      usage: {
        lookupKey: "interface_usage",
        meterEventName: "interface_calls",
        meterName: "Calls",
        includedUnits: 100,
        unitAmountCents: 100,
        nickname: "usage",
      },
      version: 1,
    });
    await billing.reportUsage({ meterEventName: "interface_calls", customerId, identifier: "call-1", value: 1 });
    await billing.reportUsage({ meterEventName: "interface_calls", customerId, identifier: "call-1", value: 1 });
    expect([...fake.meterEvents.values()].filter((e) => e.event_name === "interface_calls")).toHaveLength(1);
  });

  it("finds the plan's meter past the first page of meters instead of asking Stripe for a second one", async () => {
    // The meter was made before (an earlier version of the plan); more than a page of newer meters
    // came after it, and Stripe lists meters newest first.
    const meter = await stripe.billing.meters.create({
      display_name: "Paged calls",
      event_name: "paged_calls",
      default_aggregation: { formula: "sum" },
    });
    for (let batch = 0; batch < 6; batch++) {
      await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          stripe.billing.meters.create({
            display_name: `Other ${batch * 20 + n}`,
            event_name: `other_${batch * 20 + n}`,
            default_aggregation: { formula: "sum" },
          }),
        ),
      );
    }
    const [, usagePrice] = await billing.ensureMeteredPlan({
      productName: "Paged plan",
      currency: "usd",
      monthly: { lookupKey: "paged_monthly", amountCents: 9900, nickname: "monthly" },
      usage: {
        lookupKey: "paged_usage",
        meterEventName: "paged_calls",
        meterName: "Paged calls",
        includedUnits: 100,
        unitAmountCents: 100,
        nickname: "usage",
      },
      version: 1,
    });
    expect(fake.prices.get(usagePrice!)?.recurring?.meter).toBe(meter.id);
    expect([...fake.meters.values()].filter((m) => m.event_name === "paged_calls")).toHaveLength(1);
  });
});
