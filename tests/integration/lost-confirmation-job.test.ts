// A crash between a booking's commit and its confirmation-call job (issue 45.4) must not leave the
// booking never called: the sweep finds a pending booking with no call for its round and gives it
// its job, once. Jobs are run by hand, with no worker of their own.
import { eq, sql } from "drizzle-orm";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking } from "#models/bookings";
import { addService } from "#models/business-services";
import { bookings, businesses, calls as callsTable } from "#models/schema";
import { bookingConfirmationCallJob } from "~/features/booking/booking.server";
import { bookingConfirmationSweepJob } from "~/features/booking/confirmation-sweep.server";
import { BUSINESS_PLAN } from "~/features/business/signup/onboarding.server";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { createTestServices } from "../support/services";

let stripeFake: FakeStripe;
let twilio: FakeTwilio;
let stripe: Stripe;
let services: Awaited<ReturnType<typeof createTestServices>>;

beforeAll(async () => {
  [stripeFake, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio({ autoDial: false })]);
  services = await createTestServices(
    {
      STRIPE_SECRET_KEY: stripeFake.secretKey,
      STRIPE_API_URL: stripeFake.url,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
    },
    { runWorkers: false },
  );
  const api = new URL(stripeFake.url);
  stripe = new Stripe(stripeFake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http" });
  await services.billing!.ensureMeteredPlan(BUSINESS_PLAN);
});

afterAll(async () => {
  await services?.close();
  await twilio?.close();
  await stripeFake?.close();
});

/** A time zone where it is now midday, so the confirmation calls are inside calling hours. */
function middayZone() {
  const offset = 12 - new Date().getUTCHours();
  return offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}

let seq = 0;
/** A business on the monthly plan (every call it counts is reported to Stripe's meter) and one customer's booking. */
async function monthlyBooking() {
  seq += 1;
  const email = `lost-job-${seq}-${Date.now()}@example.com`;
  const customer = await stripe.customers.create({ email });
  const [business] = await services.db
    .insert(businesses)
    .values({
      name: `Lost job ${seq}`,
      bookingLink: `lost-job-${seq}-${Date.now()}`,
      ownerName: "Owner",
      email,
      phone: "+12125550100",
      status: "active",
      timeZone: middayZone(),
      stripeCustomerId: customer.id,
      activatedAt: new Date(Date.now() - 2 * 86_400_000),
      planStatus: "active",
      planPeriodStart: new Date(Date.now() - 86_400_000),
      planPeriodEnd: new Date(Date.now() + 29 * 86_400_000),
    })
    .returning();
  const service = await addService(services.db, business!.id, {
    name: "Cut",
    description: "",
    priceCents: 2000,
    currency: "USD",
    durationMinutes: 30,
  });
  const startsAt = new Date(Date.now() + (2 + seq) * 86_400_000);
  const made = await createBooking(services.db, {
    businessId: business!.id,
    serviceId: service.id,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * 60_000),
    customerName: `Customer ${seq}`,
    customerPhone: `+1212555${String(8100 + seq).padStart(4, "0")}`,
    customerEmail: null,
    notes: null,
    language: "en",
    idempotencyKey: null,
  });
  if (made.kind !== "created") throw new Error("booking not created");
  return { business: business!, booking: made.booking, customerId: customer.id };
}

const origin = () => services.publicOrigin();
const confirm = (bookingId: number) => bookingConfirmationCallJob.handle({ bookingId, origin: origin(), ip: "203.0.113.7" }, services);
const sweep = () => bookingConfirmationSweepJob.handle({}, services);
/** The confirmation jobs waiting for the booking (what a worker would run). */
async function confirmationJobs(bookingId: number) {
  const { rows } = await services.database.executeSql(
    `SELECT id FROM pgboss.job WHERE name = $1 AND data->>'bookingId' = $2 AND state IN ('created', 'retry', 'active')`,
    [bookingConfirmationCallJob.name, String(bookingId)],
  );
  return rows;
}

describe("a booking whose confirmation-call job was lost", () => {
  it("is given its job by the sweep, once, and gets exactly one call", async () => {
    // What a process killed right after the booking's commit leaves: the booking, and no job.
    const { booking } = await monthlyBooking();
    expect(await confirmationJobs(booking.id)).toHaveLength(0);
    // A booking made a moment ago is left to its own job.
    await sweep();
    expect(await confirmationJobs(booking.id)).toHaveLength(0);

    await services.db
      .update(bookings)
      .set({ createdAt: sql`now() - interval '10 minutes'` })
      .where(eq(bookings.id, booking.id));
    await sweep();
    expect(await confirmationJobs(booking.id)).toHaveLength(1);

    // The job runs (as a worker would), and the sweep finds nothing more to do.
    await confirm(booking.id);
    await sweep();
    await confirm(booking.id);
    const calls = await services.db.select().from(callsTable).where(eq(callsTable.bookingId, booking.id));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ purpose: "booking_confirmation", toNumber: booking.customerPhone });
  });
});
