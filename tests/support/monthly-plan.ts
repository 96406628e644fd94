import Stripe from "stripe";
import { addService } from "#models/business-services";
import { createBooking } from "#models/bookings";
import { businesses } from "#models/schema";
import { replaceWeeklySchedule } from "#models/opening-hours";
import { BUSINESS_PLAN } from "~/features/business/signup/onboarding.server";
import { startFakeStripe } from "../fakes/stripe";
import { startFakeTwilio } from "../fakes/twilio";
import { createTestServices } from "./services";

/**
 * The app's services with the real Stripe and Twilio SDKs against their fakes (Twilio dials only
 * when a test says so), the monthly plan's metered price in place, and no workers: the tests run
 * the jobs by hand, as a retry runs them.
 */
export async function monthlyPlanWorld() {
  const [stripeFake, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio({ autoDial: false })]);
  const services = await createTestServices(
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
  const stripe = new Stripe(stripeFake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http" });
  await services.billing!.ensureMeteredPlan(BUSINESS_PLAN);
  let made = 0;

  /** A business on the monthly plan (every call it counts is reported to Stripe's meter), open all week, and its one service. */
  async function monthlyBusiness(label: string) {
    made += 1;
    const slug = `${label.toLowerCase().replace(/\W+/g, "-")}-${made}-${Date.now()}`;
    const email = `${slug}@example.com`;
    const customer = await stripe.customers.create({ email });
    const [business] = await services.db
      .insert(businesses)
      .values({
        name: `${label} ${made}`,
        bookingLink: slug,
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
    const allDay = [{ startMinute: 0, endMinute: 1440 }];
    await replaceWeeklySchedule(services.db, business!.id, { 0: allDay, 1: allDay, 2: allDay, 3: allDay, 4: allDay, 5: allDay, 6: allDay });
    return { business: business!, service, customerId: customer.id, seq: made };
  }

  /** A monthly business and one customer's booking, written straight to the database (with no job of its own). */
  async function monthlyBooking(label: string) {
    const { business, service, customerId, seq } = await monthlyBusiness(label);
    const startsAt = new Date(Date.now() + (2 + seq) * 86_400_000);
    const booking = await createBooking(services.db, {
      businessId: business.id,
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
    if (booking.kind !== "created") throw new Error("booking not created");
    return { business, service, booking: booking.booking, customerId, seq };
  }

  return {
    services,
    stripe,
    stripeFake,
    twilio,
    monthlyBusiness,
    monthlyBooking,
    async close() {
      await services.close();
      await twilio.close();
      await stripeFake.close();
    },
  };
}

/** A time zone where it is now midday, so the confirmation calls are inside calling hours. */
function middayZone() {
  const offset = 12 - new Date().getUTCHours();
  return offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`;
}
