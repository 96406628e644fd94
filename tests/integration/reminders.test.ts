import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, bookings, businesses } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { sendDueEmailReminders } from "~/features/booking/reminders.server";
import en from "~/locales/en";
import es from "~/locales/es";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";
import { linkIn, readOutbox, waitForMail } from "../support/outbox";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let haircut: { id: number };

beforeAll(async () => {
  app = await startAppInProcess({});
  const services = await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json();
  haircut = services.find((s: { name: string }) => s.name === "Haircut");
});

afterAll(async () => {
  await app?.stop();
});

const HOUR = 3_600_000;
let visitors = 0;
let usedDays = 1;

/**
 * A customer books a Haircut days ahead on the public API, in their language; the booking and
 * the link to their own page from the confirmation e-mail. Each booking takes a day of its own,
 * so the scans of one test never meet another's bookings in the same window.
 */
async function booked(lng = "en") {
  visitors += 1;
  const email = `reminder-${visitors}@example.com`;
  for (let day = usedDays + 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const free = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!free) continue;
    usedDays = day;
    const guest = httpClient(app.url, { localAddress: `127.0.2.${visitors}` });
    const response = await guest.postJson(`/api/booking/create?lng=${lng}`, {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${free.time}`,
      customerInfo: { name: `Customer ${visitors}`, phone: `+1212555${String(3000 + visitors)}`, email },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    const id = (await response.json()).booking.id as number;
    const [row] = await app.services.db.select().from(bookings).where(eq(bookings.id, id));
    const confirmation = await waitForMail(app.dataDir, email, /./);
    return { id, email, startsAt: row!.startsAt, manageUrl: linkIn(confirmation, "/booking/") };
  }
  throw new Error("no free day left");
}

const remindersTo = async (email: string, subject: RegExp) =>
  (await readOutbox(app.dataDir)).filter((mail) => mail.to.includes(email) && subject.test(mail.subject));
const before = (start: Date, ms: number) => new Date(start.getTime() - ms);
const reminderSubject = (lang: { bookingEmail: { reminderSubject: string } }) =>
  new RegExp(`^${lang.bookingEmail.reminderSubject.split("{{")[0]}`);

describe("the customer's reminder e-mail", () => {
  it("goes once, a day before, in the customer's language, with the same link to change or cancel and the calendar file", async () => {
    const booking = await booked("es");
    // Not before its day.
    expect(await sendDueEmailReminders(app.services, before(booking.startsAt, 25 * HOUR))).toBe(0);

    expect(await sendDueEmailReminders(app.services, before(booking.startsAt, 23 * HOUR))).toBe(1);
    const mail = await waitForMail(app.dataDir, booking.email, reminderSubject(es));
    expect(mail.subject).toContain("Haircut");
    expect(mail.text).toContain(es.bookingEmail.reminderChange);
    // The reference the customer can quote on the phone, as the confirmation gave it.
    const [row] = await app.services.db.select().from(bookings).where(eq(bookings.id, booking.id));
    expect(mail.text).toContain(`${es.bookingEmail.reference}: ${row!.reference.slice(0, 3)}-${row!.reference.slice(3)}`);
    expect(linkIn(mail, "/booking/")).toBe(booking.manageUrl);
    const ics = attachedCalendar(mail.raw);
    expect(ics).toContain("BEGIN:VEVENT");
    expect(ics).toContain(
      `DTSTART:${booking.startsAt
        .toISOString()
        .replace(/[-:]/g, "")
        .replace(/\.\d{3}/, "")}`,
    );

    // The next scans (every minute, on every process) find it sent.
    expect(await sendDueEmailReminders(app.services, before(booking.startsAt, 23 * HOUR))).toBe(0);
    expect(await sendDueEmailReminders(app.services, before(booking.startsAt, 2 * HOUR))).toBe(0);
    await jobsIdle(app.services);
    expect(await remindersTo(booking.email, reminderSubject(es))).toHaveLength(1);
  });

  it("is not sent for a cancelled booking", async () => {
    const booking = await booked();
    const customer = httpClient(app.url);
    const path = new URL(booking.manageUrl).pathname;
    expect((await customer.postForm(path, { intent: "cancel" }, { tokenFrom: path })).status).toBe(302);
    expect((await app.services.db.select().from(bookings).where(eq(bookings.id, booking.id)))[0]!.status).toBe("cancelled");
    expect(await sendDueEmailReminders(app.services, before(booking.startsAt, 23 * HOUR))).toBe(0);
    await jobsIdle(app.services);
    expect(await remindersTo(booking.email, reminderSubject(en))).toHaveLength(0);
  });

  it("missed while the server was down, goes late only while an hour is left before the appointment", async () => {
    const late = await booked();
    expect(await sendDueEmailReminders(app.services, before(late.startsAt, 50 * 60_000))).toBe(0);
    const stillUseful = await booked();
    expect(await sendDueEmailReminders(app.services, before(stillUseful.startsAt, 2 * HOUR))).toBe(1);
    await jobsIdle(app.services);
    expect(await remindersTo(late.email, reminderSubject(en))).toHaveLength(0);
    expect(await remindersTo(stillUseful.email, reminderSubject(en))).toHaveLength(1);
  });

  it("is not sent for a booking made within the day (its confirmation just went), nor when the owner turned reminders off", async () => {
    const sameDay = await booked();
    // As if booked 20 hours before its time.
    await app.services.db
      .update(bookings)
      .set({ timeSetAt: before(sameDay.startsAt, 20 * HOUR) })
      .where(eq(bookings.id, sameDay.id));
    expect(await sendDueEmailReminders(app.services, before(sameDay.startsAt, 19 * HOUR))).toBe(0);

    const owner = await signedInOwner();
    const page = await (await owner.get("/dashboard/settings")).text();
    expect(page).toContain(en.settings.reminderEmail);
    expect(page).toMatch(/name="reminderEmail"[^>]*checked/);
    // Unticked: the checkbox is not sent.
    const saved = await owner.postForm("/dashboard/settings", { intent: "save-reminders" }, { tokenFrom: "/dashboard/settings" });
    expect(saved.status).toBe(302);
    expect(saved.headers.get("location")).toContain("done=reminders-saved");
    const after = await (await owner.get(saved.headers.get("location")!)).text();
    expect(after).toContain(en.settings.remindersSaved);
    expect(after).not.toMatch(/name="reminderEmail"[^>]*checked/);

    const off = await booked();
    expect(await sendDueEmailReminders(app.services, before(off.startsAt, 23 * HOUR))).toBe(0);
    await owner.postForm("/dashboard/settings", { intent: "save-reminders", reminderEmail: "on" }, { tokenFrom: "/dashboard/settings" });
    expect(await sendDueEmailReminders(app.services, before(off.startsAt, 23 * HOUR))).toBe(1);
  });

  it("the reminder call is not offered, nor saved, where this server cannot place calls", async () => {
    const owner = httpClient(app.url);
    const email = "reminders-owner@example.com";
    expect((await owner.postJson("/api/auth/login", { email, password: "reminders owner password" })).status).toBe(200);
    const page = await (await owner.get("/dashboard/settings")).text();
    expect(page).not.toContain('name="reminderCallHours"');
    expect(page).toContain(en.settings.reminderCallNotOffered);
    const refused = await owner.postForm(
      "/dashboard/settings",
      { intent: "save-reminders", reminderEmail: "on", reminderCallHours: "4" },
      { tokenFrom: "/dashboard/settings" },
    );
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(en.settings.reminderCallUnavailable);
    const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    expect(demo!.reminderCallHours).toBeNull();
  });
});

/** The calendar file attached to an e-mail as the outbox wrote it (base64), decoded. */
function attachedCalendar(raw: string) {
  const part = raw.split(/\r?\n--/).find((section) => /filename="?booking\.ics/.test(section));
  if (!part) throw new Error("no booking.ics attached");
  return Buffer.from(
    part
      .split(/\r?\n\r?\n/)
      .slice(1)
      .join("")
      .replace(/\s/g, ""),
    "base64",
  ).toString("utf8");
}

/** The demo salon's owner, signed in. */
async function signedInOwner() {
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const email = "reminders-owner@example.com";
  await db.insert(accounts).values({
    businessId: demo!.id,
    name: "Salon Owner",
    email,
    passwordHash: await hashPassword("reminders owner password"),
    mustChangePassword: false,
  });
  const client = httpClient(app.url);
  expect((await client.postJson("/api/auth/login", { email, password: "reminders owner password" })).status).toBe(200);
  return client;
}
