// The AI receptionist on a business's own number (issue 48, ADR 0041): a call rung through the
// fake Twilio (its signed inbound webhook, its TwiML run as Twilio does), carried by the same
// bridge to the fake realtime model, scripted to ask for the receptionist's tools. Real twilio and
// openai SDKs against the fakes.
import { and, eq, sql } from "drizzle-orm";
import twilioSdk from "twilio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking, findBooking } from "#models/bookings";
import { countPlanCallsSince } from "#models/businesses";
import { createCall, findCallByProviderId } from "#models/calls";
import { bookings, calls as callsTable, ownerMessages, planCalls, textMessages } from "#models/schema";
import { formatBookingReference } from "#models/booking-reference";
import { recordVoicemail, voicemailEmailJob } from "~/features/receptionist/messages.server";
import { NO_BOOKING_FOR_CALLER } from "~/features/receptionist/tools.server";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { expectLog } from "../support/console";
import { jobsIdle } from "../support/jobs";
import { readOutbox, waitForMail } from "../support/outbox";
import { businessWithNumber, signedInOwner } from "../support/receptionist";
import en from "~/locales/en";
import { waitFor } from "../support/wait";

const CALLER_ID = "+15005550006";
const SMS_FROM = "+15005550010";
const HOUR = 3_600_000;

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({
    twilio: { ownedNumbers: [CALLER_ID, SMS_FROM] },
    realtime: { audioSpeed: 10 },
    env: { TWILIO_SMS_FROM: SMS_FROM, SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

let lines = 0;
/** A number of the account's own for each business (one number belongs to one business). */
const ownNumber = () => `+1500555${String(1000 + ++lines)}`;
let callers = 0;
const newCaller = () => `+1212555${String(8000 + ++callers)}`;

const inboundUrl = () => `${app.url}/webhooks/twilio/voice/inbound`;

/** Someone rings the business's number, as Twilio delivers it; the number's status callback is the app's. */
function ring(to: string, from: string) {
  return twilio.inboundCall({ from, to, url: inboundUrl(), statusCallback: `${inboundUrl()}/status` });
}

/** The first free time of the service on the day after tomorrow, the business's wall time. */
async function freeTime(salon: Awaited<ReturnType<typeof businessWithNumber>>, days = 2, skip = 0) {
  const date = new Date(Date.now() + salon.zone.offset * HOUR + days * 86_400_000).toISOString().slice(0, 10);
  const slots = (await (
    await fetch(`${app.url}/api/booking/availability/${salon.business.bookingLink}/${date}/${salon.service.id}`)
  ).json()) as {
    time: string;
    available: boolean;
  }[];
  const free = slots.filter((slot) => slot.available);
  return { date, time: free[skip]!.time };
}

/** The call as the app records it, once it ended with the provider's final status. */
async function ended(sid: string) {
  await twilio.waitForStatus(sid, "completed", 30_000);
  return waitFor(
    async () => {
      const row = await findCallByProviderId(app.services.db, sid);
      return row?.status === "completed" && row.durationSeconds !== null ? row : null;
    },
    { what: "the inbound call to end", timeoutMs: 20_000 },
  );
}

/** Rings, waits for the receptionist's greeting to play, and speaks once: the scripted model then asks for its tools. */
async function callAndSpeak(to: string, from: string) {
  const index = realtime.sessions.length;
  const call = await ring(to, from);
  const stream = await twilio.stream(call.sid, 10_000);
  await realtime.waitForSession(index, 10_000);
  await realtime.waitForServerEvent(index, "response.done");
  await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
  await stream.sendSpeech(700);
  return { call, stream, index };
}

/** A booking three days ahead, written straight to the database as a web booking leaves it, and its start. */
async function bookedStraight(salon: Awaited<ReturnType<typeof businessWithNumber>>, phone: string, name: string, email: string) {
  const slot = await freeTime(salon, 3);
  const startsAt = new Date(`${slot.date}T${slot.time}:00Z`).getTime() - salon.zone.offset * HOUR;
  const made = await createBooking(app.services.db, {
    businessId: salon.business.id,
    serviceId: salon.service.id,
    startsAt: new Date(startsAt),
    endsAt: new Date(startsAt + 30 * 60_000),
    customerName: name,
    customerPhone: phone,
    customerEmail: email,
    notes: null,
    language: "en",
    idempotencyKey: null,
  });
  if (made.kind !== "created") throw new Error("no booking");
  return { made, startsAt };
}

const outputsOf = (index: number, name: string) =>
  realtime.sessions[index]!.functionOutputs.filter((o) => o.name === name).map((o) => o.output);

describe("a call to the business's own number", () => {
  it("is answered by the receptionist: AI and the business first, its data as data; a booking by voice holds the slot and texts the manage link", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const from = newCaller();
    const slot = await freeTime(salon);
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon. How can I help?" },
        { transcriptOfCaller: "I'd like a beard trim." },
        { tool: "available_times", arguments: { service_id: salon.service.id, date: slot.date } },
        { tool: "book_appointment", arguments: { service_id: salon.service.id, date: slot.date, time: slot.time, customer_name: "Omar" } },
        { tool: "end_call", arguments: { reason: "booked" }, say: "You're booked. Goodbye!" },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, from);
    // The TwiML is the outbound calls': the same bridge, a single-use token on the stream.
    expect(call.twiml).toMatch(
      /<Connect action="[^"]+\/twilio\/stream-ended\/\d+"><Stream url="ws[^"]+"><Parameter name="token" value="[\w.-]{20,}"\/>/,
    );
    const session = realtime.sessions[index]!;
    const instructions = String(session.session.instructions);
    expect(instructions).toContain("You are the AI receptionist");
    expect(instructions).toContain('"business_name": "Line Salon');
    expect(instructions).toContain(`service_id ${salon.service.id}: Beard trim, 30 min, $15.00`);
    expect(instructions).toContain('"business_address": "12 Harbour Street"');
    const greeting = JSON.stringify(session.responses[0]?.params ?? session.responses[0]?.instructions ?? "");
    expect(greeting).toContain("AI assistant");

    const row = await ended(call.sid);
    expect(row).toMatchObject({ purpose: "receptionist", direction: "inbound", fromNumber: from, toNumber: salon.number.phoneNumber });
    expect(row.outcome).toBe("booked");
    const [times] = outputsOf(index, "available_times");
    expect(times).toContain(slot.time);
    const [booked] = outputsOf(index, "book_appointment");
    expect(booked).toMatch(/^Booked and confirmed: .*Booking reference: [A-Z0-9]{3}-[A-Z0-9]{3}/);
    // Agreed on the call, it is confirmed: no confirmation call rings the caller back.
    const [made] = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, from));
    expect(made!.status).toBe("confirmed");

    // The slot is held: the booking page no longer offers it.
    const after = (await (
      await fetch(`${app.url}/api/booking/availability/${salon.business.bookingLink}/${slot.date}/${salon.service.id}`)
    ).json()) as { time: string; available: boolean }[];
    expect(after.find((s) => s.time === slot.time)?.available).toBe(false);

    // The details and the manage link go by text to the caller's number, once.
    await jobsIdle(app.services);
    expect(
      await app.services.db
        .select()
        .from(callsTable)
        .where(and(eq(callsTable.bookingId, made!.id), eq(callsTable.purpose, "booking_confirmation"))),
    ).toEqual([]);
    const texts = twilio.sentMessages(from);
    expect(texts).toHaveLength(1);
    expect(texts[0]!.body).toMatch(
      /Booked: Beard trim at Line Salon .*Ref [A-Z0-9]{3}-[A-Z0-9]{3}\. Change or cancel: http:\/\/[^\s]+\/booking\/[\w-]+/,
    );
    expect(texts[0]!.body).toContain("Reply STOP to opt out");
    // It counts against the plan as a call.
    expect(await countPlanCallsSince(app.services.db, salon.business.id, salon.business.planPeriodStart!)).toBe(1);

    // The owner sees it among their calls: incoming, from the caller's number, with what it came to.
    const owner = await signedInOwner(app.services, app.url, salon.business.id);
    const page = await (await owner.get("/dashboard/calls")).text();
    expect(page).toContain(en.owner.callPurpose.receptionist);
    expect(page).toContain(en.receptionist.outcome.booked);
    expect(page).toContain(from.slice(-4));
    // Its booking says it was confirmed on the call, not that a call is queued.
    const bookingPage = await (await owner.get(`/dashboard/bookings/${made!.id}`)).text();
    expect(bookingPage).toContain(en.callState.booked_on_call);
    expect(bookingPage).not.toContain(en.callState.queued);
    const callPage = await (await owner.get(`/dashboard/calls/${row.id}`)).text();
    expect(callPage).toContain(en.receptionist.outcome.booked);
    // The analytics count the calls to the number and the bookings made on them.
    const analytics = await (await owner.get("/dashboard/analytics")).text();
    expect(analytics.match(/data-tile="inbound"><p[^>]*>[^<]*<\/p><p[^>]*>([^<]*)<\/p>/)?.[1]).toBe("1");
    expect(analytics).toContain("Bookings made on them: 1");
  });

  it("moves and cancels a booking by its reference only from the booking's own phone; another caller learns nothing", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const owner = newCaller();
    const stranger = newCaller();
    const { made, startsAt } = await bookedStraight(salon, owner, "Dana", "dana@example.com");
    const reference = formatBookingReference(made.booking.reference);
    const later = await freeTime(salon, 4);

    // A stranger with the right reference: the same answer as a reference that does not exist.
    const strangerIndex = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { tool: "cancel_booking_by_reference", arguments: { reference } },
        { tool: "move_booking_by_reference", arguments: { reference, date: later.date, time: later.time } },
        { tool: "cancel_booking_by_reference", arguments: { reference: "ZZZ-ZZZ" } },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      strangerIndex,
    );
    const first = await callAndSpeak(salon.number.phoneNumber, stranger);
    await ended(first.call.sid);
    expect(outputsOf(strangerIndex, "cancel_booking_by_reference")).toEqual([NO_BOOKING_FOR_CALLER, NO_BOOKING_FOR_CALLER]);
    expect(outputsOf(strangerIndex, "move_booking_by_reference")).toEqual([NO_BOOKING_FOR_CALLER]);
    expect(JSON.stringify(realtime.sessions[strangerIndex]!.functionOutputs)).not.toContain("Dana");
    expect((await findBooking(app.services.db, made.booking.id))!.startsAt.getTime()).toBe(startsAt);
    expect((await findBooking(app.services.db, made.booking.id))!.status).toBe("pending");

    // From the booking's own phone: moved, then cancelled, each through the booking's own change (e-mails).
    const ownIndex = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        {
          tool: "move_booking_by_reference",
          arguments: { reference: reference.toLowerCase().replace("-", " "), date: later.date, time: later.time },
        },
        { tool: "cancel_booking_by_reference", arguments: { reference } },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      ownIndex,
    );
    const second = await callAndSpeak(salon.number.phoneNumber, owner);
    const row = await ended(second.call.sid);
    expect(outputsOf(ownIndex, "move_booking_by_reference")[0]).toMatch(/^Moved:/);
    expect(outputsOf(ownIndex, "cancel_booking_by_reference")[0]).toMatch(/^Cancelled/);
    expect(row.outcome).toBe("cancelled");
    const booking = (await findBooking(app.services.db, made.booking.id))!;
    expect(booking.status).toBe("cancelled");
    expect(booking.startsAt.getTime()).not.toBe(startsAt);
    await jobsIdle(app.services);
    const mails = (await readOutbox(app.dataDir)).filter((m) => m.to.includes("dana@example.com"));
    expect(mails.length).toBeGreaterThanOrEqual(2);
  });

  it("keeps a booking moved by voice confirmed at its new time: the caller agreed to it, so no confirmation call rings them back", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const caller = newCaller();
    const { made, startsAt } = await bookedStraight(salon, caller, "Lina", "lina@example.com");
    const later = await freeTime(salon, 4);
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        {
          tool: "move_booking_by_reference",
          arguments: { reference: formatBookingReference(made.booking.reference), date: later.date, time: later.time },
        },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, caller);
    await ended(call.sid);
    expect(outputsOf(index, "move_booking_by_reference")[0]).toMatch(/^Moved:/);
    const moved = (await findBooking(app.services.db, made.booking.id))!;
    expect(moved.startsAt.getTime()).not.toBe(startsAt);
    expect(moved).toMatchObject({ status: "confirmed", callState: "booked_on_call" });
    await jobsIdle(app.services);
    expect(
      await app.services.db
        .select()
        .from(callsTable)
        .where(and(eq(callsTable.bookingId, made.booking.id), eq(callsTable.purpose, "booking_confirmation"))),
    ).toEqual([]);
    // The customer's e-mail says the new time stands, with no call to come.
    const mails = (await readOutbox(app.dataDir)).filter((m) => m.to.includes("lina@example.com"));
    expect(mails.map((m) => m.text).join("\n")).toContain(en.bookingChanges.movedStaysConfirmed);
  });

  it("puts a caller who wants a person through to the owner's phone within hours, with <Dial>", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), transferNumber: "+12125550199" });
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { transcriptOfCaller: "I want to talk to a person." },
        { tool: "transfer_to_owner", arguments: {} },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, newCaller());
    const done = await ended(call.sid);
    const fakeCall = twilio.calls.get(call.sid)!;
    expect(fakeCall.dialled.map((d) => d.number)).toEqual(["+12125550199"]);
    expect(fakeCall.documents.at(-2) ?? fakeCall.documents.at(-1)).toContain("<Dial");
    expect(done.outcome).toBe("transferred");
  });

  it("takes a message instead outside opening hours, and e-mails it to the owner", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), transferNumber: "+12125550198", open: false });
    const from = newCaller();
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { tool: "transfer_to_owner", arguments: {} },
        { tool: "take_message", arguments: { caller_name: "Lina", message: "Please call me back about a group booking." } },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, from);
    const done = await ended(call.sid);
    expect(outputsOf(index, "transfer_to_owner")[0]).toMatch(/^Nobody can take the call now/);
    expect(twilio.calls.get(call.sid)!.dialled).toEqual([]);
    expect(done.outcome).toBe("message");
    const [message] = await app.services.db.select().from(ownerMessages).where(eq(ownerMessages.businessId, salon.business.id));
    expect(message).toMatchObject({
      kind: "message",
      fromNumber: from,
      callerName: "Lina",
      body: "Please call me back about a group booking.",
    });
    const mail = await waitForMail(app.dataDir, salon.business.email, /A message from a caller to Line Salon/);
    expect(mail.text).toContain("Please call me back about a group booking.");
    expect(mail.text).toContain(from);
    // And on the calls page, with the caller's name.
    const owner = await signedInOwner(app.services, app.url, salon.business.id);
    const page = await (await owner.get("/dashboard/calls")).text();
    expect(page).toContain(en.receptionist.messagesTitle);
    expect(page).toContain("Please call me back about a group booking.");
    expect(page).toContain("Lina");
  });

  it("never dials a transfer number the dialling policy refuses (a premium-rate line)", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), transferNumber: "+19002223333" });
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { tool: "transfer_to_owner", arguments: {} },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, newCaller());
    await ended(call.sid);
    expect(outputsOf(index, "transfer_to_owner")[0]).toMatch(/^Nobody can take the call now/);
    expect(twilio.calls.get(call.sid)!.dialled).toEqual([]);
  });

  it("reads a caller in crisis the help lines of their number's country", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { transcriptOfCaller: "I don't want to live, I want to kill myself." },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, "+4915112345678");
    const crisis = await waitFor(
      () => realtime.sessions[index]!.responses.find((r) => String(r.instructions ?? "").includes("TelefonSeelsorge")),
      { what: "the crisis script", timeoutMs: 10_000 },
    );
    expect(String(crisis.instructions)).toContain("0800 111 0 111");
    expect(String(crisis.instructions)).toContain("112");
    expect(String(crisis.instructions)).not.toContain("988");
    twilio.hangup(call.sid);
    const done = await ended(call.sid);
    expect(done.flaggedForReview).toBe(true);
  });

  it("gives the voicemail when the plan's calls are used up: transcribed, kept for the owner and e-mailed", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), plan: "starter" });
    // The starter's 20 calls are used.
    for (let n = 1; n <= 20; n++) {
      const used = await createCall(app.services.db, {
        purpose: "booking_confirmation",
        language: "en",
        voice: "coral",
        status: "completed",
        businessId: salon.business.id,
        timeLimitSeconds: 300,
      });
      await app.services.db.insert(planCalls).values({ callId: used.id, businessId: salon.business.id, number: n, metered: false });
    }
    const from = newCaller();
    twilio.setVoicemail(from, { transcript: "Hi, this is Maya, please call me back about Friday." });
    const sessions = realtime.sessions.length;
    const call = await ring(salon.number.phoneNumber, from);
    expect(call.twiml).toContain("<Record");
    expect(call.twiml).toContain('transcribe="true"');
    await twilio.waitForStatus(call.sid, "completed", 20_000);
    const mail = await waitForMail(app.dataDir, salon.business.email, /A voicemail for Line Salon/);
    expect(mail.text).toContain("Hi, this is Maya, please call me back about Friday.");
    const [voicemail] = await app.services.db.select().from(ownerMessages).where(eq(ownerMessages.businessId, salon.business.id));
    expect(voicemail).toMatchObject({ kind: "voicemail", fromNumber: from, providerCallId: call.sid });
    expect(voicemail!.recordingSid).toMatch(/^RE[0-9a-f]{32}$/);
    // Nobody was put on the bridge, nothing more was counted, and the e-mail went once.
    expect(realtime.sessions.length).toBe(sessions);
    expect(await findCallByProviderId(app.services.db, call.sid)).toBeNull();
    expect(await countPlanCallsSince(app.services.db, salon.business.id, salon.business.activatedAt!)).toBe(20);
    // The owner's plan page lists the call the plan kept from the receptionist.
    const owner = await signedInOwner(app.services, app.url, salon.business.id);
    const plan = await (await owner.get("/dashboard/plan")).text();
    expect(plan).toContain(en.plan.refusedTitle);
    expect(plan).toContain(en.plan.refusal.starter_used);
    await twilio.flush();
    await jobsIdle(app.services);
    expect((await readOutbox(app.dataDir)).filter((m) => m.to.includes(salon.business.email) && /voicemail/i.test(m.subject))).toHaveLength(
      1,
    );
  });

  it("offers the voicemail, not a promise to call back, when the voice model fails under the caller", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const from = newCaller();
    twilio.setVoicemail(from, { transcript: "The line went quiet, please call me." });
    const index = realtime.sessions.length;
    realtime.script([{ say: "Hello, I'm the AI assistant answering for Line Salon." }], index);
    const call = await ring(salon.number.phoneNumber, from);
    await twilio.stream(call.sid, 10_000);
    await realtime.waitForServerEvent(index, "response.done");
    expectLog("warn", /the realtime model failed \(connection closed \(1011\)\)/);
    realtime.disconnect(index, 1011, "server error");
    await twilio.waitForStatus(call.sid, "completed", 20_000);
    const fake = twilio.calls.get(call.sid)!;
    expect(fake.documents.some((doc) => doc.includes("<Record"))).toBe(true);
    const mail = await waitForMail(app.dataDir, salon.business.email, /A voicemail for Line Salon/);
    expect(mail.text).toContain("The line went quiet, please call me.");
    const row = await ended(call.sid);
    expect(row.outcome).toBe("voicemail");
    expect(row.modelFailedAt).not.toBeNull();
  });

  it("e-mails the owner a voicemail whose transcription never came, without its text, once", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const recordingSid = `RE${"d".repeat(32)}`;
    await recordVoicemail(app.services, {
      business: salon.business,
      fromNumber: newCaller(),
      providerCallId: `CA${"d".repeat(32)}`,
      recordingSid,
    });
    await jobsIdle(app.services);
    const mailsTo = async () => (await readOutbox(app.dataDir)).filter((m) => m.to.includes(salon.business.email));
    expect(await mailsTo()).toHaveLength(0);
    // Its wait is over (the job queued with the recording, TRANSCRIPTION_WAIT_SECONDS later).
    await voicemailEmailJob.handle({ businessId: salon.business.id, recordingSid }, app.services);
    await voicemailEmailJob.handle({ businessId: salon.business.id, recordingSid }, app.services);
    const mail = await waitForMail(app.dataDir, salon.business.email, /A voicemail for Line Salon/);
    expect(mail.text).toContain(`The voicemail could not be transcribed. Recording ${recordingSid} is in your Twilio account.`);
    await jobsIdle(app.services);
    expect(await mailsTo()).toHaveLength(1);
  });

  it("gives the voicemail past the caller's calls of the day and past the business's lines", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), maxCallsPerCallerPerDay: 1, maxConcurrentCalls: 1 });
    const from = newCaller();
    const index = realtime.sessions.length;
    realtime.script([{ say: "Hello, I'm the AI assistant answering for Line Salon." }], index);
    const live = await ring(salon.number.phoneNumber, from);
    await twilio.stream(live.sid, 10_000);
    // A second caller while the business's one line is taken.
    const busy = await ring(salon.number.phoneNumber, newCaller());
    expect(busy.twiml).toContain("<Record");
    twilio.hangup(live.sid);
    await ended(live.sid);
    // The first caller again, the same day: past their one call.
    const again = await ring(salon.number.phoneNumber, from);
    expect(again.twiml).toContain("<Record");
    const inbound = await app.services.db
      .select()
      .from(callsTable)
      .where(and(eq(callsTable.businessId, salon.business.id), eq(callsTable.direction, "inbound")));
    expect(inbound).toHaveLength(1);
  });

  it("ends politely at its time limit: the agent is told to close, then the bridge hangs up", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    // This business's calls get a 2-second limit (the receptionist's is minutes).
    await app.services.db.execute(
      sql.raw(`create or replace function short_inbound_limit() returns trigger language plpgsql as $$
        begin new.time_limit_seconds := 2; return new; end $$`),
    );
    await app.services.db.execute(
      sql.raw(`create trigger short_inbound_limit before insert on calls for each row
        when (new.business_id = ${salon.business.id}) execute function short_inbound_limit()`),
    );
    try {
      const index = realtime.sessions.length;
      realtime.script(
        [{ say: "Hello, I'm the AI assistant answering for Line Salon." }, { say: "We need to finish now. Goodbye!" }],
        index,
      );
      const call = await ring(salon.number.phoneNumber, newCaller());
      await twilio.stream(call.sid, 10_000);
      const closing = await waitFor(
        () => realtime.sessions[index]?.responses.find((r) => String(r.instructions ?? "").includes("about one minute left")),
        { what: "the agent told to close", timeoutMs: 10_000 },
      );
      expect(closing).toBeTruthy();
      const done = await twilio.waitForStatus(call.sid, "completed", 10_000);
      expect(done.hangupBy).toBe("app");
      expect((await ended(call.sid)).timeLimitSeconds).toBe(2);
    } finally {
      await app.services.db.execute(sql.raw("drop trigger short_inbound_limit on calls"));
      await app.services.db.execute(sql.raw("drop function short_inbound_limit()"));
    }
  });

  it("says a short message when the receptionist is off, and hangs up on a number nobody connected", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber(), mode: "off" });
    const off = await ring(salon.number.phoneNumber, newCaller());
    expect(off.twiml).toContain(`Thank you for calling ${salon.business.name}`);
    expect(off.twiml).not.toContain("<Connect");
    const nobody = await ring("+15005559999", newCaller());
    expect(nobody.twiml).toBe(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`);
    // Outside hours only, while open: the short message too.
    const open = await businessWithNumber(app.services, { number: ownNumber(), mode: "outside_hours" });
    expect((await ring(open.number.phoneNumber, newCaller())).twiml).not.toContain("<Connect");
  });

  it("refuses a forged or unsigned inbound webhook (403) and records no call", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const params = {
      AccountSid: twilio.accountSid,
      CallSid: `CA${"f".repeat(32)}`,
      CallStatus: "ringing",
      Direction: "inbound",
      From: newCaller(),
      To: salon.number.phoneNumber,
      ApiVersion: "2010-04-01",
    };
    const body = new URLSearchParams(params).toString();
    const headers = { "Content-Type": "application/x-www-form-urlencoded" };
    const unsigned = await fetch(inboundUrl(), { method: "POST", headers, body });
    expect(unsigned.status).toBe(403);
    const forged = await fetch(inboundUrl(), {
      method: "POST",
      headers: { ...headers, "X-Twilio-Signature": twilioSdk.getExpectedTwilioSignature("not-the-auth-token", inboundUrl(), params) },
      body,
    });
    expect(forged.status).toBe(403);
    for (const step of ["status", "voicemail", "transcription", "dialled"]) {
      expect((await fetch(`${inboundUrl()}/${step}`, { method: "POST", headers, body })).status).toBe(403);
    }
    expect(await findCallByProviderId(app.services.db, params.CallSid)).toBeNull();
  });

  it("never texts a caller who sent STOP, after a booking by voice", async () => {
    const salon = await businessWithNumber(app.services, { number: ownNumber() });
    const from = newCaller();
    await twilio.sendSms({ from, to: SMS_FROM, body: "STOP", url: `${app.url}/webhooks/twilio/messages` });
    const slot = await freeTime(salon, 5);
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I'm the AI assistant answering for Line Salon." },
        { tool: "book_appointment", arguments: { service_id: salon.service.id, date: slot.date, time: slot.time, customer_name: "Sami" } },
        { tool: "end_call", arguments: {}, say: "Goodbye." },
      ],
      index,
    );
    const { call } = await callAndSpeak(salon.number.phoneNumber, from);
    await ended(call.sid);
    expect(outputsOf(index, "book_appointment")[0]).toMatch(/^Booked and confirmed:/);
    await jobsIdle(app.services);
    expect(twilio.sentMessages(from)).toHaveLength(0);
    const texts = await app.services.db.select().from(textMessages).where(eq(textMessages.toPhone, from));
    expect(texts.map((t) => [t.status, t.refusal])).toEqual([["refused", "opted_out"]]);
  });
});
