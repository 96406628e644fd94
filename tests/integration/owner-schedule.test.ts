import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBooking } from "#models/bookings";
import { bookings, businesses, businessServices } from "#models/schema";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { dayOfLocalDate, localDateOfDay, utcToZoned, weekdayOf, zonedTimeToUtc } from "~/lib/zoned-time";
import { startAppInProcess } from "../support/app-in-process";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
let zone: string;
/** A Wednesday a few weeks ahead, in the business's zone. */
let wednesday: string;

/** The words of a page without its markup. */
const text = (html: string) =>
  html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

/** The HTML of one day's section of the week view. */
const daySection = (html: string, date: string) =>
  new RegExp(`<section[^>]*aria-labelledby="day-${date}"[\\s\\S]*?</section>`).exec(html)?.[0] ?? "";

async function book(name: string, date: string, minute: number, status?: "cancelled") {
  const [business] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const [service] = await app.services.db.select().from(businessServices).where(eq(businessServices.businessId, business!.id));
  const start = zonedTimeToUtc(date, minute, zone);
  const created = await createBooking(app.services.db, {
    businessId: business!.id,
    serviceId: service!.id,
    startsAt: new Date(start),
    endsAt: new Date(start + 30 * 60_000),
    customerName: name,
    customerPhone: "+12125550190",
    customerEmail: null,
    notes: null,
    language: "en",
    idempotencyKey: null,
  });
  if (created.kind !== "created") throw new Error(created.kind);
  if (status) await app.services.db.update(bookings).set({ status }).where(eq(bookings.id, created.booking.id));
}

beforeAll(async () => {
  app = await startAppInProcess({});
  const [business] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  zone = business!.timeZone;
  const today = dayOfLocalDate(utcToZoned(Date.now(), zone).date);
  const inThreeWeeks = today + 21;
  wednesday = localDateOfDay(inThreeWeeks + ((3 - weekdayOf(inThreeWeeks) + 7) % 7));
  await book("Morning Customer", wednesday, 10 * 60);
  // 23:30 in New York is 04:30 the next day in UTC: still Wednesday for the shop.
  await book("Late Customer", wednesday, 23 * 60 + 30);
  await book("Cancelled Customer", wednesday, 14 * 60, "cancelled");
  owner = httpClient(app.url);
  const password = await demoOwnerPassword(app.url, app.dataDir);
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
});
afterAll(() => app?.stop());

describe("the owner's list", () => {
  it("keeps cancelled bookings out of Upcoming, under a filter of their own", async () => {
    const upcoming = text(await (await owner.get("/dashboard?lng=en")).text());
    expect(upcoming).toContain("Morning Customer");
    expect(upcoming).not.toContain("Cancelled Customer");
    const cancelled = text(await (await owner.get("/dashboard?filter=cancelled&lng=en")).text());
    expect(cancelled).toContain("Cancelled Customer");
    expect(cancelled).not.toContain("Morning Customer");
    expect(cancelled).toContain(en.owner.bookings.filter.cancelled);
  });
});

describe("the owner's day and week views", () => {
  it("put each booking under its day in the business's zone, leave cancelled ones out, and page by week", async () => {
    const week = await owner.get(`/dashboard/schedule?view=week&date=${wednesday}&lng=en`);
    expect(week.status).toBe(200);
    const html = await week.text();
    const day = text(daySection(html, wednesday));
    expect(day).toContain("Morning Customer");
    expect(day).toContain("Late Customer");
    expect(day).not.toContain("Cancelled Customer");
    // The next day, where the late booking falls in UTC, does not show it.
    const thursday = localDateOfDay(dayOfLocalDate(wednesday) + 1);
    expect(text(daySection(html, thursday))).not.toContain("Late Customer");
    expect(text(daySection(html, thursday))).toContain(en.owner.schedule.none);
    // English weeks start on Sunday: seven days, Sunday to Saturday.
    const sunday = localDateOfDay(dayOfLocalDate(wednesday) - 3);
    expect([...html.matchAll(/aria-labelledby="day-(\d{4}-\d{2}-\d{2})"/g)].map((m) => m[1])).toEqual(
      Array.from({ length: 7 }, (_, i) => localDateOfDay(dayOfLocalDate(sunday) + i)),
    );
    // Plain links to the week after and to the day.
    const nextWeek = localDateOfDay(dayOfLocalDate(sunday) + 7);
    expect(html).toContain(`href="/dashboard/schedule?view=week&amp;date=${nextWeek}"`);
    expect(html).toContain(`href="/dashboard/schedule?view=day&amp;date=${wednesday}"`);
  });

  it("shows one day in order, and an Arabic week from Saturday", async () => {
    const day = text(await (await owner.get(`/dashboard/schedule?view=day&date=${wednesday}&lng=en`)).text());
    expect(day.indexOf("Morning Customer")).toBeGreaterThan(-1);
    expect(day.indexOf("Morning Customer")).toBeLessThan(day.indexOf("Late Customer"));
    const arabic = await (await owner.get(`/dashboard/schedule?view=week&date=${wednesday}&lng=ar`)).text();
    const first = /aria-labelledby="day-(\d{4}-\d{2}-\d{2})"/.exec(arabic)?.[1];
    expect(weekdayOf(dayOfLocalDate(first!))).toBe(6);
    expect(arabic).toContain(ar.owner.schedule.weekTitle);
  });

  it("answers a date that is no date with this week, and anyone but the owner with the sign-in page", async () => {
    expect((await owner.get("/dashboard/schedule?view=week&date=2026-02-31")).status).toBe(200);
    expect((await owner.get("/dashboard/schedule?date=%00")).status).toBeLessThan(500);
    const stranger = await httpClient(app.url).get(`/dashboard/schedule?view=week&date=${wednesday}`);
    expect(stranger.status).toBe(401);
    expect(await stranger.text()).not.toContain("Morning Customer");
  });
});
