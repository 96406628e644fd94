import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBusiness } from "#models/businesses";
import { accounts, bookings, businesses, businessServices, calls } from "#models/schema";
import { analyticsFigures } from "~/features/analytics/analytics.server";
import { hashPassword } from "~/features/auth/passwords.server";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { linkIn, readOutbox, waitForMail } from "../support/outbox";
import { waitFor } from "../support/wait";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
let stranger: ReturnType<typeof httpClient>;
let haircut: { id: number; name: string };

beforeAll(async () => {
  app = await startAppInProcess({});
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const registered = await registerBusiness(db, {
    name: "Other Studio",
    ownerName: "Other Owner",
    email: "other-studio@example.com",
    phone: "+442079460958",
    industry: "beauty",
  });
  const other = "created" in registered ? registered.created : registered.existing;
  const passwordHash = await hashPassword("owner bookings password");
  await db.insert(accounts).values([
    { businessId: demo!.id, name: "Salon Owner", email: "salon-owner@example.com", passwordHash, mustChangePassword: false },
    { businessId: other.id, name: "Other Owner", email: "other-owner@example.com", passwordHash, mustChangePassword: false },
  ]);
  owner = await signIn("salon-owner@example.com");
  stranger = await signIn("other-owner@example.com");
  const services = await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json();
  haircut = services.find((s: { name: string }) => s.name === "Haircut");
});

afterAll(async () => {
  await app?.stop();
});

async function signIn(email: string) {
  const client = httpClient(app.url);
  const response = await client.postJson("/api/auth/login", { email, password: "owner bookings password" });
  expect(response.status).toBe(200);
  return client;
}

/** A day in the window with at least `count` free Haircut times, and those times. */
async function freeDay(count: number, after = 0) {
  for (let day = after + 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const free = Array.isArray(slots) ? slots.filter((s: { available: boolean }) => s.available).map((s: { time: string }) => s.time) : [];
    if (free.length >= count) return { date, day, times: free as string[] };
  }
  throw new Error("no free day");
}

let visitors = 0;
/** A customer books on the public API, in their language; returns the booking's id. */
async function customerBooks(date: string, time: string, customer: { name: string; email?: string; notes?: string }, lng = "en") {
  visitors += 1;
  const guest = httpClient(app.url, { localAddress: `127.0.1.${visitors}` });
  const response = await guest.postJson(`/api/booking/create?lng=${lng}`, {
    businessLink: "demo-salon",
    serviceId: haircut.id,
    appointmentDate: `${date}T${time}`,
    customerInfo: { phone: `+1212555${String(2000 + visitors)}`, ...customer },
    requestCall: true,
  });
  expect(response.status).toBe(201);
  return (await response.json()).booking.id as number;
}

const bookingRow = async (id: number) => (await app.services.db.select().from(bookings).where(eq(bookings.id, id)))[0]!;
const mailsTo = async (to: string, subject: RegExp) =>
  (await readOutbox(app.dataDir)).filter((m) => m.to.includes(to) && subject.test(m.subject));

describe("an owner manages bookings by hand", () => {
  it("confirms, moves and cancels a booking; the customer is e-mailed in their language each time", async () => {
    const { date, times } = await freeDay(3);
    const customer = "layla@example.com";
    const id = await customerBooks(date, times[0]!, { name: "ليلى أحمد", email: customer, notes: "أفضل المصففة نفسها" }, "ar");
    const otherId = await customerBooks(date, times[1]!, { name: "Tom Becker" });

    // The list's compact row has the phone to call, isolated; the booking's own page the rest:
    // the customer's notes (in their own direction) and e-mail.
    const list = await (await owner.get("/dashboard")).text();
    expect(list).toMatch(/<a href="tel:\+12125552\d+" dir="ltr"/);
    expect(list).toContain(`href="/dashboard/bookings/${id}"`);
    const card = await (await owner.get(`/dashboard/bookings/${id}`)).text();
    expect(card).toContain('<span dir="auto" class="whitespace-pre-line">أفضل المصففة نفسها</span>');
    expect(card).toContain(customer);

    // Nobody can phone them (no telephony here): the booking waits for the owner.
    await waitFor(async () => (await (await owner.get("/dashboard?filter=attention")).text()).includes("ليلى أحمد") || null, {
      what: "the booking under Needs attention",
    });

    // Confirm, twice: one change, one e-mail.
    const confirmed = await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(id) });
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("location")).toBe(`/dashboard?done=confirmed&booking=${id}`);
    expect((await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(id) })).status).toBe(302);
    expect((await bookingRow(id)).status).toBe("confirmed");
    await waitForMail(app.dataDir, customer, /^تم تأكيد حجزك لدى/);
    expect(await (await owner.get(`/dashboard?done=confirmed&booking=${id}`)).text()).toContain("confirmed. We e-mailed the customer.");
    expect(await (await owner.get("/dashboard?filter=attention")).text()).not.toContain("ليلى أحمد");

    // A call still queued for the booking is taken off the queue when the owner moves it.
    const [queued] = await app.services.db
      .insert(calls)
      .values({
        purpose: "booking_confirmation",
        language: "ar",
        voice: "alloy",
        toNumber: (await bookingRow(id)).customerPhone,
        businessId: (await bookingRow(id)).businessId,
        bookingId: id,
        timeLimitSeconds: 300,
      })
      .returning();

    // Moving onto another booking's time is a field error, and nothing changes.
    const page = `/dashboard/bookings/${id}?date=${date}`;
    const before = await bookingRow(id);
    const taken = await owner.postForm(page, { intent: "reschedule-booking", bookingId: String(id), date, time: times[1]! });
    expect(taken.status).toBe(400);
    expect(await taken.text()).toContain("This time is not free. Choose one of the free times.");
    expect((await bookingRow(id)).startsAt.getTime()).toBe(before.startsAt.getTime());

    const moved = await owner.postForm(page, { intent: "reschedule-booking", bookingId: String(id), date, time: times[2]! });
    expect(moved.status).toBe(302);
    expect(moved.headers.get("location")).toBe(`/dashboard/bookings/${id}?done=moved&booking=${id}`);
    const after = await bookingRow(id);
    expect(after.id).toBe(id);
    expect(after.startsAt.getTime()).not.toBe(before.startsAt.getTime());
    // Confirmed, moved by the owner, and no call can confirm it again: it stays confirmed (ADR 0038).
    expect(after.status).toBe("confirmed");
    const movedMail = await waitForMail(app.dataDir, customer, /^لحجزك لدى .* موعد جديد$/);
    expect(movedMail.text).toContain("الموعد السابق");
    expect(movedMail.raw).toContain("filename=booking.ics");
    // No call can be placed from this server: the e-mail says the booking stays confirmed instead of promising one.
    const movedText = movedMail.text.replace(/[\u2068\u2069]/g, "").replace(/\s+/g, " ");
    expect(movedText).not.toContain(ar.owner.email.movedCall);
    expect(movedText).toContain(ar.bookingChanges.movedStaysConfirmed);
    // The e-mail carries the customer's own page of the booking, at its new time.
    const managePage = await fetch(linkIn(movedMail, "/booking/"));
    expect(managePage.status).toBe(200);
    expect((await fetch(`${app.url}/booking/not-a-real-token-at-all-0000`)).status).toBe(404);
    const [call] = await app.services.db.select().from(calls).where(eq(calls.id, queued!.id));
    expect(call!.status).toBe("canceled");
    // The same move sent again changes nothing and sends nothing.
    expect((await owner.postForm(page, { intent: "reschedule-booking", bookingId: String(id), date, time: times[2]! })).status).toBe(302);

    // Cancel: the time is free again for customers.
    const cancelled = await owner.postForm("/dashboard?filter=attention", { intent: "cancel-booking", bookingId: String(id) });
    expect(cancelled.status).toBe(302);
    expect(cancelled.headers.get("location")).toBe(`/dashboard?filter=attention&done=cancelled&booking=${id}`);
    expect((await bookingRow(id)).status).toBe("cancelled");
    await waitForMail(app.dataDir, customer, /^تم إلغاء حجزك لدى/);
    const slots = await (await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    expect(slots.find((s: { time: string }) => s.time === times[2])).toMatchObject({ available: true });
    // A cancelled booking offers no more actions and cannot be confirmed.
    const refused = await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(id) });
    expect(refused.status).toBe(409);
    expect((await bookingRow(id)).status).toBe("cancelled");

    // One e-mail per change, whatever was sent twice.
    expect(await mailsTo(customer, /^تم تأكيد حجزك/)).toHaveLength(1);
    expect(await mailsTo(customer, /موعد جديد$/)).toHaveLength(1);
    expect(await mailsTo(customer, /^تم إلغاء حجزك/)).toHaveLength(1);
    expect((await bookingRow(otherId)).status).toBe("pending");
  });

  it("refuses another business's owner, and anyone signed out", async () => {
    const { date, times } = await freeDay(1, 10);
    const id = await customerBooks(date, times[0]!, { name: "Private Person", email: "private@example.com", notes: "secret note" });
    for (const intent of ["confirm-booking", "cancel-booking"]) {
      const response = await stranger.postForm("/dashboard", { intent, bookingId: String(id) });
      expect(response.status).toBe(404);
    }
    const move = await stranger.postForm("/dashboard", { intent: "reschedule-booking", bookingId: String(id), date, time: times[0]! });
    expect(move.status).toBe(404);
    const page = await stranger.get(`/dashboard/bookings/${id}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("secret note");
    expect(await (await stranger.get("/dashboard")).text()).not.toContain("Private Person");
    expect((await bookingRow(id)).status).toBe("pending");

    const anonymous = httpClient(app.url);
    expect((await anonymous.get("/dashboard")).status).toBe(401);
    expect((await anonymous.get(`/dashboard/bookings/${id}`)).status).toBe(401);
    const post = await anonymous.postForm("/dashboard", { intent: "cancel-booking", bookingId: String(id) }, { tokenFrom: "/contact" });
    expect(post.status).toBe(403);
    expect((await bookingRow(id)).status).toBe("pending");
  });

  it("answers bad reschedule input with field errors, never a server error", async () => {
    const { date, times } = await freeDay(1, 20);
    const id = await customerBooks(date, times[0]!, { name: "Input Tester" });
    const page = `/dashboard/bookings/${id}`;
    for (const [fields, message] of [
      [{ date: "2026-02-30", time: "10:00" }, "Choose a day from the list."],
      [{ date, time: "" }, "Choose one of the free times."],
      [{ date, time: "03:17" }, "This time is not free. Choose one of the free times."],
    ] as const) {
      const response = await owner.postForm(page, { intent: "reschedule-booking", bookingId: String(id), ...fields });
      expect(response.status).toBe(400);
      expect(await response.text()).toContain(message);
    }
    expect((await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: "2147483648" })).status).toBe(404);
  });
});

/** The figure of one analytics tile (`data-tile`) on the page. */
const tile = (html: string, id: string) => html.match(new RegExp(`data-tile="${id}"><p[^>]*>[^<]*</p><p[^>]*>([^<]*)</p>`))?.[1];

describe("no-shows", () => {
  it("marks a booking whose time has come as a no-show from its page, refuses one still to come, and counts it in analytics", async () => {
    const db = app.services.db;
    const [salon] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    const hour = 3_600_000;
    const started = new Date(Math.floor(Date.now() / hour) * hour - 26 * hour);
    const past = async (customerName: string, status: "confirmed" | "cancelled", at: Date) =>
      (
        await db
          .insert(bookings)
          .values({
            businessId: salon!.id,
            serviceId: haircut.id,
            startsAt: at,
            endsAt: new Date(at.getTime() + hour / 2),
            customerName,
            customerPhone: "+12125553000",
            manageTokenHash: `no-show-${customerName}`,
            status,
            createdAt: new Date(at.getTime() - 24 * hour),
          })
          .returning()
      )[0]!.id;
    const missed = await past("Missed Appointment", "confirmed", started);
    const cancelledId = await past("Cancelled Earlier", "cancelled", new Date(started.getTime() - 2 * hour));
    const week = async () => (await analyticsFigures(db, salon!, 7)).bookings.byStatus;
    expect((await week()).no_show).toBeUndefined();
    expect(tile(await (await owner.get("/dashboard/analytics?period=7")).text(), "noShows")).toBe("0");

    // Its page offers the mark, with what it does; a plain form post, no JavaScript needed.
    const page = `/dashboard/bookings/${missed}`;
    const before = await (await owner.get(page)).text();
    expect(before).toContain('name="intent" value="no-show-booking"');
    expect(before).toContain(en.owner.booking.noShowIntro);

    const marked = await owner.postForm(page, { intent: "no-show-booking", bookingId: String(missed) });
    expect(marked.status).toBe(302);
    expect(marked.headers.get("location")).toBe(`${page}?done=no_show&booking=${missed}`);
    expect((await bookingRow(missed)).status).toBe("no_show");
    // Sent twice, marked once; nobody is e-mailed.
    expect((await owner.postForm(page, { intent: "no-show-booking", bookingId: String(missed) })).status).toBe(302);
    const after = await (await owner.get(`${page}?done=no_show&booking=${missed}`)).text();
    // An English name in an English sentence carries no invisible isolates.
    expect(after).toContain("Booking of Missed Appointment marked as a no-show.");
    expect(after).toContain(`>${en.bookingStatus.no_show}</span>`);
    expect(after).not.toContain('value="no-show-booking"');
    // A no-show is a past booking, whatever is left of its time.
    expect(await (await owner.get("/dashboard?filter=past")).text()).toContain("Missed Appointment");
    expect(await (await owner.get("/dashboard")).text()).not.toContain("Missed Appointment");

    // Counted: in the figures, the tile and the status chart's table.
    expect((await week()).no_show).toBe(1);
    const analytics = await (await owner.get("/dashboard/analytics?period=7")).text();
    expect(tile(analytics, "noShows")).toBe("1");
    expect(analytics).toMatch(new RegExp(`<th scope="row"[^>]*>${en.bookingStatus.no_show}</th><td[^>]*data-key="no_show">1</td>`));

    // An appointment still to come cannot be a no-show: the page says why, and nothing changes.
    const { date, times } = await freeDay(1, 5);
    const future = await customerBooks(date, times[0]!, { name: "Still To Come" });
    expect(await (await owner.get(`/dashboard/bookings/${future}`)).text()).not.toContain('value="no-show-booking"');
    const early = await owner.postForm(`/dashboard/bookings/${future}`, { intent: "no-show-booking", bookingId: String(future) });
    expect(early.status).toBe(409);
    expect(await early.text()).toContain(en.owner.booking.noShowTooEarly);
    expect((await bookingRow(future)).status).toBe("pending");
    // Nor can a cancelled booking, nor another business's owner.
    const cancelled = await owner.postForm(`/dashboard/bookings/${cancelledId}`, {
      intent: "no-show-booking",
      bookingId: String(cancelledId),
    });
    expect(cancelled.status).toBe(409);
    expect((await bookingRow(cancelledId)).status).toBe("cancelled");
    expect((await stranger.postForm("/dashboard", { intent: "no-show-booking", bookingId: String(missed) })).status).toBe(404);
    expect((await week()).no_show).toBe(1);
  });
});

describe("a long list", () => {
  it("shows 25 bookings a page in time order, pages by plain links, and comes back to the page after an action", async () => {
    const db = app.services.db;
    const [studio] = await db.select().from(businesses).where(eq(businesses.name, "Other Studio"));
    const [service] = await db
      .insert(businessServices)
      .values({ businessId: studio!.id, name: "Paged Service", priceCents: 1000, durationMinutes: 30 })
      .returning();
    // Thirty upcoming bookings an hour apart, inserted in reverse so the list's order is its own.
    const first = Date.now() + 2 * 86_400_000;
    const made = await db
      .insert(bookings)
      .values(
        Array.from({ length: 30 }, (_, i) => 29 - i).map((i) => ({
          businessId: studio!.id,
          serviceId: service!.id,
          startsAt: new Date(first + i * 3_600_000),
          endsAt: new Date(first + i * 3_600_000 + 1_800_000),
          customerName: `Paged Customer ${String(i + 1).padStart(2, "0")}`,
          customerPhone: "+442079460999",
          manageTokenHash: `paged-${i}-${studio!.id}`,
          // Three customers the call did not reach: the "needs attention" list.
          status: [1, 4, 27].includes(i) ? ("unreachable" as const) : ("pending" as const),
        })),
      )
      .returning();
    const customersOn = async (path: string) => {
      const html = await (await stranger.get(path)).text();
      return { html, customers: [...new Set([...html.matchAll(/Paged Customer (\d\d)/g)].map((m) => Number(m[1])))] };
    };
    const numbers = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

    const one = await customersOn("/dashboard");
    expect(one.customers).toEqual(numbers(1, 25));
    expect(one.html).toContain(`aria-label="${en.owner.bookings.pages}"`);
    expect(one.html).toContain("Page 1 of 2 (30 in all)");
    expect(one.html).toMatch(/<a [^>]*href="\/dashboard\?page=2"[^>]*>Next page<\/a>/);
    expect(one.html).not.toContain("Previous page");

    const two = await customersOn("/dashboard?page=2");
    expect(two.customers).toEqual(numbers(26, 30));
    expect(two.html).toContain("Page 2 of 2 (30 in all)");
    expect(two.html).toMatch(/<title>Bookings: Upcoming, page 2\b/);
    expect(one.html).toMatch(/<title>Bookings: Upcoming\b(?!, page)/);
    expect(two.html).toMatch(/<a [^>]*href="\/dashboard"[^>]*>Previous page<\/a>/);
    expect(two.html).not.toContain("Next page");

    // The set-up list, read with the bookings: the studio has a service now, and no opening hours.
    expect(one.html).toContain(en.dashboard.checklistTitle);
    expect(one.html).toMatch(new RegExp(`<li>${en.owner.done}: <a [^>]*href="/dashboard/services"`));
    expect(one.html).toMatch(/<li><a [^>]*href="\/dashboard\/hours"/);
    expect(await (await owner.get("/dashboard")).text()).not.toContain(en.dashboard.checklistTitle);

    // The badge counts the upcoming bookings that need attention, whichever list is shown.
    const badge = /Needs attention<span[^>]*>(\d+)<\/span>/;
    expect(badge.exec(one.html)?.[1]).toBe("3");
    const attention = await customersOn("/dashboard?filter=attention");
    expect(attention.customers).toEqual([2, 5, 28]);
    expect(attention.html).not.toContain("Next page");
    expect(badge.exec((await customersOn("/dashboard?filter=past")).html)?.[1]).toBe("3");

    // A nonsense page is the first; one past the end (an old link) the last.
    expect((await customersOn("/dashboard?page=abc")).customers).toEqual(numbers(1, 25));
    expect((await customersOn("/dashboard?page=-3")).customers).toEqual(numbers(1, 25));
    expect((await customersOn("/dashboard?page=99999999999999999999")).customers).toEqual(numbers(26, 30));

    // Confirming a booking on the second page comes back to the second page, saying so.
    const target = made.find((b) => b.customerName === "Paged Customer 27")!;
    const confirmed = await stranger.postForm(
      "/dashboard?page=2",
      { intent: "confirm-booking", bookingId: String(target.id) },
      { tokenFrom: "/dashboard?page=2" },
    );
    expect(confirmed.status).toBe(302);
    expect(confirmed.headers.get("Location")).toBe(`/dashboard?page=2&done=confirmed&booking=${target.id}`);
    const after = await customersOn(confirmed.headers.get("Location")!);
    // (The message above the list names customer 27 first.)
    expect(after.customers.toSorted((a, b) => a - b)).toEqual(numbers(26, 30));
    expect(after.html).toContain(en.owner.bookings.done.confirmed.replace("{{name}}", "Paged Customer 27"));
    // The way back to page 1 does not say it again.
    expect(after.html).toMatch(/<a [^>]*href="\/dashboard"[^>]*>Previous page<\/a>/);

    // In Arabic the title reads as Arabic does, with its own comma.
    const arabic = await customersOn("/dashboard?page=2&lng=ar");
    expect(arabic.html).toContain(`<title>${ar.bookings.title}: ${ar.owner.bookings.filter.upcoming}، الصفحة 2`);
  });
});
