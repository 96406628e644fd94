// A crash between a booking's commit and its confirmation-call job (issue 45.4) must not leave the
// booking never called. The job is queued in the booking's own transaction (and a move's): a process
// that dies right after the commit leaves the booking with its job, and a job that cannot be queued
// rolls the booking (or the move) back. The sweep stays as the safety net: a pending booking with no
// call for its round is given its job, once. A paid business's activation keeps its jobs the same
// way. Jobs are run by hand, with no worker of their own.
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Account } from "#models/accounts";
import { findBooking } from "#models/bookings";
import { findBusinessById } from "#models/businesses";
import { bookings, businesses, calls as callsTable } from "#models/schema";
import { bookingConfirmationCallJob, placeBooking, slotsForDay, type BookingRequest } from "~/features/booking/booking.server";
import { handleBookingAction } from "~/features/business/bookings.server";
import type { Owner } from "~/features/business/owner.server";
import { visitorOrigin } from "~/calls/gate.server";
import { translatorFor } from "~/platform/i18n.server";
import type { OwnerShellData } from "~/ui/shell/owner-shell";
import { bookingConfirmationSweepJob } from "~/features/booking/confirmation-sweep.server";
import {
  activateWithPayment,
  businessSubscriptionJob,
  ownerCredentialsJob,
  STARTER_AMOUNT_CENTS,
  STARTER_CURRENCY,
} from "~/features/business/signup/onboarding.server";
import { dieAfterCommitOf, pendingJobs } from "../support/jobs";
import { monthlyPlanWorld } from "../support/monthly-plan";

let world: Awaited<ReturnType<typeof monthlyPlanWorld>>;
let services: typeof world.services;

beforeAll(async () => {
  world = await monthlyPlanWorld();
  services = world.services;
});

afterAll(() => world?.close());

const monthlyBusiness = () => world.monthlyBusiness("Lost job");
const monthlyBooking = () => world.monthlyBooking("Lost job");

/** A customer's request for the first free time two days ahead, as the booking page sends it. */
async function bookingRequest(): Promise<BookingRequest> {
  const { business, service, seq } = await monthlyBusiness();
  const date = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const day = await slotsForDay(services, business, service.id, date);
  const slot = day.slots?.find((s) => s.available);
  if (!slot) throw new Error("no free time");
  return {
    business,
    service,
    start: slot.start,
    customer: { name: `Customer ${seq}`, phone: `+1212555${String(8200 + seq).padStart(4, "0")}`, email: null, notes: null },
    language: "en",
    idempotency: null,
    origin: origin(),
    callOrigin: visitorOrigin(services, "203.0.113.7"),
  };
}

/** The queue refuses confirmation-call jobs (its table locked, the database failing over) until restored. */
function refuseConfirmationJobs() {
  const jobs = services.jobs;
  const enqueue = jobs.enqueue.bind(jobs);
  jobs.enqueue = ((definition, data, options) =>
    definition.name === bookingConfirmationCallJob.name
      ? Promise.reject(new Error("the job queue is unavailable"))
      : enqueue(definition, data, options)) as typeof jobs.enqueue;
  return () => {
    jobs.enqueue = enqueue;
  };
}

async function bookingsOf(businessId: number) {
  return services.db.select().from(bookings).where(eq(bookings.businessId, businessId));
}

async function callsFor(bookingId: number) {
  return services.db.select().from(callsTable).where(eq(callsTable.bookingId, bookingId));
}

/** Makes the sweep look at the booking: its time was set long enough ago for its own job to have run. */
async function pastTheSweepGrace(bookingId: number) {
  await services.db
    .update(bookings)
    .set({ timeSetAt: sql`now() - interval '10 minutes'` })
    .where(eq(bookings.id, bookingId));
}

/** The business's owner, signed in, as the dashboard's booking actions receive them. */
async function ownerOf(business: Awaited<ReturnType<typeof monthlyBusiness>>["business"]): Promise<Owner> {
  return { services, business, t: await translatorFor("en"), locale: "en", account: {} as Account, shell: {} as OwnerShellData };
}

const origin = () => services.publicOrigin();
const confirm = (bookingId: number) => bookingConfirmationCallJob.handle({ bookingId, origin: origin(), ip: "203.0.113.7" }, services);
const sweep = () => bookingConfirmationSweepJob.handle({}, services);
/** The confirmation jobs waiting for the booking (what a worker would run). */
const confirmationJobs = (bookingId: number) => pendingJobs(services, bookingConfirmationCallJob.name, "bookingId", String(bookingId));

describe("a booking whose confirmation-call job was lost", () => {
  it("is given its job by the sweep, once, and gets exactly one call", async () => {
    // What a process killed right after the booking's commit leaves: the booking, and no job.
    const { booking } = await monthlyBooking();
    expect(await confirmationJobs(booking.id)).toHaveLength(0);
    // A booking made a moment ago is left to its own job.
    await sweep();
    expect(await confirmationJobs(booking.id)).toHaveLength(0);

    await pastTheSweepGrace(booking.id);
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

describe("a booking's confirmation-call job", () => {
  it("survives a crash right after the booking's commit, and the booking gets exactly one call", async () => {
    const request = await bookingRequest();
    dieAfterCommitOf(services, (result) => (result as { kind?: string } | undefined)?.kind === "created");
    await expect(placeBooking(services, request)).rejects.toThrow("process killed after the commit");
    const [booking] = await bookingsOf(request.business.id);
    expect(booking).toBeDefined();
    // The job committed with the booking: a worker finds it at once, without the sweep.
    expect(await confirmationJobs(booking!.id)).toHaveLength(1);
    await confirm(booking!.id);
    await pastTheSweepGrace(booking!.id);
    await sweep();
    expect(await confirmationJobs(booking!.id)).toHaveLength(1);
    await confirm(booking!.id);
    const calls = await callsFor(booking!.id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ purpose: "booking_confirmation", toNumber: request.customer.phone });
  });

  it("that cannot be queued leaves no booking: the time stays free, and booked again it is called once", async () => {
    const request = await bookingRequest();
    const restore = refuseConfirmationJobs();
    try {
      await expect(placeBooking(services, request)).rejects.toThrow("the job queue is unavailable");
    } finally {
      restore();
    }
    // No booking without its job, and none of its e-mails either.
    expect(await bookingsOf(request.business.id)).toEqual([]);
    const again = await placeBooking(services, request);
    expect(again).toMatchObject({ kind: "booked", duplicate: false });
    if (again.kind !== "booked") return;
    expect(await confirmationJobs(again.booking.id)).toHaveLength(1);
    await confirm(again.booking.id);
    expect(await callsFor(again.booking.id)).toHaveLength(1);
  });

  it("for a move that cannot be queued leaves the booking at its time, with its call", async () => {
    const { business, booking } = await monthlyBooking();
    await confirm(booking.id);
    const [before] = await callsFor(booking.id);
    const owner = await ownerOf(business);
    // A free time a week on, as the owner's form names it (the business's local date and time).
    const date = new Date(booking.startsAt.getTime() + 7 * 86_400_000).toISOString().slice(0, 10);
    const slot = (await slotsForDay(services, business, booking.serviceId, date)).slots?.find((s) => s.available);
    if (!slot) throw new Error("no free time");
    const later = new Date(slot.start);
    const form = new FormData();
    form.set("intent", "reschedule-booking");
    form.set("bookingId", String(booking.id));
    form.set("date", date);
    form.set("time", slot.time);
    const restore = refuseConfirmationJobs();
    try {
      await expect(handleBookingAction(owner, form)).rejects.toThrow("the job queue is unavailable");
    } finally {
      restore();
    }
    // Not moved, and its call for the time it keeps is not cancelled.
    const kept = await findBooking(services.db, booking.id);
    expect(kept).toMatchObject({ startsAt: booking.startsAt, confirmationRound: booking.confirmationRound });
    expect((await callsFor(booking.id)).map((call) => call.status)).toEqual([before!.status]);

    // Moved once the queue is back: the new time's call is asked for with the move, once.
    expect(await handleBookingAction(owner, form)).toMatchObject({ ok: true, done: "moved" });
    const moved = (await findBooking(services.db, booking.id))!;
    expect(moved.startsAt).toEqual(later);
    expect(await confirmationJobs(booking.id)).toHaveLength(1);
    await confirm(booking.id);
    await confirm(booking.id);
    const forNewTime = (await callsFor(booking.id)).filter((call) => call.confirmationRound === moved.confirmationRound);
    expect(forNewTime).toHaveLength(1);
  });
});

describe("a paid business's activation", () => {
  it("keeps its credentials and subscription jobs through a crash right after its commit", async () => {
    const [business] = await services.db
      .insert(businesses)
      .values({
        name: "Paid",
        bookingLink: `paid-${Date.now()}`,
        ownerName: "Owner",
        email: `paid-${Date.now()}@example.com`,
        phone: "+12125550100",
        status: "payment_required",
      })
      .returning();
    const intent = world.stripeFake.seedPaymentIntent({
      amount: STARTER_AMOUNT_CENTS,
      currency: STARTER_CURRENCY,
      status: "succeeded",
      metadata: { purpose: "business_starter", businessId: String(business!.id) },
    });
    dieAfterCommitOf(services, (result) => (result as { activatedNow?: boolean } | undefined)?.activatedNow === true);
    await expect(activateWithPayment(services, business!.id, intent.id, origin())).rejects.toThrow("process killed after the commit");
    expect((await findBusinessById(services.db, business!.id))?.status).toBe("active");
    const key = String(business!.id);
    expect(await pendingJobs(services, ownerCredentialsJob.name, "businessId", key)).toHaveLength(1);
    expect(await pendingJobs(services, businessSubscriptionJob.name, "businessId", key)).toHaveLength(1);
  });
});
