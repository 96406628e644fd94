import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCall } from "#models/calls";
import { businesses, planCalls } from "#models/schema";
import { BUSINESS_PLAN, OVERAGE_METER_EVENT, reportCallUsageJob } from "~/features/business/signup/onboarding.server";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { createTestServices } from "../support/services";

let fake: FakeStripe;
let services: Awaited<ReturnType<typeof createTestServices>>;

beforeAll(async () => {
  fake = await startFakeStripe();
  services = await createTestServices({ STRIPE_SECRET_KEY: fake.secretKey, STRIPE_API_URL: fake.url }, { runWorkers: false });
});
afterAll(async () => {
  await services?.close();
  await fake?.close();
});

describe("usage reporting for the monthly plan", () => {
  it("reports each confirmation call the monthly plan counted once to the plan's meter, and none the starter counted", async () => {
    await services.billing!.ensureMeteredPlan(BUSINESS_PLAN);
    const api = new URL(fake.url);
    const stripe = new Stripe(fake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http" });
    const customer = await stripe.customers.create({ email: "plan@example.com" });
    const [business] = await services.db
      .insert(businesses)
      .values({
        name: "Plan Test",
        bookingLink: "plan-test",
        ownerName: "P",
        email: "plan@example.com",
        phone: "+12125550100",
        status: "active",
        planStatus: "starter",
        stripeCustomerId: customer.id,
      })
      .returning();
    const call = await createCall(services.db, {
      purpose: "booking_confirmation",
      language: "en",
      voice: "shimmer",
      businessId: business!.id,
      timeLimitSeconds: 300,
    });

    // Counted by the starter: not reported.
    await services.db.insert(planCalls).values({ callId: call.id, businessId: business!.id, number: 1, metered: false });
    await reportCallUsageJob.handle({ callId: call.id, businessId: business!.id }, services);
    expect([...fake.meterEvents.values()]).toHaveLength(0);

    // Counted by the monthly plan: reported once.
    await services.db.update(businesses).set({ planStatus: "active" });
    await services.db.update(planCalls).set({ metered: true });
    await reportCallUsageJob.handle({ callId: call.id, businessId: business!.id }, services);
    await reportCallUsageJob.handle({ callId: call.id, businessId: business!.id }, services);
    const events = [...fake.meterEvents.values()];
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ event_name: OVERAGE_METER_EVENT, payload: { stripe_customer_id: customer.id, value: "1" } });
  });
});
