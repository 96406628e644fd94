// The business plans, enforced where a confirmation call would be placed (ADR 0012): the starter's
// 21st call is refused with its reason and the booking kept; the monthly plan's 101st call is
// placed and reported to Stripe's meter exactly once, however often the job runs; a past-due plan
// (Stripe's customer.subscription.updated webhook) holds the calls and a paid one places them.
// Through the real stripe SDK against the fake Stripe, and the real twilio SDK against the fake.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { eq, sql } from "drizzle-orm";
import { RouterContextProvider } from "react-router";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking, findBooking } from "#models/bookings";
import { addService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { createCall, findCall } from "#models/calls";
import { businesses, callRefusals, planCalls } from "#models/schema";
import { loadBookingsPage } from "~/features/business/bookings.server";
import { BUSINESS_PLAN, meterIdentifier, OVERAGE_METER_EVENT, reportCallUsageJob } from "~/features/business/signup/onboarding.server";
import { changePlan, loadPlanView, planNoticeFor, syncBusinessPlan } from "~/features/business/plan.server";
import type { Owner } from "~/features/business/owner.server";
import { placeCallJob } from "~/calls/engine.server";
import { servicesContext } from "~/platform/context";
import { translatorFor } from "~/platform/i18n.server";
import { action as stripeWebhook } from "~/routes/webhooks/stripe";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { createTestServices } from "../support/services";
import { waitFor } from "../support/wait";
import { queueTestCall } from "../support/queue-call";

const WEBHOOK_SECRET = "whsec_plan_test";
let fake: FakeStripe;
let twilio: FakeTwilio;
let stripe: Stripe;
let services: Awaited<ReturnType<typeof createTestServices>>;
let webhooks: http.Server;

beforeAll(async () => {
  [fake, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio({ autoDial: false })]);
  services = await createTestServices(
    {
      STRIPE_SECRET_KEY: fake.secretKey,
      STRIPE_API_URL: fake.url,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
    },
    { runWorkers: false },
  );
  // Stripe's webhooks reach the app's own route handler, signature check included.
  webhooks = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const context = new RouterContextProvider();
    context.set(servicesContext, services);
    const request = new Request(`http://localhost${req.url}`, {
      method: "POST",
      headers: req.headers as Record<string, string>,
      body: Buffer.concat(chunks),
    });
    const response = (await stripeWebhook({ request, context, params: {} } as never)) as Response;
    res.writeHead(response.status, { "content-type": "application/json" }).end(await response.text());
  });
  await new Promise<void>((resolve) => webhooks.listen(0, "127.0.0.1", resolve));
  fake.setWebhook(`http://127.0.0.1:${(webhooks.address() as AddressInfo).port}/webhooks/stripe`, WEBHOOK_SECRET);
  const api = new URL(fake.url);
  stripe = new Stripe(fake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http" });
  await services.billing!.ensureMeteredPlan(BUSINESS_PLAN);
});

afterAll(async () => {
  await new Promise((resolve) => webhooks?.close(resolve));
  await services?.close();
  await fake?.close();
  await twilio?.close();
});

/** A time zone where it is now midday, so the confirmation calls are inside calling hours. */
function middayZone() {
  const offset = 12 - new Date().getUTCHours();
  return offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

let seq = 0;
async function makeBusiness(fields: Partial<typeof businesses.$inferInsert>) {
  seq += 1;
  const email = `plan${seq}-${Date.now()}@example.com`;
  const customer = await stripe.customers.create({ email });
  const [business] = await services.db
    .insert(businesses)
    .values({
      name: `Plan ${seq}`,
      bookingLink: `plan-${seq}-${Date.now()}`,
      ownerName: "Owner",
      email,
      phone: "+12125550100",
      status: "active",
      timeZone: middayZone(),
      stripeCustomerId: customer.id,
      activatedAt: new Date(Date.now() - 86_400_000),
      ...fields,
    })
    .returning();
  const service = await addService(services.db, business!.id, {
    name: "Cut",
    description: "",
    priceCents: 2000,
    currency: "USD",
    durationMinutes: 30,
  });
  return { business: business!, customerId: customer.id, serviceId: service.id };
}

let slot = 0;
/** A customer's booking and its queued confirmation call, as the booking flow leaves them. */
async function bookingWithCall(businessId: number, serviceId: number) {
  slot += 1;
  const startsAt = new Date(Date.now() + (2 + slot) * 86_400_000);
  const made = await createBooking(services.db, {
    businessId,
    serviceId,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 60_000),
    customerName: `Customer ${slot}`,
    customerPhone: `+1212555${String(7000 + slot).padStart(4, "0")}`,
    customerEmail: null,
    notes: null,
    language: "en",
    idempotencyKey: null,
  });
  if (made.kind !== "created") throw new Error("booking not created");
  const call = await queueTestCall(services, {
    purpose: "booking_confirmation",
    to: made.booking.customerPhone,
    language: "en",
    voice: "shimmer",
    businessId,
    bookingId: made.booking.id,
  });
  return { booking: made.booking, call };
}

/** Calls already counted this period: rows as the gate writes them. */
async function seedCountedCalls(businessId: number, count: number, metered: boolean) {
  const ids: number[] = [];
  for (let n = 1; n <= count; n++) {
    const call = await createCall(services.db, {
      purpose: "booking_confirmation",
      language: "en",
      voice: "shimmer",
      businessId,
      timeLimitSeconds: 300,
    });
    await services.db.insert(planCalls).values({ callId: call.id, businessId, number: n, metered });
    ids.push(call.id);
  }
  return ids;
}

const place = (callId: number) => placeCallJob.handle({ callId, origin: services.publicOrigin() }, services);

async function ownerOf(businessId: number): Promise<Owner> {
  const business = (await findBusinessById(services.db, businessId))!;
  return {
    services,
    t: await translatorFor("en"),
    locale: "en",
    account: {} as never,
    business,
    shell: { businessName: business.name, bookingUrl: "" },
  };
}

describe("the starter: 7 days and 20 AI calls", () => {
  it("refuses the 21st call with its reason, keeps the booking, and lets only one of two simultaneous bookings take the 20th", async () => {
    const { business, serviceId } = await makeBusiness({ planStatus: "starter", starterEndsAt: new Date(Date.now() + 6 * 86_400_000) });
    await seedCountedCalls(business.id, 19, false);
    const first = await bookingWithCall(business.id, serviceId);
    const second = await bookingWithCall(business.id, serviceId);

    // Both confirmation calls come due at once: one is the 20th, the other would be the 21st.
    await Promise.all([place(first.call.id), place(second.call.id)]);
    const calls = await Promise.all([findCall(services.db, first.call.id), findCall(services.db, second.call.id)]);
    const placed = calls.filter((c) => c!.providerCallId);
    const refused = calls.filter((c) => c!.status === "failed");
    expect(placed).toHaveLength(1);
    expect(refused).toHaveLength(1);
    expect(twilio.calls.size).toBe(1);
    expect(refused[0]!.lastError).toMatch(/plan does not allow this call \(starter_used\)/);

    // The refused customer's booking stands, marked not called with the reason.
    const refusedBooking = (await findBooking(services.db, refused[0]!.bookingId!))!;
    expect(refusedBooking.status).toBe("pending");
    expect(refusedBooking.callState).toBe("not_called");
    expect(refusedBooking.notCalledReason).toBe("plan_starter_used");
    const recorded = await services.db.select().from(callRefusals).where(eq(callRefusals.businessId, business.id));
    expect(recorded.map((r) => r.reason)).toEqual(["plan_starter_used"]);

    // What the owner reads: on the booking in the list, on the calls page, and as a notice.
    const owner = await ownerOf(business.id);
    const page = await loadBookingsPage(owner, new URL("http://x/dashboard"));
    const shown = page.bookings.find((b) => b.id === refusedBooking.id)!;
    expect(shown.notCalled).toBe("Not called: the starter's 20 AI calls are used. Please phone the customer yourself.");
    expect(page.planNotice).toMatch(
      /starter's 20 AI calls are used: new bookings are taken but not called, and callers to your number can leave a voicemail\./,
    );
    const plan = await loadPlanView(services, owner.t, "en", owner.business);
    expect(plan.usedLabel).toBe("AI calls used: 20 of 20 (confirmations, reminders and calls to your number)");
    expect(plan.refused.map((r) => r.reason)).toEqual(["the starter's 20 AI calls are used"]);

    // A retried job for the admitted call is not counted again.
    await place(placed[0]!.id);
    expect((await loadPlanView(services, owner.t, "en", owner.business)).used).toBe(20);
  });

  it("refuses calls once the 7 days are over without a paid plan", async () => {
    const { business, serviceId } = await makeBusiness({ planStatus: "starter", starterEndsAt: new Date(Date.now() - 60_000) });
    const { booking, call } = await bookingWithCall(business.id, serviceId);
    await place(call.id);
    expect((await findCall(services.db, call.id))!.status).toBe("failed");
    const kept = (await findBooking(services.db, booking.id))!;
    expect(kept.status).toBe("pending");
    expect(kept.notCalledReason).toBe("plan_starter_ended");
  });
});

/** A business on the monthly plan: its subscription's trial ended on a good card. */
async function monthlyBusiness() {
  const made = await makeBusiness({ planStatus: "starter", starterEndsAt: new Date(Date.now() + 86_400_000) });
  const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: made.customerId });
  const subscriptionId = await services.billing!.subscribe(
    {
      customerId: made.customerId,
      priceIds: await services.billing!.ensureMeteredPlan(BUSINESS_PLAN),
      trialEnd: new Date(Date.now() + 86_400_000),
      paymentMethodId: pm.id,
      metadata: { purpose: "business_plan", businessId: String(made.business.id) },
    },
    `plan-test-${made.business.id}`,
  );
  await services.db.update(businesses).set({ stripeSubscriptionId: subscriptionId }).where(eq(businesses.id, made.business.id));
  return { ...made, subscriptionId };
}

describe("the monthly plan: 100 calls, then $1 a call", () => {
  it("places the 101st call and reports it to the meter exactly once, however often the job runs", async () => {
    const { business, serviceId, customerId, subscriptionId } = await monthlyBusiness();
    // The owner starts the monthly plan now: the starter ends and the period starts.
    expect(await changePlan(services, business.id, "upgrade")).toEqual({ ok: true, done: "upgraded" });
    expect((await findBusinessById(services.db, business.id))!.planStatus).toBe("active");

    const earlier = await seedCountedCalls(business.id, 100, true);
    for (const callId of earlier) await reportCallUsageJob.handle({ callId, businessId: business.id }, services);
    const eventsOf = () => [...fake.meterEvents.values()].filter((e) => e.payload.stripe_customer_id === customerId);
    expect(eventsOf()).toHaveLength(100);

    const { call } = await bookingWithCall(business.id, serviceId);
    await place(call.id);
    const placed = (await findCall(services.db, call.id))!;
    expect(placed.providerCallId).toBeTruthy();
    const [counted] = await services.db.select().from(planCalls).where(eq(planCalls.callId, call.id));
    expect(counted).toMatchObject({ number: 101, metered: true });

    // The report job, run again and again (a retry after a lost response, a duplicate job): one event.
    for (let i = 0; i < 3; i++) await reportCallUsageJob.handle({ callId: call.id, businessId: business.id }, services);
    const events = eventsOf();
    expect(events).toHaveLength(101);
    const ours = events.filter((e) => e.identifier === meterIdentifier(call.id));
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ event_name: OVERAGE_METER_EVENT, payload: { value: "1" } });
    // Dated when the call was counted, so it is billed to the period it was made in.
    expect(ours[0]!.timestamp).toBe(Math.floor(counted!.createdAt.getTime() / 1000));
    expect(fake.meterEventErrors).toEqual([]);

    // The owner sees it: 101 used, one extra call, the next invoice $99 + $1.
    const owner = await ownerOf(business.id);
    const plan = await loadPlanView(services, owner.t, "en", owner.business);
    expect(plan.used).toBe(101);
    expect(plan.overage).toBe(1);
    expect(plan.estimateLabel).toMatch(/^Next invoice: about \$100\.00 on /);

    // And Stripe's invoice at the month's end says the same: the next month and one extra call.
    const renewed = fake.advanceSubscription(subscriptionId);
    expect(fake.invoices.get(renewed.latest_invoice)!.amount_due).toBe(10_000);
  });

  it("does not report starter calls to the meter", async () => {
    const { business, customerId } = await makeBusiness({ planStatus: "starter", starterEndsAt: new Date(Date.now() + 86_400_000) });
    const [callId] = await seedCountedCalls(business.id, 1, false);
    await reportCallUsageJob.handle({ callId: callId!, businessId: business.id }, services);
    expect([...fake.meterEvents.values()].filter((e) => e.payload.stripe_customer_id === customerId)).toEqual([]);
  });
});

describe("a past-due plan", () => {
  it("pauses confirmation calls with a notice, and places them when the invoice is paid", async () => {
    const { business, serviceId, customerId, subscriptionId } = await monthlyBusiness();
    // The card starts declining; the owner starts the monthly plan and its first payment fails.
    const declining = await stripe.paymentMethods.attach("pm_card_chargeDeclined", { customer: customerId });
    await stripe.subscriptions.update(subscriptionId, { default_payment_method: declining.id });
    expect(await changePlan(services, business.id, "upgrade")).toEqual({ ok: false, error: "declined" });
    await fake.flush();
    expect((await findBusinessById(services.db, business.id))!.planStatus).toBe("past_due");
    expect(await planNoticeFor(services, await translatorFor("en"), (await findBusinessById(services.db, business.id))!)).toMatch(
      /^Your last payment failed, so AI calls are paused: confirmation calls wait, reminder calls are skipped, and callers to your number can leave a voicemail\./,
    );

    const { booking, call } = await bookingWithCall(business.id, serviceId);
    const dialledBefore = twilio.calls.size;
    await place(call.id);
    expect((await findCall(services.db, call.id))!.status).toBe("queued");
    expect(twilio.calls.size).toBe(dialledBefore);
    expect((await findBooking(services.db, booking.id))!.callState).toBe("plan_paused");

    // A good card pays the open invoice: Stripe sends customer.subscription.updated (active).
    const good = await stripe.paymentMethods.attach("pm_card_visa", { customer: customerId });
    const subscription = await stripe.subscriptions.retrieve(subscriptionId);
    await stripe.invoices.pay(subscription.latest_invoice as string, { payment_method: good.id });
    await fake.flush();
    const updated = fake.events.filter((e) => e.type === "customer.subscription.updated" && e.data.object.id === subscriptionId);
    expect(updated.at(-1)!.data.object.status).toBe("active");
    await waitFor(async () => ((await findBusinessById(services.db, business.id))!.planStatus === "active" ? true : null), {
      what: "the plan active again",
    });

    // The held call was handed back to the call engine, and now rings.
    const resumed = await services.db.execute(
      sql`select data from pgboss.job where name = 'call-place' and singleton_key = ${`plan-resume-${call.id}`}`,
    );
    expect(((resumed as { rows?: unknown[] }).rows ?? (resumed as unknown[])).length).toBe(1);
    await place(call.id);
    expect((await findCall(services.db, call.id))!.providerCallId).toBeTruthy();
    expect(await planNoticeFor(services, await translatorFor("en"), (await findBusinessById(services.db, business.id))!)).toBeNull();
  });

  it("reads the subscription from Stripe on a replayed or late event", async () => {
    const { business, subscriptionId } = await monthlyBusiness();
    await syncBusinessPlan(services, subscriptionId);
    const row = (await findBusinessById(services.db, business.id))!;
    expect(row.planStatus).toBe("starter");
    expect(row.planPeriodEnd).not.toBeNull();
  });
});
