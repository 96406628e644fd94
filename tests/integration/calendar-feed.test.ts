import http from "node:http";
import { eq } from "drizzle-orm";
import ical, { type CalendarResponse, type VEvent } from "node-ical";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking } from "#models/bookings";
import { addService } from "#models/business-services";
import { registerBusiness } from "#models/businesses";
import { accounts, bookings, businesses, calendarFeeds } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { jobsIdle } from "../support/jobs";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
let otherOwner: ReturnType<typeof httpClient>;
let haircut: { id: number; name: string };
let otherBookingId: number;

beforeAll(async () => {
  app = await startAppInProcess({});
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const registered = await registerBusiness(db, {
    name: "Other Studio",
    ownerName: "Other Owner",
    email: "feed-other-studio@example.com",
    phone: "+442079460958",
    industry: "beauty",
  });
  const other = "created" in registered ? registered.created : registered.existing;
  const passwordHash = await hashPassword("calendar feed password");
  await db.insert(accounts).values([
    { businessId: demo!.id, name: "Salon Owner", email: "feed-salon-owner@example.com", passwordHash, mustChangePassword: false },
    { businessId: other.id, name: "Other Owner", email: "feed-other-owner@example.com", passwordHash, mustChangePassword: false },
  ]);
  owner = await signIn("feed-salon-owner@example.com");
  otherOwner = await signIn("feed-other-owner@example.com");
  const services = await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json();
  haircut = services.find((s: { name: string }) => s.name === "Haircut");
  // The other business has a booking of its own, by a customer named Zed.
  const massage = await addService(db, other.id, {
    name: "Massage",
    description: null,
    priceCents: 5000,
    currency: "GBP",
    durationMinutes: 60,
  });
  const start = new Date(Date.now() + 3 * 86_400_000);
  const made = await createBooking(db, {
    businessId: other.id,
    serviceId: massage.id,
    startsAt: start,
    endsAt: new Date(start.getTime() + 3_600_000),
    customerName: "Zed Other",
    customerPhone: "+447700900123",
    customerEmail: null,
    notes: null,
    language: "en",
    idempotencyKey: null,
  });
  if (made.kind !== "created") throw new Error("the other business's booking was not made");
  otherBookingId = made.booking.id;
});

afterAll(async () => {
  await app?.stop();
});

async function signIn(email: string) {
  const client = httpClient(app.url);
  const response = await client.postJson("/api/auth/login", { email, password: "calendar feed password" });
  expect(response.status).toBe(200);
  return client;
}

/** A day in the booking window with at least `count` free Haircut times, and those times. */
async function freeDay(count: number) {
  for (let day = 2; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const free = Array.isArray(slots) ? slots.filter((s: { available: boolean }) => s.available).map((s: { time: string }) => s.time) : [];
    if (free.length >= count) return { date, times: free as string[] };
  }
  throw new Error("no free day");
}

let visitors = 0;
async function customerBooks(date: string, time: string, name: string, phone: string, email: string) {
  visitors += 1;
  const guest = httpClient(app.url, { localAddress: `127.0.2.${visitors}` });
  const response = await guest.postJson("/api/booking/create", {
    businessLink: "demo-salon",
    serviceId: haircut.id,
    appointmentDate: `${date}T${time}`,
    customerInfo: { name, phone, email, notes: `Call me on ${phone}` },
    requestCall: true,
  });
  expect(response.status).toBe(201);
  return (await response.json()).booking.id as number;
}

/** The feed links the settings page shows its owner. */
async function feedLinks(client: ReturnType<typeof httpClient>) {
  const html = await (await client.get("/dashboard/settings")).text();
  const https = /id="calendar-feed-url"[^>]*value="([^"]+)"|value="([^"]+)"[^>]*id="calendar-feed-url"/.exec(html);
  const webcal = /href="(webcal:[^"]+)"/.exec(html);
  if (!https || !webcal) throw new Error("no calendar feed links on the settings page");
  return { html, https: (https[1] ?? https[2])!, webcal: webcal[1]! };
}

const pathOf = (link: string) => new URL(link).pathname;

async function readFeed(link: string) {
  const response = await fetch(`${app.url}${pathOf(link)}`);
  return { response, body: await response.text() };
}

const eventsOf = (parsed: CalendarResponse) => Object.values(parsed).filter((c): c is VEvent => c?.type === "VEVENT");
const text = (value: unknown) => (typeof value === "string" ? value : (value as { val?: string } | undefined)?.val);
const eventOf = (parsed: CalendarResponse, bookingId: number) => eventsOf(parsed).find((e) => e.uid === `booking-${bookingId}@sakina.app`);

describe("the owner's calendar feed", () => {
  it("lists upcoming bookings with first name and service, marks a cancelled one, never a phone or e-mail; a move raises SEQUENCE", async () => {
    const { date, times } = await freeDay(4);
    const layla = { name: "ليلى أحمد", phone: "+12125553101", email: "layla-feed@example.com" };
    const tom = { name: "Tom Becker", phone: "+12125553102", email: "tom-feed@example.com" };
    const laylaId = await customerBooks(date, times[0]!, layla.name, layla.phone, layla.email);
    const tomId = await customerBooks(date, times[1]!, tom.name, tom.phone, tom.email);

    const links = await feedLinks(owner);
    // Built from the configured public origin.
    expect(links.https).toMatch(new RegExp(`^${app.services.publicOrigin()}/calendar/[A-Za-z0-9_-]{43}\\.ics$`));
    expect(links.webcal).toBe(links.https.replace(/^http:/, "webcal:"));
    // The settings page keeps showing the same link, whatever Host the request names.
    expect((await feedLinks(owner)).https).toBe(links.https);
    const elsewhere = await fetch(`${app.url}/dashboard/settings`, {
      headers: { Host: "evil.example", Cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    });
    const shown = await elsewhere.text();
    expect(shown).toContain(links.https);
    expect(shown).not.toContain("evil.example/calendar");

    // The owner cancels Tom's booking.
    expect((await owner.postForm("/dashboard", { intent: "cancel-booking", bookingId: String(tomId) })).status).toBe(302);
    // The bookings' confirmation calls are queued with them and write their outcome on the
    // booking (its last change, the events' DTSTAMP): the feed is read once that is done.
    await jobsIdle(app.services);

    const { response, body } = await readFeed(links.https);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/calendar; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("private, no-cache");
    expect(response.headers.get("set-cookie")).toBeNull();
    // CRLF line endings only, every line at most 75 octets.
    expect(body.replace(/\r\n/g, "")).not.toMatch(/[\r\n]/);
    for (const line of body.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    // No phone number or e-mail address, in any form.
    for (const who of [layla, tom]) {
      expect(body).not.toContain(who.phone);
      expect(body).not.toContain(who.phone.slice(2));
      expect(body).not.toContain(who.email);
    }
    expect(body).not.toContain("Call me on");
    expect(body).not.toMatch(/\+\d{6,}|@example\.com|ATTENDEE|ORGANIZER/);

    const parsed = ical.sync.parseICS(body);
    const laylaEvent = eventOf(parsed, laylaId)!;
    expect(laylaEvent).toBeDefined();
    expect(text(laylaEvent.summary)).toBe("ليلى · Haircut");
    expect(text(laylaEvent.summary)).not.toContain("أحمد");
    expect(laylaEvent.status).toBe("TENTATIVE");
    const laylaRow = (await app.services.db.select().from(bookings).where(eq(bookings.id, laylaId)))[0]!;
    expect(new Date(laylaEvent.start).getTime()).toBe(laylaRow.startsAt.getTime());
    expect(new Date(laylaEvent.end!).getTime()).toBe(laylaRow.endsAt.getTime());
    expect(laylaEvent.dtstamp).toBeDefined();
    expect(text(laylaEvent.description)).toContain(`${app.services.publicOrigin()}/dashboard/bookings/${laylaId}`);
    // The reference the customer quotes on the phone, grouped as it is read out.
    expect(text(laylaEvent.description)).toContain(`${laylaRow.reference.slice(0, 3)}-${laylaRow.reference.slice(3)}`);
    const tomEvent = eventOf(parsed, tomId)!;
    expect(tomEvent.status).toBe("CANCELLED");
    expect(text(tomEvent.summary)).toBe("Tom · Haircut");
    expect(Number(tomEvent.sequence)).toBeGreaterThan(0);

    // The same feed again: the calendar app may keep its copy.
    const etag = response.headers.get("etag")!;
    expect((await fetch(`${app.url}${pathOf(links.https)}`, { headers: { "If-None-Match": etag } })).status).toBe(304);

    // The owner moves Layla's booking: the event keeps its UID, gets the new time and a higher SEQUENCE.
    const before = Number(laylaEvent.sequence);
    const moved = await owner.postForm(`/dashboard/bookings/${laylaId}`, {
      intent: "reschedule-booking",
      bookingId: String(laylaId),
      date,
      time: times[3]!,
    });
    expect(moved.status).toBe(302);
    const after = (await app.services.db.select().from(bookings).where(eq(bookings.id, laylaId)))[0]!;
    const reread = await readFeed(links.https);
    expect(reread.response.headers.get("etag")).not.toBe(etag);
    const movedEvent = eventOf(ical.sync.parseICS(reread.body), laylaId)!;
    expect(Number(movedEvent.sequence)).toBeGreaterThan(before);
    expect(new Date(movedEvent.start).getTime()).toBe(after.startsAt.getTime());
    expect(new Date(movedEvent.start).getTime()).not.toBe(laylaRow.startsAt.getTime());

    // Confirming it is a change the calendar shows too.
    expect((await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(laylaId) })).status).toBe(302);
    const confirmed = eventOf(ical.sync.parseICS((await readFeed(links.https)).body), laylaId)!;
    expect(confirmed.status).toBe("CONFIRMED");
    expect(Number(confirmed.sequence)).toBeGreaterThan(Number(movedEvent.sequence));

    // Never another business's bookings.
    expect(eventOf(parsed, otherBookingId)).toBeUndefined();
    expect(body).not.toContain("Zed");
  });

  it("rotating the link ends the old one at once (404) and the new one works", async () => {
    const old = await feedLinks(owner);
    expect((await readFeed(old.https)).response.status).toBe(200);

    // Only the owner, with the page's CSRF token, can rotate.
    expect(
      (await httpClient(app.url).postForm("/dashboard/settings", { intent: "rotate-calendar-feed" }, { tokenFrom: "/contact" })).status,
    ).toBe(403);
    const noToken = await fetch(`${app.url}/dashboard/settings`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ") },
      body: "intent=rotate-calendar-feed",
      redirect: "manual",
    });
    expect(noToken.status).toBe(403);
    expect((await readFeed(old.https)).response.status).toBe(200);

    const rotated = await owner.postForm("/dashboard/settings", { intent: "rotate-calendar-feed" });
    expect(rotated.status).toBe(302);
    expect(rotated.headers.get("location")).toBe("/dashboard/settings?done=calendar-feed-rotated");
    const gone = await readFeed(old.https);
    expect(gone.response.status).toBe(404);
    expect(gone.body).not.toContain("BEGIN:VCALENDAR");

    const page = await (await owner.get("/dashboard/settings?done=calendar-feed-rotated")).text();
    expect(page).toContain("New calendar link made. The old one no longer works");
    const fresh = await feedLinks(owner);
    expect(fresh.https).not.toBe(old.https);
    const now = await readFeed(fresh.https);
    expect(now.response.status).toBe(200);
    expect(eventsOf(ical.sync.parseICS(now.body)).length).toBeGreaterThan(0);
  });

  it("another business's link shows only its own bookings", async () => {
    const mine = await feedLinks(owner);
    const theirs = await feedLinks(otherOwner);
    expect(theirs.https).not.toBe(mine.https);
    const { response, body } = await readFeed(theirs.https);
    expect(response.status).toBe(200);
    const events = eventsOf(ical.sync.parseICS(body));
    expect(events.map((e) => e.uid)).toEqual([`booking-${otherBookingId}@sakina.app`]);
    expect(text(events[0]!.summary)).toBe("Zed · Massage");
    expect(body).not.toContain("447700900123");
    expect(body).not.toMatch(/Haircut|ليلى|Tom/);
  });

  it("a wrong, malformed or extension-less token answers 404, and the database holds no readable token", async () => {
    const { https } = await feedLinks(owner);
    const token = /\/calendar\/([^/]+)\.ics$/.exec(https)![1]!;
    const wrong = `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`;
    for (const path of [
      `/calendar/${wrong}.ics`,
      `/calendar/${token}`,
      `/calendar/${token}.ics.ics`,
      "/calendar/x.ics",
      `/calendar/${"A".repeat(5000)}.ics`,
    ]) {
      expect((await fetch(`${app.url}${path}`)).status, path).toBe(404);
    }
    const rows = await app.services.db.select().from(calendarFeeds);
    expect(JSON.stringify(rows)).not.toContain(token);
  });
});

describe("a hostile If-None-Match", () => {
  /** The feed asked for with this If-None-Match: the status, and the CPU time this process (the app's) spent. */
  async function ask(path: string, ifNoneMatch: string) {
    const before = process.cpuUsage();
    // node:http, not fetch: fetch's own header checks would be counted too.
    const status = await new Promise<number>((resolve, reject) => {
      const request = http.get(`${app.url}${path}`, { headers: { "If-None-Match": ifNoneMatch } }, (response) => {
        response.resume();
        response.on("end", () => resolve(response.statusCode ?? 0));
      });
      request.on("error", reject);
    });
    const used = process.cpuUsage(before);
    return { status, cpuMs: (used.user + used.system) / 1000 };
  }

  it("is read in linear time: 15 KB of spaces costs within 50 ms of a short header, and a list naming the tag still gives 304", async () => {
    const path = pathOf((await feedLinks(owner)).https);
    const etag = (await fetch(`${app.url}${path}`)).headers.get("etag")!;
    for (const [what, header, status] of [
      ["15 KB of spaces", `a${" ".repeat(15_000)}b`, 200],
      ["15 KB of spaced commas", `a${" , ".repeat(5000)}b`, 200],
      ["the tag among others", `"other", W/${etag} , "more"`, 304],
      ["*", "*", 304],
    ] as const) {
      // The least CPU time of up to eight tries, against what the feed costs anyway (the database,
      // the calendar text) with a short header: the app's other work lands in some tries, but a
      // header that costs more than 50 ms costs it every time.
      let usual = Infinity;
      let hostile = Infinity;
      for (let tries = 0; tries === 0 || (tries < 8 && hostile - usual >= 50); tries += 1) {
        usual = Math.min(usual, (await ask(path, `"other"`)).cpuMs);
        const answer = await ask(path, header);
        expect(answer.status, what).toBe(status);
        hostile = Math.min(hostile, answer.cpuMs);
      }
      console.log(`If-None-Match ${what}: ${hostile.toFixed(1)} ms of CPU (a short one: ${usual.toFixed(1)} ms)`);
      expect(hostile - usual, what).toBeLessThan(50);
    }
  });
});

describe.runIf(process.env.DATABASE_URL)("the feed across processes", () => {
  it("a link rotated in one process answers 404 in another at once", async () => {
    const second = await startAppInProcess(app.sharedEnv);
    try {
      const { https } = await feedLinks(owner);
      const path = pathOf(https);
      expect((await fetch(`${second.url}${path}`)).status).toBe(200);
      expect((await owner.postForm("/dashboard/settings", { intent: "rotate-calendar-feed" })).status).toBe(302);
      expect((await fetch(`${second.url}${path}`)).status).toBe(404);
      expect((await fetch(`${second.url}${pathOf((await feedLinks(owner)).https)}`)).status).toBe(200);
    } finally {
      await second.stop();
    }
  });
});
