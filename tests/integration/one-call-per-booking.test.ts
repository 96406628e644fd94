// A booking's confirmation is one call per attempt, however often the jobs that ask for it run
// (issue 25.1, ADR 0026). A worker killed mid-way through the confirmation job leaves the job to be
// retried when it expires, after another process already placed the call: the retry must find that
// call, not make and dial a second one. And the plan counts the booking once, with one meter event,
// however many attempts the confirmation takes. Real stripe and twilio SDKs against the fakes; the
// jobs are run by hand, as a retry runs them, with no worker of their own.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBooking, moveBusinessBooking } from "#models/bookings";
import { countPlanCallsSince } from "#models/businesses";
import { createCall, findCall } from "#models/calls";
import { UNIQUE_VIOLATION, pgErrorCode } from "#models/errors";
import { calls as callsTable } from "#models/schema";
import { changeBooking } from "~/features/booking/booking-change.server";
import { bookingConfirmationCallJob } from "~/features/booking/booking.server";
import { confirmationCallPurpose } from "~/features/booking/confirmation-call.server";
import { reportCallUsageJob } from "~/features/business/signup/onboarding.server";
import { adoptFromCallback, applyStatusCallback, callSweeperJob, placeCallJob } from "~/calls/engine.server";
import { expectLog } from "../support/console";
import { monthlyPlanWorld } from "../support/monthly-plan";

let world: Awaited<ReturnType<typeof monthlyPlanWorld>>;
let services: typeof world.services;

beforeAll(async () => {
  world = await monthlyPlanWorld();
  services = world.services;
});

afterAll(() => world?.close());

const monthlyBooking = () => world.monthlyBooking("One call");

const origin = () => services.publicOrigin();
const confirm = (bookingId: number) => bookingConfirmationCallJob.handle({ bookingId, origin: origin(), ip: "203.0.113.7" }, services);
const place = (callId: number) => placeCallJob.handle({ callId, origin: origin() }, services);
const callsOf = (bookingId: number) =>
  services.db.select().from(callsTable).where(eq(callsTable.bookingId, bookingId)).orderBy(callsTable.id);
const dialsTo = (number: string) =>
  world.twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === number);
const meterEventsOf = (customerId: string) =>
  [...world.stripeFake.meterEvents.values()].filter((e) => e.payload.stripe_customer_id === customerId);

describe("one call per booking, attempt and time, whatever the retries", () => {
  it("a confirmation job retried after a crash finds the call it asked for: one row, one dial, one plan count, one meter event", async () => {
    const { business, booking, customerId } = await monthlyBooking();

    // The job asks for the call and the call is placed (by another process's worker)...
    await confirm(booking.id);
    const [first] = await callsOf(booking.id);
    await place(first!.id);
    expect((await findCall(services.db, first!.id))!.providerCallId).toBeTruthy();
    expect((await findBooking(services.db, booking.id))!.callState).toBe("calling");

    // ...then the job, whose worker was killed, expires and runs again; so may the placing job.
    await confirm(booking.id);
    await place(first!.id);
    expect(await callsOf(booking.id)).toHaveLength(1);
    expect(dialsTo(booking.customerPhone)).toHaveLength(1);
    // The retry left the booking as the call made it, not back at "queued".
    expect((await findBooking(services.db, booking.id))!.callState).toBe("calling");

    // The customer does not answer: told twice (a replayed callback, the sweeper), the second
    // attempt is still asked for once, and placed once.
    const ended = (await applyStatusCallback(services, first!.id, { CallStatus: "no-answer" }, origin()))!;
    await confirmationCallPurpose.finished!(services, ended, origin());
    const attempts = await callsOf(booking.id);
    expect(attempts.map((c) => c.attempt)).toEqual([1, 2]);
    await place(attempts[1]!.id);
    await place(attempts[1]!.id);
    expect(dialsTo(booking.customerPhone)).toHaveLength(2);

    // The plan counts the booking once, and the meter hears of it once, whatever runs how often.
    expect(await countPlanCallsSince(services.db, business.id, business.planPeriodStart!)).toBe(1);
    for (const call of attempts)
      for (let run = 0; run < 2; run++) await reportCallUsageJob.handle({ callId: call.id, businessId: business.id }, services);
    expect(meterEventsOf(customerId)).toHaveLength(1);
  });

  it("the database itself refuses a second call for the same booking, time and attempt", async () => {
    const { booking } = await monthlyBooking();
    await confirm(booking.id);
    const [call] = await callsOf(booking.id);
    const duplicate = createCall(services.db, {
      purpose: "booking_confirmation",
      language: "en",
      voice: "shimmer",
      bookingId: booking.id,
      confirmationRound: call!.confirmationRound,
      attempt: 1,
      timeLimitSeconds: 300,
    });
    const error = await duplicate.then(
      () => null,
      (e: unknown) => e,
    );
    expect(pgErrorCode(error)).toBe(UNIQUE_VIOLATION);
  });

  it("a booking moved to a new time gets its own confirmation call, and still counts once against the plan", async () => {
    const { business, booking } = await monthlyBooking();
    await confirm(booking.id);
    const [first] = await callsOf(booking.id);
    await place(first!.id);

    const startsAt = new Date(booking.startsAt.getTime() + 86_400_000);
    const moved = await moveBusinessBooking(services.db, business.id, booking.id, startsAt, new Date(startsAt.getTime() + 30 * 60_000));
    expect(moved.kind).toBe("moved");
    await confirm(booking.id);
    await confirm(booking.id);
    const rounds = await services.db
      .select({ round: callsTable.confirmationRound, attempt: callsTable.attempt })
      .from(callsTable)
      .where(and(eq(callsTable.bookingId, booking.id)))
      .orderBy(callsTable.id);
    expect(rounds).toEqual([
      { round: 1, attempt: 1 },
      { round: 2, attempt: 1 },
    ]);
    const [, second] = await callsOf(booking.id);
    await place(second!.id);
    expect(dialsTo(booking.customerPhone)).toHaveLength(2);
    expect(await countPlanCallsSince(services.db, business.id, business.planPeriodStart!)).toBe(1);

    // The first time's call ends unanswered after the move: it asks for no further attempt.
    const ended = (await applyStatusCallback(services, first!.id, { CallStatus: "no-answer" }, origin()))!;
    expect(ended.status).toBe("no-answer");
    expect(await callsOf(booking.id)).toHaveLength(2);
  });

  it("a booking the owner confirms while its confirmation job is between its read and its call gets no call", async () => {
    const { business, booking } = await monthlyBooking();
    // The owner's click lands after the job read the booking (pending) and before it writes the
    // call: the job's transaction is where the two meet.
    let confirmedBetween = false;
    const db = new Proxy(services.db, {
      get(target, property, receiver) {
        if (property !== "transaction") return Reflect.get(target, property, receiver) as unknown;
        return async (work: Parameters<typeof target.transaction>[0]) => {
          if (!confirmedBetween) {
            confirmedBetween = true;
            const changed = await changeBooking(services, { booking, business, by: "owner" }, { kind: "confirmed" });
            expect(changed.kind).toBe("changed");
          }
          return target.transaction(work);
        };
      },
    });
    await bookingConfirmationCallJob.handle({ bookingId: booking.id, origin: origin() }, { ...services, db });
    expect(confirmedBetween).toBe(true);
    expect(await callsOf(booking.id)).toEqual([]);
    expect((await findBooking(services.db, booking.id))!.status).toBe("confirmed");
  });
});

describe("a dial whose answer was lost (its process died while the provider created the call)", () => {
  /** Places the booking's confirmation call, then forgets the provider's answer as a crash mid-dial would. */
  async function lostDial() {
    const { booking } = await monthlyBooking();
    // A visitor of their own (the address cap counts the others' bookings in this file).
    await bookingConfirmationCallJob.handle({ bookingId: booking.id, origin: origin(), ip: `198.51.100.${booking.id}` }, services);
    const [call] = await callsOf(booking.id);
    await place(call!.id);
    const sid = (await findCall(services.db, call!.id))!.providerCallId!;
    expect(sid).toMatch(/^CA/);
    await services.db
      .update(callsTable)
      .set({ providerCallId: null, status: "queued", startedAt: null, dialClaimedAt: new Date(Date.now() - 60_000) })
      .where(eq(callsTable.id, call!.id));
    return { booking, callId: call!.id, sid };
  }

  it("is found at the provider by the retried dial and adopted, not dialled a second time", async () => {
    const { booking, callId, sid } = await lostDial();
    expectLog("warn", /an earlier dial reached the provider \(CA\w+\); adopted, not dialled again/);
    await place(callId);
    expect(dialsTo(booking.customerPhone)).toHaveLength(1);
    expect(await findCall(services.db, callId)).toMatchObject({ providerCallId: sid, status: "initiated" });
  });

  it("is adopted by the sweeper when the queue gave up on its dialling job, not ended and dialled again", async () => {
    const { booking, callId, sid } = await lostDial();
    expectLog("warn", /an earlier dial reached the provider \(CA\w+\); adopted, not dialled again/);
    // Every retry's worker died as this one did: pg-boss failed the job for good.
    await services.db
      .update(callsTable)
      .set({ createdAt: new Date(Date.now() - 10 * 60_000) })
      .where(eq(callsTable.id, callId));
    const { rows } = await services.database.executeSql(
      `UPDATE pgboss.job SET state = 'failed', completed_on = now(), output = '{"value":{"message":"job failed by timeout in active state"}}'::jsonb
       WHERE name = 'call-place' AND data->>'callId' = $1 AND state < 'completed' RETURNING id`,
      [String(callId)],
    );
    expect(rows.length).toBeGreaterThan(0);
    await callSweeperJob.handle({}, services);
    expect(await findCall(services.db, callId)).toMatchObject({ providerCallId: sid, status: "initiated" });
    expect(dialsTo(booking.customerPhone)).toHaveLength(1);
  });

  it("is adopted from a signed callback naming the call, and a callback for another call's id changes nothing", async () => {
    const { booking, callId, sid } = await lostDial();
    const lost = (await findCall(services.db, callId))!;
    const adopted = await adoptFromCallback(services, lost, { CallSid: sid, From: world.twilio.ownedNumbers[0]!, CallStatus: "ringing" });
    expect(adopted.providerCallId).toBe(sid);
    const again = await adoptFromCallback(services, adopted, { CallSid: "CA00000000000000000000000000000000", CallStatus: "ringing" });
    expect(again.providerCallId).toBe(sid);
    // The retried dial finds the call already placed: nothing more is dialled.
    await place(callId);
    expect(dialsTo(booking.customerPhone)).toHaveLength(1);
  });
});
