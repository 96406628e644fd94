import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, bookings, businesses, textMessages, textOptOuts } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { queueDueTextReminders } from "~/features/booking/texts.server";
import { queueText, sendTextJob } from "~/texts/gate.server";
import en from "~/locales/en";
import es from "~/locales/es";
import { startAppInProcess } from "../support/app-in-process";
import { startAppWithFakes, type AppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";

// Texts (SMS, issue 48): every text through queueText, the fake Twilio's Messages API as Twilio
// answers, its signed status callbacks and incoming texts to the app's messaging webhook.
const CALLER_ID = "+15005550006";
const SMS_FROM = "+15005550010";
const HOUR = 3_600_000;

let env: AppWithFakes<{ twilio: { ownedNumbers: string[] }; env: Record<string, string> }>;
let haircut: { id: number };
let demoId: number;
let usedDays = 1;
let visitors = 0;

beforeAll(async () => {
  env = await startAppWithFakes({ twilio: { ownedNumbers: [CALLER_ID, SMS_FROM] }, env: { TWILIO_SMS_FROM: SMS_FROM } });
  const list = await (await fetch(`${env.url}/api/booking/services/demo-salon`)).json();
  haircut = list.find((s: { name: string }) => s.name === "Haircut");
  const [demo] = await env.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  demoId = demo!.id;
});

afterAll(async () => {
  await env?.close();
});

const twilio = () => env.twilio;
const inbound = (from: string, body: string, signWith?: string) =>
  twilio().sendSms({ from, to: SMS_FROM, body, url: `${env.url}/webhooks/twilio/messages`, ...(signWith ? { signWith } : {}) });
const textsTo = (phone: string) => env.services.db.select().from(textMessages).where(eq(textMessages.toPhone, phone));

/** A customer books a Haircut days ahead on the public API (without an e-mail address unless given). */
async function booked(phone: string, options: { lng?: string; email?: string } = {}) {
  visitors += 1;
  for (let day = usedDays + 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${env.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const free = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!free) continue;
    usedDays = day;
    const guest = httpClient(env.url, { localAddress: `127.0.3.${visitors}` });
    const response = await guest.postJson(`/api/booking/create?lng=${options.lng ?? "en"}`, {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${free.time}`,
      customerInfo: { name: `Texted ${visitors}`, phone, ...(options.email ? { email: options.email } : {}) },
    });
    expect(response.status).toBe(201);
    const id = (await response.json()).booking.id as number;
    const [row] = await env.services.db.select().from(bookings).where(eq(bookings.id, id));
    return row!;
  }
  throw new Error("no free day left");
}

async function signedInOwner() {
  const email = "texts-owner@example.com";
  await env.services.db.insert(accounts).values({
    businessId: demoId,
    name: "Salon Owner",
    email,
    passwordHash: await hashPassword("texts owner password"),
    mustChangePassword: false,
  });
  const client = httpClient(env.url);
  expect((await client.postJson("/api/auth/login", { email, password: "texts owner password" })).status).toBe(200);
  return client;
}

describe("texts to customers", () => {
  it("are off until the owner turns them on in the settings, which say texts are available here", async () => {
    const owner = await signedInOwner();
    const page = await (await owner.get("/dashboard/settings")).text();
    expect(page).toContain(en.settings.textsTitle);
    expect(page).toContain(en.settings.textsAvailable);
    expect(page).toMatch(/name="textsEnabled"/);
    expect(page).not.toMatch(/name="textsEnabled"[^>]*checked/);

    // Booked without an e-mail before the owner turned texts on: nothing is texted.
    const before = await booked("+12125554001");
    await jobsIdle(env.services);
    expect(twilio().sentMessages(before.customerPhone)).toHaveLength(0);

    const saved = await owner.postForm(
      "/dashboard/settings",
      { intent: "save-texts", textsEnabled: "on" },
      { tokenFrom: "/dashboard/settings" },
    );
    expect(saved.status).toBe(302);
    const after = await (await owner.get(saved.headers.get("location")!)).text();
    expect(after).toContain(en.settings.textsSaved);
    expect(after).toMatch(/name="textsEnabled"[^>]*checked/);
  });

  it("send a booking made without an e-mail its confirmation with the manage link, once, and record its delivery", async () => {
    const booking = await booked("+12125554002");
    await jobsIdle(env.services);
    const sent = twilio().sentMessages(booking.customerPhone);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.from).toBe(SMS_FROM);
    expect(sent[0]!.body).toMatch(/\/booking\/[A-Za-z0-9_-]+/);
    expect(sent[0]!.body).toContain(`${booking.reference.slice(0, 3)}-${booking.reference.slice(3)}`);
    expect(sent[0]!.body.endsWith(en.texts.optOut)).toBe(true);
    // Twilio's status callbacks (sent, delivered) reach the text's row.
    await twilio().waitForMessageStatus(sent[0]!.sid, "delivered");
    await twilio().flush();
    const [row] = await textsTo(booking.customerPhone);
    expect(row).toMatchObject({ providerSid: sent[0]!.sid, status: "delivered", purpose: "booking_confirmation" });

    // Twilio's callbacks may come before its answer to the send: they still reach the row.
    const early = "+12125554009";
    twilio().callbacksBeforeAnswer.add(early);
    await booked(early);
    await jobsIdle(env.services);
    await twilio().flush();
    const [earlyRow] = await textsTo(early);
    expect(earlyRow).toMatchObject({ providerSid: twilio().sentMessages(early)[0]!.sid, status: "delivered" });

    // A booking with an e-mail gets the e-mail, not a text.
    const emailed = await booked("+12125554003", { email: "texts-emailed@example.com" });
    await jobsIdle(env.services);
    expect(twilio().sentMessages(emailed.customerPhone)).toHaveLength(0);
  });

  it("remind a day before in the customer's language, once, even when the scan and the job run again", async () => {
    const booking = await booked("+12125554004", { lng: "es", email: "texts-reminded@example.com" });
    expect(await queueDueTextReminders(env.services, new Date(booking.startsAt.getTime() - 25 * HOUR))).toBe(0);
    expect(await queueDueTextReminders(env.services, new Date(booking.startsAt.getTime() - 23 * HOUR))).toBe(1);
    expect(await queueDueTextReminders(env.services, new Date(booking.startsAt.getTime() - 22 * HOUR))).toBe(0);
    await jobsIdle(env.services);
    const sent = twilio().sentMessages(booking.customerPhone);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.body).toContain("Haircut");
    expect(sent[0]!.body.endsWith(es.texts.optOut)).toBe(true);

    // The job run again (its worker died after the send, the queue retried it): no second text.
    const [row] = await textsTo(booking.customerPhone);
    const request = { businessId: demoId, to: booking.customerPhone, body: "again", purpose: "booking_reminder" as const, key: row!.key };
    await sendTextJob.handle(request, env.services);
    // And one whose worker died while Twilio was being asked: never asked again (it may have the text).
    await env.services.db.update(textMessages).set({ status: "sending", providerSid: null }).where(eq(textMessages.id, row!.id));
    await sendTextJob.handle(request, env.services);
    expect(twilio().sentMessages(booking.customerPhone)).toHaveLength(1);
    expect((await textsTo(booking.customerPhone))[0]!.status).toBe("unconfirmed");
  });

  it("stop for a customer who texted STOP, and start again after START", async () => {
    const phone = "+12125554005";
    const first = await booked(phone);
    await jobsIdle(env.services);
    expect(twilio().sentMessages(phone)).toHaveLength(1);

    const stopped = await inbound(phone, "  Stop ");
    expect(stopped.status).toBe(200);
    expect(stopped.contentType).toMatch(/xml/);
    expect(stopped.body).toContain("<Response></Response>");
    expect(await env.services.db.select().from(textOptOuts).where(eq(textOptOuts.phone, phone))).toHaveLength(1);

    // The reminder and a later booking's confirmation are asked for, and never sent.
    expect(await queueDueTextReminders(env.services, new Date(first.startsAt.getTime() - 23 * HOUR))).toBe(1);
    await booked(phone);
    await jobsIdle(env.services);
    expect(twilio().sentMessages(phone)).toHaveLength(1);
    expect(twilio().refusedMessages.filter((r) => r.params.To === phone)).toHaveLength(0);
    const rows = await textsTo(phone);
    expect(rows.filter((r) => r.status === "refused").map((r) => r.refusal)).toEqual(["opted_out", "opted_out"]);

    expect((await inbound(phone, "START")).status).toBe(200);
    expect(await env.services.db.select().from(textOptOuts).where(eq(textOptOuts.phone, phone))).toHaveLength(0);
    await booked(phone);
    await jobsIdle(env.services);
    expect(twilio().sentMessages(phone)).toHaveLength(2);
  });

  it("store Twilio's 21610 as an opt-out when a STOP reached Twilio but not the app", async () => {
    const phone = "+12125554006";
    // The STOP went to Twilio while the app could not be reached: only Twilio knows.
    await twilio().sendSms({ from: phone, to: SMS_FROM, body: "STOP", url: "http://127.0.0.1:9/webhooks/twilio/messages" });
    await booked(phone);
    await jobsIdle(env.services);
    expect(twilio().sentMessages(phone)).toHaveLength(0);
    expect(
      twilio()
        .refusedMessages.filter((r) => r.params.To === phone)
        .map((r) => r.error.code),
    ).toEqual([21610]);
    const [row] = await textsTo(phone);
    expect(row).toMatchObject({ status: "refused", refusal: "opted_out", errorCode: 21610 });
    // Known now: the next text is not even asked for.
    await booked(phone);
    await jobsIdle(env.services);
    expect(twilio().refusedMessages.filter((r) => r.params.To === phone)).toHaveLength(1);
  });

  it("never go to a premium-rate number or a country the dialling policy does not allow", async () => {
    const premium = "+19002345678";
    const notAllowed = "+79123456789";
    await env.services.db.transaction(async (tx) => {
      for (const to of [premium, notAllowed])
        await queueText(env.services, tx, { businessId: demoId, to, body: "Hello", purpose: "booking_reminder", key: `policy-${to}` });
    });
    await jobsIdle(env.services);
    expect(twilio().sentMessages(premium)).toHaveLength(0);
    expect(twilio().sentMessages(notAllowed)).toHaveLength(0);
    expect(twilio().refusedMessages.filter((r) => r.params.To === premium || r.params.To === notAllowed)).toHaveLength(0);
    expect((await textsTo(premium))[0]).toMatchObject({ status: "refused", refusal: "premium" });
    expect((await textsTo(notAllowed))[0]).toMatchObject({ status: "refused", refusal: "country" });
  });
});

describe("the messaging webhook", () => {
  it("refuses a forged or unsigned request, and stores nothing", async () => {
    const phone = "+12125554007";
    const forged = await inbound(phone, "STOP", "0".repeat(32));
    expect(forged.status).toBe(403);
    const unsigned = await fetch(`${env.url}/webhooks/twilio/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ From: phone, To: SMS_FROM, Body: "STOP" }),
    });
    expect(unsigned.status).toBe(403);
    // A forged status callback cannot mark a text delivered or failed either.
    const status = await fetch(`${env.url}/webhooks/twilio/message-status/1`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": "forged" },
      body: new URLSearchParams({ MessageSid: "SM0", MessageStatus: "failed" }),
    });
    expect(status.status).toBe(403);
    expect(await env.services.db.select().from(textOptOuts).where(eq(textOptOuts.phone, phone))).toHaveLength(0);
  });

  it("answers HELP with a short help text in TwiML", async () => {
    const help = await inbound("+12125554008", " help");
    expect(help.status).toBe(200);
    expect(help.contentType).toMatch(/^text\/xml/);
    expect(help.body).toContain(`<Response><Message>${en.texts.help.replace("{{name}}", "Sakina")}</Message></Response>`);
    expect(
      await env.services.db
        .select()
        .from(textOptOuts)
        .where(and(eq(textOptOuts.phone, "+12125554008"))),
    ).toHaveLength(0);
  });
});

describe("a server that cannot send texts", () => {
  it("says so on the settings page and does not let the owner turn them on", async () => {
    const app = await startAppInProcess({});
    try {
      const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
      const email = "no-texts-owner@example.com";
      await app.services.db.insert(accounts).values({
        businessId: demo!.id,
        name: "Salon Owner",
        email,
        passwordHash: await hashPassword("no texts owner password"),
        mustChangePassword: false,
      });
      const owner = httpClient(app.url);
      expect((await owner.postJson("/api/auth/login", { email, password: "no texts owner password" })).status).toBe(200);
      const page = await (await owner.get("/dashboard/settings")).text();
      expect(page).toContain(en.settings.textsNotOffered);
      expect(page).not.toContain('name="textsEnabled"');
      const refused = await owner.postForm(
        "/dashboard/settings",
        { intent: "save-texts", textsEnabled: "on" },
        { tokenFrom: "/dashboard/settings" },
      );
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain(en.settings.textsUnavailable);
      const [after] = await app.services.db.select().from(businesses).where(eq(businesses.id, demo!.id));
      expect(after!.textsEnabled).toBe(false);
    } finally {
      await app.stop();
    }
  });
});
