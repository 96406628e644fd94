import { desc, eq } from "drizzle-orm";
import ical, { type VEvent } from "node-ical";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookings, businesses, calendarConnections } from "#models/schema";
import { calendarReadJob } from "~/features/booking/calendar-sync.server";
import { zonedTimeToUtc } from "~/lib/zoned-time";
import { startAppInProcess } from "../support/app-in-process";
import { bookThroughPage } from "../support/book-through-page";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";
import { startRadicale, type Radicale } from "../support/radicale";

// Two-way sync with the owner's own CalDAV calendar (issue 47), against a real CalDAV server
// (Debian's Radicale) started here: its busy times block slots, every booking, move and
// cancellation is written to it, and its outage loses nothing and is told on the settings page.

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let radicale: Radicale;
let owner: ReturnType<typeof httpClient>;
let business: { id: number; timeZone: string };
let haircutId: number;

const ics = (uid: string, lines: string[]) =>
  [
    "BEGIN:VCALENDAR",
    "VERSION:2.0",
    "PRODID:-//Test//Phone calendar//EN",
    "BEGIN:VEVENT",
    `UID:${uid}`,
    "DTSTAMP:20261201T000000Z",
    ...lines,
    "END:VEVENT",
    "END:VCALENDAR",
    "",
  ].join("\r\n");
const utc = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

beforeAll(async () => {
  radicale = await startRadicale();
  app = await startAppInProcess({ CALDAV_PRIVATE_ADDRESSES: "allow" });
  const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  business = { id: demo!.id, timeZone: demo!.timeZone };
  owner = httpClient(app.url);
  const login = await owner.postJson("/api/auth/login", {
    email: "demo@sakina.app",
    password: await demoOwnerPassword(app.url, app.dataDir),
  });
  expect(login.status).toBe(200);
  const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  haircutId = services.find((s) => s.name === "Haircut")!.id;
});

afterAll(async () => {
  await app?.stop();
  await radicale?.close();
});

/** The free Haircut starts (epoch ms) of a local date, as the booking page's API offers them. */
async function freeStarts(date: string) {
  const slots = (await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircutId}`)).json()) as {
    time: string;
    available: boolean;
  }[];
  return slots
    .filter((slot) => slot.available)
    .map((slot) => {
      const [h, m] = slot.time.split(":").map(Number);
      return zonedTimeToUtc(date, h! * 60 + m!, business.timeZone);
    });
}

/** A date `from` days ahead or later with at least `count` free times. */
async function dayWithFreeTimes(from: number, count: number) {
  for (let day = from; day < 29; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const free = await freeStarts(date);
    if (free.length >= count) return { date, free };
  }
  throw new Error("no day with free times");
}

/** One sync, as the schedule runs it every few minutes. */
async function syncOnce() {
  await app.services.jobs.enqueue(calendarReadJob, { businessId: business.id });
  await jobsIdle(app.services);
}

async function settingsPage() {
  return (await owner.get("/dashboard/settings")).text();
}

const textOf = (html: string) =>
  html
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");

async function eventsOnServer() {
  const events = await radicale.events();
  return events.flatMap((file) => Object.values(ical.sync.parseICS(file.ics)).filter((c): c is VEvent => c?.type === "VEVENT"));
}

describe("the owner's CalDAV calendar", () => {
  it("refuses wrong credentials, a non-calendar and an unreachable address beside the field, and keeps nothing", async () => {
    const wrong = await owner.postForm("/dashboard/settings", {
      intent: "connect-calendar",
      calendarUrl: radicale.origin + "/",
      calendarUsername: radicale.user,
      calendarPassword: "not-the-password",
    });
    expect(wrong.status).toBe(400);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toMatch(/id="caldav-password"[^>]*aria-invalid="true"|aria-invalid="true"[^>]*id="caldav-password"/);
    expect(textOf(wrongHtml)).toContain("The server refused this username and password.");
    // What the owner typed stays, but for the password.
    expect(wrongHtml).toContain(`value="${radicale.origin}/"`);
    expect(wrongHtml).not.toContain("not-the-password");

    const notCalendar = await owner.postForm("/dashboard/settings", {
      intent: "connect-calendar",
      calendarUrl: `${radicale.origin}/${radicale.user}/no-such-calendar/`,
      calendarUsername: radicale.user,
      calendarPassword: radicale.password,
    });
    expect(notCalendar.status).toBe(400);
    expect(textOf(await notCalendar.text())).toContain("No calendar was found at this address.");

    const unreachable = await owner.postForm("/dashboard/settings", {
      intent: "connect-calendar",
      calendarUrl: "http://127.0.0.1:9/",
      calendarUsername: radicale.user,
      calendarPassword: radicale.password,
    });
    expect(unreachable.status).toBe(400);
    expect(textOf(await unreachable.text())).toContain("The server at this address could not be reached.");

    const empty = await owner.postForm("/dashboard/settings", {
      intent: "connect-calendar",
      calendarUrl: "caldav",
      calendarUsername: "",
      calendarPassword: "",
    });
    expect(empty.status).toBe(400);
    const emptyText = textOf(await empty.text());
    // Every field's error in one answer.
    expect(emptyText).toContain("Enter the address, starting with https://");
    expect(emptyText).toContain("Enter your username.");
    expect(emptyText).toContain("Enter the password or app password.");

    expect(await app.services.db.select().from(calendarConnections).where(eq(calendarConnections.businessId, business.id))).toEqual([]);
  });

  it("connects with the server's root address, finds the calendar and keeps the password sealed", async () => {
    const connected = await owner.postForm("/dashboard/settings", {
      intent: "connect-calendar",
      calendarUrl: radicale.origin + "/",
      calendarUsername: radicale.user,
      calendarPassword: radicale.password,
    });
    expect(connected.status).toBe(302);
    await jobsIdle(app.services);
    const page = textOf(await settingsPage());
    expect(page).toContain(`Connected to ${radicale.calendarUrl} as ${radicale.user} .`);
    expect(page).toContain("Last successful sync:");

    // The row itself: no column holds the password (nor any part of the Basic credentials).
    const { rows } = await app.services.database.executeSql(`SELECT * FROM calendar_connections WHERE business_id = $1`, [business.id]);
    const row = JSON.stringify(rows);
    expect(rows).toHaveLength(1);
    expect(row).not.toContain(radicale.password);
    expect(row).not.toContain(Buffer.from(`${radicale.user}:${radicale.password}`).toString("base64"));
    expect((rows[0] as { password_sealed: string }).password_sealed).toMatch(/^v1:/);
    // Nor does the job queue.
    const { rows: jobs } = await app.services.database.executeSql(
      `SELECT data::text AS data FROM pgboss.job WHERE name LIKE 'calendar-%'`,
      [],
    );
    expect(JSON.stringify(jobs)).not.toContain(radicale.password);
  });

  it("a busy event put on the calendar removes the overlapping slots within one sync, a weekly one every week", async () => {
    const { date, free } = await dayWithFreeTimes(3, 4);
    const busyStart = free[1]!;
    await radicale.putEvent(
      "dentist",
      ics("dentist-1@phone", [`DTSTART:${utc(busyStart)}`, `DTEND:${utc(busyStart + 45 * 60_000)}`, "SUMMARY:Dentist"]),
    );
    // A free (transparent) event blocks nothing.
    await radicale.putEvent(
      "reminder",
      ics("reminder-1@phone", [`DTSTART:${utc(free[3]!)}`, `DTEND:${utc(free[3]! + 30 * 60_000)}`, "TRANSP:TRANSPARENT", "SUMMARY:Note"]),
    );
    // A weekly event from a week before: blocks this day too, by its RRULE.
    const weeklyStart = free[0]! - 7 * 86_400_000;
    await radicale.putEvent(
      "gym",
      ics("gym-1@phone", [`DTSTART:${utc(weeklyStart)}`, "DURATION:PT30M", "RRULE:FREQ=WEEKLY;COUNT=4", "SUMMARY:Gym"]),
    );
    expect(await freeStarts(date)).toContain(busyStart);

    await syncOnce();

    const after = await freeStarts(date);
    expect(after).not.toContain(busyStart);
    expect(after.filter((start) => start < busyStart + 45 * 60_000 && start + 30 * 60_000 > busyStart)).toEqual([]);
    expect(after).not.toContain(free[0]);
    expect(after).toContain(free[3]);
    // The next week's occurrence too.
    const nextWeek = new Date(Date.parse(`${date}T12:00:00Z`) + 7 * 86_400_000).toISOString().slice(0, 10);
    expect(await freeStarts(nextWeek)).not.toContain(free[0]! + 7 * 86_400_000);
  });

  it("asks the calendar again at booking time: a time made busy since the last sync is not booked", async () => {
    const { date, free } = await dayWithFreeTimes(5, 2);
    const start = free[0]!;
    await radicale.putEvent(
      "late-addition",
      ics("late-1@phone", [`DTSTART:${utc(start)}`, `DTEND:${utc(start + 3_600_000)}`, "SUMMARY:Just added"]),
    );
    const customer = httpClient(app.url);
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: business.timeZone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(start);
    const url = `/book/demo-salon?service=${haircutId}&date=${date}&time=${local}&lng=en`;
    const contact = await customer.postForm(
      url,
      {
        intent: "contact",
        service: String(haircutId),
        date,
        time: local,
        name: "Late Comer",
        phone: "+14155550142",
        email: "late@example.com",
      },
      { tokenFrom: url },
    );
    expect(contact.status).toBe(302);
    const confirmUrl = contact.headers.get("location")!;
    const confirmHtml = await (await customer.get(confirmUrl)).text();
    const idempotencyKey = /name="idempotencyKey" value="([^"]+)"/.exec(confirmHtml)?.[1] ?? "";
    const confirmed = await customer.postForm(
      confirmUrl,
      { intent: "confirm", service: String(haircutId), date, time: local, idempotencyKey },
      { tokenFrom: confirmUrl },
    );
    const made = await app.services.db.select().from(bookings).where(eq(bookings.customerEmail, "late@example.com"));
    expect(made).toEqual([]);
    // The visitor is told the time was just taken and shown the times still free.
    const answer =
      confirmed.status === 302 ? await (await customer.get(confirmed.headers.get("location")!)).text() : await confirmed.text();
    expect(textOf(answer)).toContain("That time was just taken.");
    // And the page now shows it busy, without waiting for the next sync.
    expect(await freeStarts(date)).not.toContain(start);
  });

  it("writes a booking to the calendar, then its move and its cancellation", async () => {
    await bookThroughPage(httpClient(app.url), "demo-salon", {
      serviceName: "Haircut",
      phone: "+14155550143",
      email: "sync@example.com",
      name: "Sara Sync",
    });
    const [booking] = await app.services.db
      .select()
      .from(bookings)
      .where(eq(bookings.customerEmail, "sync@example.com"))
      .orderBy(desc(bookings.id));
    await jobsIdle(app.services);
    const uid = `booking-${booking!.id}@sakina.app`;
    const written = (await eventsOnServer()).find((event) => event.uid === uid);
    expect(written, "the booking's event on the CalDAV server").toBeDefined();
    expect(written!.start.getTime()).toBe(booking!.startsAt.getTime());
    expect(String(written!.summary)).toContain("Sara");
    // Sakina's own event does not block its booking's own slots as a busy time.
    await syncOnce();

    const { date, free } = await dayWithFreeTimes(8, 3);
    const to = free[2]!;
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: business.timeZone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(to);
    const moved = await owner.postForm(`/dashboard/bookings/${booking!.id}`, {
      intent: "reschedule-booking",
      bookingId: String(booking!.id),
      date,
      time: local,
    });
    expect(moved.status).toBe(302);
    await jobsIdle(app.services);
    const afterMove = (await eventsOnServer()).filter((event) => event.uid === uid);
    expect(afterMove).toHaveLength(1);
    expect(afterMove[0]!.start.getTime()).toBe(to);

    const cancelled = await owner.postForm("/dashboard", { intent: "cancel-booking", bookingId: String(booking!.id) });
    expect(cancelled.status).toBe(302);
    await jobsIdle(app.services);
    expect((await eventsOnServer()).filter((event) => event.uid === uid)).toEqual([]);
  });

  it("loses nothing while the calendar server is down, and the settings page says so", async () => {
    await bookThroughPage(httpClient(app.url), "demo-salon", {
      serviceName: "Haircut",
      phone: "+14155550144",
      email: "outage@example.com",
      name: "Omar Outage",
    });
    const [booking] = await app.services.db.select().from(bookings).where(eq(bookings.customerEmail, "outage@example.com"));
    await jobsIdle(app.services);
    const uid = `booking-${booking!.id}@sakina.app`;
    expect((await eventsOnServer()).some((event) => event.uid === uid)).toBe(true);

    await radicale.stop();
    // The owner moves the booking while the server is down: the write fails and waits for a retry.
    const { date, free } = await dayWithFreeTimes(10, 2);
    const to = free[1]!;
    const local = new Intl.DateTimeFormat("en-GB", {
      timeZone: business.timeZone,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
    }).format(to);
    const moved = await owner.postForm(`/dashboard/bookings/${booking!.id}`, {
      intent: "reschedule-booking",
      bookingId: String(booking!.id),
      date,
      time: local,
    });
    expect(moved.status).toBe(302);
    await jobsIdle(app.services);
    const down = textOf(await settingsPage());
    expect(down).toContain("The last attempt failed");
    expect(down).toContain("the calendar server could not be reached.");
    expect(down).toContain("Nothing is lost");
    expect(down).toContain("Changes waiting to be written to your calendar: 1.");

    // Back up: the retry writes the move (made due now rather than after its backoff).
    await radicale.start();
    await app.services.database.executeSql(
      `UPDATE pgboss.job SET start_after = now() WHERE name = 'calendar-write' AND state = 'retry'`,
      [],
    );
    await jobsIdle(app.services);
    const events = (await eventsOnServer()).filter((event) => event.uid === uid);
    expect(events).toHaveLength(1);
    expect(events[0]!.start.getTime()).toBe(to);
    const up = textOf(await settingsPage());
    expect(up).not.toContain("The last attempt failed");
    expect(up).not.toContain("Changes waiting");
  });
});
