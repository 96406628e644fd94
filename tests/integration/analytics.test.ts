import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { announceBusinessChange } from "#models/analytics";
import { registerBusiness } from "#models/businesses";
import { addService } from "#models/business-services";
import { accounts, bookings, businesses, calls } from "#models/schema";
import { analyticsFigures, periodWindow } from "~/features/analytics/analytics.server";
import { hashPassword } from "~/features/auth/passwords.server";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let teaRoom: { id: number; timeZone: string };
let teaRoomServiceId: number;
let salonId: number;
let salonOwner: ReturnType<typeof httpClient>;
let teaRoomOwner: ReturnType<typeof httpClient>;
let haircut: { id: number };

const PASSWORD = "analytics owner password";

beforeAll(async () => {
  app = await startAppInProcess({});
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  salonId = demo!.id;
  const registered = await registerBusiness(db, {
    name: "London Tea Room",
    ownerName: "Tea Owner",
    email: "tea-room@example.com",
    phone: "+442079460958",
    industry: "food",
    timeZone: "Europe/London",
  });
  const tea = "created" in registered ? registered.created : registered.existing;
  teaRoom = { id: tea.id, timeZone: tea.timeZone };
  teaRoomServiceId = (
    await addService(db, tea.id, { name: "Tasting", description: null, priceCents: 1500, currency: "GBP", durationMinutes: 20 })
  ).id;
  const passwordHash = await hashPassword(PASSWORD);
  await db.insert(accounts).values([
    { businessId: salonId, name: "Salon Owner", email: "salon-analytics@example.com", passwordHash, mustChangePassword: false },
    { businessId: tea.id, name: "Tea Owner", email: "tea-analytics@example.com", passwordHash, mustChangePassword: false },
  ]);
  salonOwner = await signIn("salon-analytics@example.com");
  teaRoomOwner = await signIn("tea-analytics@example.com");
  const services = await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json();
  haircut = services.find((s: { name: string }) => s.name === "Haircut");
});

afterAll(async () => {
  await app?.stop();
});

async function signIn(email: string) {
  const client = httpClient(app.url);
  const response = await client.postJson("/api/auth/login", { email, password: PASSWORD });
  expect(response.status).toBe(200);
  return client;
}

let seeded = 0;
/** A tea-room booking made at `created` for the appointment at `starts` (instants in UTC). */
async function teaBooking(created: string, starts: string, status: (typeof bookings.$inferInsert)["status"] = "pending") {
  seeded += 1;
  const startsAt = new Date(starts);
  await app.services.db.insert(bookings).values({
    businessId: teaRoom.id,
    serviceId: teaRoomServiceId,
    startsAt,
    endsAt: new Date(startsAt.getTime() + 20 * 60_000),
    customerName: `Guest ${seeded}`,
    customerPhone: "+447700900123",
    manageTokenHash: `analytics-test-${seeded}`,
    status,
    createdAt: new Date(created),
  });
}

async function teaCall(fields: Partial<typeof calls.$inferInsert>) {
  await app.services.db.insert(calls).values({
    purpose: "booking_confirmation",
    language: "en",
    voice: "alloy",
    businessId: teaRoom.id,
    timeLimitSeconds: 300,
    ...fields,
  });
}

describe("the figures, in the business's time zone", () => {
  it("counts a seeded spring week exactly: 00:30 on each side of the clocks going forward lands on its own local day and hour", async () => {
    // Europe/London goes from GMT to BST at 01:00 on Sunday 29 March 2026.
    await teaBooking("2026-03-28T00:30:00Z", "2026-03-28T00:30:00Z"); // Sat 00:30 GMT
    await teaBooking("2026-03-29T00:30:00Z", "2026-03-29T00:30:00Z", "confirmed"); // Sun 00:30 GMT, before the change
    await teaBooking("2026-03-29T23:30:00Z", "2026-03-29T23:30:00Z", "unreachable"); // Mon 00:30 BST (Sunday 23:30 in UTC)
    await teaBooking("2026-03-27T00:00:00Z", "2026-04-01T08:00:00Z", "confirmed"); // made at the window's first instant; Wed 09:00 BST
    await teaBooking("2026-03-26T23:59:59Z", "2026-03-30T12:00:00Z", "confirmed"); // made a second too early: not in the week
    await teaBooking("2026-03-31T10:00:00Z", "2026-04-03T09:00:00Z", "cancelled"); // counted as made, not as a busy time
    await teaBooking("2026-04-02T11:59:00Z", "2026-04-04T14:00:00Z", "reschedule_requested"); // Sat 15:00 BST
    await teaBooking("2026-04-02T12:00:00Z", "2026-04-05T14:00:00Z"); // made at "now": not yet

    const base = { startedAt: new Date("2026-03-30T09:00:00Z") };
    await teaCall({ ...base, status: "completed", outcome: "confirmed", durationSeconds: 95 });
    await teaCall({ ...base, status: "completed", outcome: "reschedule requested: Friday morning", durationSeconds: 60 });
    await teaCall({ ...base, status: "no-answer" });
    await teaCall({ ...base, status: "completed", answeredBy: "machine_end_beep", outcome: "voicemail", durationSeconds: 20 });
    await teaCall({ ...base, status: "completed", durationSeconds: 30 });
    await teaCall({ status: "in-progress", startedAt: new Date("2026-04-02T11:58:00Z") });
    await teaCall({ status: "queued" }); // never placed
    await teaCall({ status: "completed", outcome: "confirmed", startedAt: new Date("2026-03-26T12:00:00Z"), durationSeconds: 40 }); // before
    await teaCall({ purpose: "demo", status: "completed", startedAt: base.startedAt, durationSeconds: 50 }); // not a confirmation call
    await teaCall({ businessId: salonId, status: "completed", outcome: "confirmed", startedAt: base.startedAt, durationSeconds: 70 });

    const now = new Date("2026-04-02T12:00:00Z");
    const week = periodWindow(teaRoom.timeZone, 7, now);
    expect(week.from.toISOString()).toBe("2026-03-27T00:00:00.000Z");
    const figures = await analyticsFigures(app.services.db, teaRoom, 7, now);
    expect(figures.dates).toEqual(["2026-03-27", "2026-03-28", "2026-03-29", "2026-03-30", "2026-03-31", "2026-04-01", "2026-04-02"]);
    expect(figures.bookings).toEqual({
      byStatus: { pending: 1, confirmed: 2, unreachable: 1, cancelled: 1, reschedule_requested: 1 },
      // ISO weekdays: 1 Monday … 7 Sunday.
      byWeekday: { 6: 2, 7: 1, 1: 1, 3: 1 },
      byHour: { 0: 3, 9: 1, 15: 1 },
      byDay: { "2026-03-27": 1, "2026-03-28": 1, "2026-03-29": 1, "2026-03-30": 1, "2026-03-31": 1, "2026-04-02": 1 },
    });
    expect(figures.calls).toEqual({
      byResult: { confirmed: 1, reschedule: 1, not_reached: 1, voicemail: 1, no_decision: 1, in_progress: 1 },
      placed: 6,
      seconds: 205,
    });

    // Thirty days take in the booking and the call of the day before the week.
    const month = await analyticsFigures(app.services.db, teaRoom, 30, now);
    expect(month.bookings.byStatus).toEqual({ pending: 1, confirmed: 3, unreachable: 1, cancelled: 1, reschedule_requested: 1 });
    expect(month.bookings.byDay["2026-03-26"]).toBe(1);
    expect(month.calls.placed).toBe(7);
    expect(month.calls.seconds).toBe(245);
  });

  it("counts an autumn week exactly: 00:30 on each side of the clocks going back, and the hour that happens twice", async () => {
    // Europe/London goes from BST back to GMT at 02:00 on Sunday 25 October 2026.
    await teaBooking("2026-10-24T23:30:00Z", "2026-10-24T23:30:00Z"); // Sun 25 Oct 00:30 BST (Saturday in UTC)
    await teaBooking("2026-10-26T00:30:00Z", "2026-10-26T00:30:00Z"); // Mon 00:30 GMT
    await teaBooking("2026-10-21T23:00:00Z", "2026-10-25T00:30:00Z", "confirmed"); // made at local midnight starting Thu 22 Oct; 01:30 BST
    await teaBooking("2026-10-21T22:59:00Z", "2026-10-25T01:30:00Z", "confirmed"); // made a minute before the week; 01:30 GMT

    const now = new Date("2026-10-28T12:00:00Z");
    expect(periodWindow(teaRoom.timeZone, 7, now).from.toISOString()).toBe("2026-10-21T23:00:00.000Z");
    const figures = await analyticsFigures(app.services.db, teaRoom, 7, now);
    expect(figures.bookings).toEqual({
      byStatus: { pending: 2, confirmed: 1 },
      byWeekday: { 7: 2, 1: 1 },
      byHour: { 0: 2, 1: 1 },
      byDay: { "2026-10-22": 1, "2026-10-25": 1, "2026-10-26": 1 },
    });
    // Ninety days: both October weeks' bookings and the spring's are apart (the spring is older).
    const quarter = await analyticsFigures(app.services.db, teaRoom, 90, now);
    expect(Object.values(quarter.bookings.byStatus).reduce((a, b) => a + b, 0)).toBe(4);
    expect(quarter.bookings.byHour).toEqual({ 0: 2, 1: 2 });
  });
});

let visitors = 0;
/** A customer books a Haircut at the demo salon through the public API, as the booking page does. */
async function customerBooks() {
  for (let day = 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!slot) continue;
    visitors += 1;
    const guest = httpClient(app.url, { localAddress: `127.0.2.${visitors}` });
    const response = await guest.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${slot.time}`,
      customerInfo: { name: `Visitor ${visitors}`, phone: `+1212555${String(4000 + visitors)}` },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    return;
  }
  throw new Error("no free slot");
}

/** The figure of one tile (`data-tile`) on the page. */
const tile = (html: string, id: string) => html.match(new RegExp(`data-tile="${id}"><p[^>]*>[^<]*</p><p[^>]*>([^<]*)</p>`))?.[1];

describe("the analytics page", () => {
  it("is complete without JavaScript: tiles, accessible SVG charts each with its table, period links, the no-show note", async () => {
    await customerBooks();
    const response = await salonOwner.get("/dashboard/analytics?period=7");
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(html).toContain(`<h1 class="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">${en.analytics.title}</h1>`);
    expect(tile(html, "bookings")).toBe("1");
    // Five charts, each an image with a title and a description, and a table of its figures.
    expect(html.match(/<svg role="img" aria-labelledby="[^"]+"/g)).toHaveLength(5);
    expect(html.match(/<title id=/g)).toHaveLength(5);
    expect(html.match(/<desc id=/g)).toHaveLength(5);
    expect(html.match(/<table /g)).toHaveLength(5);
    for (const chart of Object.values(en.analytics.charts))
      expect(html).toContain(`<caption class="sr-only">${chart.title}: the figures</caption>`);
    expect(html).toMatch(new RegExp(`<th scope="row"[^>]*>${en.bookingStatus.pending}</th><td[^>]*data-key="pending">1</td>`));
    // The period is chosen with plain links; the owner's tab is marked.
    expect(html).toMatch(/<a aria-current="page" class="[^"]*" href="\/dashboard\/analytics\?period=7" data-discover="true">7 days<\/a>/);
    expect(html).toContain('href="/dashboard/analytics?period=90"');
    expect(html).toMatch(/<a aria-current="page"[^>]*href="\/dashboard\/analytics"[^>]*>Analytics<\/a>/);
    expect(html).toContain(en.analytics.noShows.body);
    expect(html).toContain(en.analytics.reload);
    // A period not offered is the default (30 days), never an error.
    expect((await salonOwner.get("/dashboard/analytics?period=1000000")).status).toBe(200);
  });

  it("shows each owner their own business only, and nobody without a session", async () => {
    const salon = await (await salonOwner.get("/dashboard/analytics?period=90")).text();
    const tea = await (await teaRoomOwner.get("/dashboard/analytics?period=90")).text();
    const made = async (business: { id: number; timeZone: string }) =>
      Object.values((await analyticsFigures(app.services.db, business, 90)).bookings.byStatus).reduce((a, b) => a + b, 0);
    const salonMade = await made({ id: salonId, timeZone: "America/New_York" });
    expect(salonMade).toBeGreaterThan(0);
    expect(tile(salon, "bookings")).toBe(String(salonMade));
    expect(tea).toContain("Europe/London");
    expect(tea).not.toContain("Sakina Demo Salon");
    expect(tile(tea, "bookings")).toBe(String(await made(teaRoom)));

    const anonymous = await fetch(`${app.url}/dashboard/analytics`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.text()).not.toContain(en.analytics.charts.status.title);
    expect((await fetch(`${app.url}/dashboard/analytics/events`)).status).toBe(401);
  });
});

/** An open event stream of one signed-in owner, read as it arrives. */
async function openEvents(client: ReturnType<typeof httpClient>) {
  const cookie = [...client.jar].map(([name, value]) => `${name}=${value}`).join("; ");
  const controller = new AbortController();
  const response = await fetch(`${app.url}/dashboard/analytics/events`, { headers: { Cookie: cookie }, signal: controller.signal });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = "";
  return {
    get text() {
      return text;
    },
    /** Reads until the stream has said `count` times `line`. */
    async until(line: string, count = 1) {
      while (text.split(line).length - 1 < count) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`stream ended before ${count} × ${line}:\n${text}`);
        text += decoder.decode(value, { stream: true });
      }
    },
    close() {
      controller.abort();
    },
  };
}

describe("live updates", () => {
  it("tells an open page of the salon about its new booking, and the tea room's page about nothing but its own", async () => {
    const salon = await openEvents(salonOwner);
    const tea = await openEvents(teaRoomOwner);
    await salon.until("event: ready");
    await tea.until("event: ready");
    expect(salon.text).toContain('data: {"live":true}');

    await customerBooks();
    await salon.until("event: change");

    // The tea room's own changes arrive on its stream, in order: had the salon's leaked there, it
    // would have come before them, and the second would be the third event.
    await announceBusinessChange(app.services.db, teaRoom.id);
    await tea.until("event: change");
    await announceBusinessChange(app.services.db, teaRoom.id);
    await tea.until("event: change", 2);
    expect(tea.text.split("event: change").length - 1).toBe(2);
    expect(salon.text.split("event: change").length - 1).toBe(1);
    salon.close();
    tea.close();
  });
});
