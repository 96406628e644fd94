// The AI reminder call a chosen number of hours before an appointment (issue 27, item 1): placed
// once per booking and time whatever the scans and processes, by the confirmation agent in the
// booking's language, inside calling hours, never for a cancelled booking, counted by the plan as
// a call; the owner chooses it in settings (validated) and sees what came of it on the booking.
// Real twilio and openai SDKs against the fakes; the scan is called with a `now` in the future, as
// the e-mail reminders' tests do.
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking, findBooking, setBookingStatus } from "#models/bookings";
import { addService } from "#models/business-services";
import { countPlanCallsSince } from "#models/businesses";
import { findCall } from "#models/calls";
import { accounts, bookings, businesses, calls as callsTable } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { queueDueCallReminders } from "~/features/booking/reminders.server";
import { placeCallJob } from "~/calls/engine.server";
import en from "~/locales/en";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { type InProcessApp, realtimeEnv, startAppWithFakes, twilioEnv } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";
import { waitFor } from "../support/wait";

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;
let providers: Record<string, string>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({ twilio: true, realtime: { audioSpeed: 10 } }));
  providers = { ...twilioEnv(twilio), ...realtimeEnv(realtime) };
});

afterAll(() => close?.());

const HOUR = 3_600_000;
const MINUTE = 60_000;

/**
 * A fixed-offset zone where it is now `hour` o'clock (midday: a call dialled now is inside calling
 * hours, 08:00-21:00), and its offset from UTC in hours.
 */
function zoneAt(hour = 12) {
  let offset = (((hour - new Date().getUTCHours()) % 24) + 24) % 24;
  if (offset > 14) offset -= 24;
  return { name: offset === 0 ? "Etc/GMT" : `Etc/GMT${offset > 0 ? "-" : "+"}${Math.abs(offset)}`, offset };
}

let seq = 0;
let phones = 0;
/** A business on the monthly plan that chose a reminder call `hours` before, in a zone where it is midday now. */
async function business(hours: number | null, zone = zoneAt(12)) {
  seq += 1;
  const [row] = await app.services.db
    .insert(businesses)
    .values({
      name: `Reminder Salon ${seq}`,
      bookingLink: `reminder-salon-${seq}-${Date.now()}`,
      ownerName: "Owner",
      email: `reminder-salon-${seq}-${Date.now()}@example.com`,
      phone: "+12125550100",
      status: "active",
      timeZone: zone.name,
      confirmationVoice: "coral",
      activatedAt: new Date(Date.now() - 2 * 86_400_000),
      planStatus: "active",
      planPeriodStart: new Date(Date.now() - 86_400_000),
      planPeriodEnd: new Date(Date.now() + 29 * 86_400_000),
      reminderCallHours: hours,
    })
    .returning();
  const service = await addService(app.services.db, row!.id, {
    name: "Corte de pelo",
    description: "",
    priceCents: 2000,
    currency: "USD",
    durationMinutes: 30,
  });
  return { business: row!, service, offset: zone.offset };
}

/** A booking made now for `daysAhead` days from today at `localMinute` (the business's wall time). */
async function booking(salon: Awaited<ReturnType<typeof business>>, daysAhead: number, localMinute: number, language = "en") {
  const local = new Date(Date.now() + salon.offset * HOUR);
  const wall = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), local.getUTCDate() + daysAhead, 0, localMinute);
  const startsAt = new Date(wall - salon.offset * HOUR);
  const made = await createBooking(app.services.db, {
    businessId: salon.business.id,
    serviceId: salon.service.id,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 30 * MINUTE),
    customerName: `Customer ${seq}`,
    customerPhone: `+1212555${String(7100 + ++phones)}`,
    customerEmail: null,
    notes: null,
    language,
    idempotencyKey: null,
  });
  if (made.kind !== "created") throw new Error("booking not created");
  return made.booking;
}

const before = (start: Date, ms: number) => new Date(start.getTime() - ms);
const remindersOf = (bookingId: number) =>
  app.services.db
    .select()
    .from(callsTable)
    .where(and(eq(callsTable.bookingId, bookingId), eq(callsTable.purpose, "booking_reminder")));
const dialsTo = (number: string) =>
  twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === number);
async function placed(callId: number) {
  return waitFor(
    async () => {
      const row = await findCall(app.services.db, callId);
      return row?.providerCallId ? row : null;
    },
    { what: "the reminder call to be placed", timeoutMs: 20_000 },
  );
}

describe("the AI reminder call", () => {
  it("is placed once, the chosen hours before, by the confirmation agent in the booking's language; the customer says they will come", async () => {
    const salon = await business(4);
    const made = await booking(salon, 3, 12 * 60, "es");
    realtime.script(
      [
        { say: "Hola, soy el asistente de IA de Reminder Salon: le recuerdo su corte de pelo. ¿Vendrá?" },
        { transcriptOfCaller: "Sí, allí estaré." },
        { tool: "confirm_booking", arguments: {} },
        { tool: "end_call", arguments: { reason: "done" }, say: "¡Perfecto, hasta pronto!" },
      ],
      0,
    );
    // Not before its hours.
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 5 * HOUR))).toBe(0);
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 3 * HOUR))).toBe(1);
    // The next scans (every minute, on every process) find it queued.
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 3 * HOUR))).toBe(0);
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 2 * HOUR))).toBe(0);

    const [queued] = await remindersOf(made.id);
    expect(queued!.language).toBe("es");
    expect(queued!.voice).toBe("coral");
    const call = await placed(queued!.id);
    // It waits for the beep, as the confirmation does, to leave its voicemail to a machine.
    expect(twilio.calls.get(call.providerCallId!)!.params.MachineDetection).toBe("DetectMessageEnd");
    const stream = await twilio.stream(call.providerCallId!);
    const session = await realtime.waitForSession(0, 10_000);
    await realtime.waitForServerEvent(0, "session.updated");
    expect(String(session.session.instructions)).toContain("to remind them of their appointment");
    expect(String(session.session.instructions)).toContain('"service": "Corte de pelo"');
    expect(String(session.session.instructions)).toContain("in Spanish");
    await realtime.waitForServerEvent(0, "response.done");
    await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
    await stream.sendSpeech(700);
    await twilio.waitForStatus(call.providerCallId!, "completed", 30_000);
    const done = await waitFor(
      async () => {
        const row = await findCall(app.services.db, call.id);
        return row?.status === "completed" ? row : null;
      },
      { what: "the completed reminder call" },
    );
    expect(done.outcome).toBe("confirmed");
    const after = (await findBooking(app.services.db, made.id))!;
    expect(after.status).toBe("confirmed");
    // The reminder's answer is not written over the confirmation call's record.
    expect(after.callOutcome).toBeNull();

    await jobsIdle(app.services);
    expect(await remindersOf(made.id)).toHaveLength(1);
    expect(dialsTo(made.customerPhone)).toHaveLength(1);
    // Counted by the plan like any call.
    expect(await countPlanCallsSince(app.services.db, salon.business.id, salon.business.planPeriodStart!)).toBe(1);

    // The owner sees what came of it on the booking.
    const owner = await signedInOwner(salon.business.id);
    const page = await (await owner.get(`/dashboard/bookings/${made.id}`)).text();
    expect(page).toContain(en.owner.bookings.reminderCallLabel);
    expect(/data-reminder-call="[^"]*"[^>]*>([^<]*)</.exec(page)?.[1]).toContain(en.owner.outcome.confirmed);
  });

  it("leaves the reminder voicemail in the booking's language when a machine answers", async () => {
    const salon = await business(24);
    const made = await booking(salon, 3, 12 * 60, "en");
    twilio.setOutcome(made.customerPhone, "machine");
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 23 * HOUR))).toBe(1);
    const [queued] = await remindersOf(made.id);
    const call = await placed(queued!.id);
    await twilio.waitForStatus(call.providerCallId!, "completed", 10_000);
    expect(twilio.calls.get(call.providerCallId!)!.said.join(" ")).toMatch(/with a reminder of your appointment on/);
  });

  it("is never made for a cancelled booking, nor for one cancelled after it was queued (checked again before dialling)", async () => {
    const salon = await business(2);
    const cancelled = await booking(salon, 3, 12 * 60);
    await setBookingStatus(app.services.db, cancelled.id, "cancelled");
    expect(await queueDueCallReminders(app.services, before(cancelled.startsAt, 90 * MINUTE))).toBe(0);

    // Queued at 10:30 where the business is; its dial, tried at night there, waits for calling hours,
    // and the booking is cancelled meanwhile: the dial, tried again, finds it cancelled.
    const night = await business(2, zoneAt(2));
    const late = await booking(night, 3, 12 * 60);
    expect(await queueDueCallReminders(app.services, before(late.startsAt, 90 * MINUTE))).toBe(1);
    await jobsIdle(app.services);
    const [held] = await remindersOf(late.id);
    expect((await findCall(app.services.db, held!.id))!.status).toBe("queued");
    await setBookingStatus(app.services.db, late.id, "cancelled");
    await placeCallJob.handle({ callId: held!.id, origin: app.url }, app.services);
    expect((await findCall(app.services.db, held!.id))!.status).toBe("failed");
    // The owner sees it was not placed.
    const owner = await signedInOwner(night.business.id);
    const page = await (await owner.get(`/dashboard/bookings/${late.id}`)).text();
    expect(/data-reminder-call="[^"]*"[^>]*>([^<]*)</.exec(page)?.[1]).toContain(en.owner.bookings.reminderSkipped);
    await jobsIdle(app.services);
    expect(dialsTo(cancelled.customerPhone)).toHaveLength(0);
    expect(dialsTo(late.customerPhone)).toHaveLength(0);
  });

  it("due outside calling hours waits for them while still of use, and is skipped when they open too late", async () => {
    const salon = await business(4);
    // 11:00 where the business is: due at 07:00, before calling hours; made at 08:00.
    const waits = await booking(salon, 3, 11 * 60);
    twilio.setOutcome(waits.customerPhone, "no-answer");
    expect(await queueDueCallReminders(app.services, before(waits.startsAt, 4 * HOUR))).toBe(0);
    expect(await queueDueCallReminders(app.services, before(waits.startsAt, 3 * HOUR + MINUTE))).toBe(0);
    expect(await remindersOf(waits.id)).toHaveLength(0);
    expect(await queueDueCallReminders(app.services, before(waits.startsAt, 3 * HOUR))).toBe(1);

    // 08:20: at 08:00 there are 20 minutes left, too late to be of use: never made.
    const skipped = await booking(salon, 4, 8 * 60 + 20);
    expect(await queueDueCallReminders(app.services, before(skipped.startsAt, 4 * HOUR))).toBe(0);
    expect(await queueDueCallReminders(app.services, before(skipped.startsAt, 20 * MINUTE))).toBe(0);
    expect(await queueDueCallReminders(app.services, before(skipped.startsAt, 10 * MINUTE))).toBe(0);
    expect(await remindersOf(skipped.id)).toHaveLength(0);
    await jobsIdle(app.services);
  });

  it("is not made for a booking made within its hours, nor when the owner left it off", async () => {
    const salon = await business(12);
    const sameDay = await booking(salon, 3, 12 * 60);
    await app.services.db
      .update(bookings)
      .set({ timeSetAt: before(sameDay.startsAt, 10 * HOUR) })
      .where(eq(bookings.id, sameDay.id));
    expect(await queueDueCallReminders(app.services, before(sameDay.startsAt, 9 * HOUR))).toBe(0);

    const off = await business(null);
    const made = await booking(off, 3, 12 * 60);
    expect(await queueDueCallReminders(app.services, before(made.startsAt, 2 * HOUR))).toBe(0);
  });
});

describe("the reminder call setting", () => {
  it("offers Off or 2, 4, 12, 24 hours, saves a choice and refuses anything else with an error by the field", async () => {
    const salon = await business(null);
    const owner = await signedInOwner(salon.business.id);
    const page = await (await owner.get("/dashboard/settings")).text();
    expect(page).toContain(en.settings.reminderCall);
    expect(page).toMatch(/<option value="off" selected="">/);
    for (const hours of [2, 4, 12, 24]) expect(page).toContain(`<option value="${hours}">`);

    const saved = await owner.postForm("/dashboard/settings", { intent: "save-reminders", reminderEmail: "on", reminderCallHours: "12" });
    expect(saved.status).toBe(302);
    expect(saved.headers.get("location")).toContain("done=reminders-saved");
    const [row] = await app.services.db.select().from(businesses).where(eq(businesses.id, salon.business.id));
    expect(row!.reminderCallHours).toBe(12);
    expect(await (await owner.get("/dashboard/settings")).text()).toMatch(/<option value="12" selected="">/);

    for (const bad of ["3", "-2", "24.5", "twelve", ""]) {
      const refused = await owner.postForm("/dashboard/settings", { intent: "save-reminders", reminderCallHours: bad });
      expect(refused.status, bad).toBe(400);
      const html = await refused.text();
      expect(html).toContain(en.settings.reminderCallInvalid);
      expect(html).toMatch(/id="settings-reminder-call"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="settings-reminder-call"/);
    }
    const [unchanged] = await app.services.db.select().from(businesses).where(eq(businesses.id, salon.business.id));
    expect(unchanged!.reminderCallHours).toBe(12);

    const turnedOff = await owner.postForm("/dashboard/settings", { intent: "save-reminders", reminderCallHours: "off" });
    expect(turnedOff.status).toBe(302);
    const [off] = await app.services.db.select().from(businesses).where(eq(businesses.id, salon.business.id));
    expect(off!.reminderCallHours).toBeNull();
  });
});

describe.runIf(process.env.DATABASE_URL)("across processes", () => {
  it("two apps on the same database scanning at once queue and dial one reminder call", async () => {
    const second = await startAppInProcess({ ...providers, ...app.sharedEnv, SEED_DEMO_DATA: "false" });
    try {
      const salon = await business(4);
      const made = await booking(salon, 5, 12 * 60);
      twilio.setOutcome(made.customerPhone, "no-answer");
      const now = before(made.startsAt, 3 * HOUR);
      const counts = await Promise.all([
        queueDueCallReminders(app.services, now),
        queueDueCallReminders(second.services, now),
        queueDueCallReminders(app.services, now),
        queueDueCallReminders(second.services, now),
      ]);
      expect(counts.reduce((a, b) => a + b, 0)).toBe(1);
      const [queued] = await remindersOf(made.id);
      await placed(queued!.id);
      await Promise.all([jobsIdle(app.services), jobsIdle(second.services)]);
      expect(await remindersOf(made.id)).toHaveLength(1);
      expect(dialsTo(made.customerPhone)).toHaveLength(1);
    } finally {
      await second.stop();
    }
  });
});

/** An owner of the business, signed in. */
async function signedInOwner(businessId: number) {
  const email = `reminder-owner-${businessId}@example.com`;
  await app.services.db.insert(accounts).values({
    businessId,
    name: "Salon Owner",
    email,
    passwordHash: await hashPassword("reminder owner password"),
    mustChangePassword: false,
  });
  const client = httpClient(app.url);
  expect((await client.postJson("/api/auth/login", { email, password: "reminder owner password" })).status).toBe(200);
  return client;
}
