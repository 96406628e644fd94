import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { businesses } from "#models/schema";
import en from "~/locales/en";
import { utcToZoned } from "~/lib/zoned-time";
import { startAppInProcess } from "../support/app-in-process";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let business: typeof businesses.$inferSelect;
let haircut: number;

beforeAll(async () => {
  app = await startAppInProcess({});
  [business] = (await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"))) as [typeof business];
  const list = (await (await httpClient(app.url).get("/api/booking/services/demo-salon")).json()) as { id: number; name: string }[];
  haircut = list.find((service) => service.name === "Haircut")!.id;
});
afterAll(() => app?.stop());

/** The business's local date `days` from now. */
const localDate = (days: number) => utcToZoned(Date.now() + days * 86_400_000, business.timeZone).date;

/** The first date from `from` days ahead with free times for a haircut, per the availability API. */
async function firstOpenDay(from: number) {
  for (let day = from; day < from + 7; day++) {
    const date = localDate(day);
    const response = await httpClient(app.url).get(`/api/booking/availability/demo-salon/${date}/${haircut}`);
    expect(response.status, date).toBe(200);
    const slots = (await response.json()) as { available: boolean }[];
    if (slots.some((slot) => slot.available)) return date;
  }
  throw new Error(`no open day from ${from} days ahead`);
}

describe("the booking window", () => {
  it("is 60 days unless the owner sets another, and the calendar pages through its months without JavaScript", async () => {
    // Day 45 was outside the old fixed 30 days; day 70 is outside the default 60.
    await firstOpenDay(45);
    const beyond = await httpClient(app.url).get(`/api/booking/availability/demo-salon/${localDate(70)}/${haircut}`);
    expect(beyond.status).toBe(400);
    expect(((await beyond.json()) as { error: string }).error).toBe(en.book.apiOutsideWindow.replace("{{days}}", "60"));

    // The owner asks for 90 days: day 70 opens.
    const owner = httpClient(app.url);
    const password = await demoOwnerPassword(app.url, app.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const settingsPage = await (await owner.get("/dashboard/settings?lng=en")).text();
    expect(settingsPage).toContain(en.settings.bookingWindow);
    const saved = await owner.postForm("/dashboard/settings?lng=en", {
      intent: "save-settings",
      phone: business.phone,
      timeZone: business.timeZone,
      minimumNoticeMinutes: String(business.minimumNoticeMinutes),
      bookingWindowDays: "90",
      defaultLanguage: business.defaultLanguage,
      confirmationLanguage: business.confirmationLanguage,
    });
    expect(saved.status).toBeLessThan(400);
    expect((await app.services.db.select().from(businesses).where(eq(businesses.id, business.id)))[0]!.bookingWindowDays).toBe(90);
    await firstOpenDay(70);

    // The calendar shows two months at a time, and a link to the later ones, as plain links.
    const day70 = await firstOpenDay(70);
    const visitor = httpClient(app.url);
    const dateStep = await (await visitor.get(`/book/demo-salon?service=${haircut}&lng=en`)).text();
    expect(dateStep).not.toContain(`value="${day70}"`);
    const nav = /<nav[^>]*data-month-nav[\s\S]*?<\/nav>/.exec(dateStep)?.[0] ?? "";
    const later = [...nav.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&")).find((href) => href.includes("month="));
    expect(later, nav).toBeDefined();
    const paged = await (await visitor.get(later!)).text();
    expect(paged).toContain(`value="${day70}"`);
    // From there, a link back to the earlier month.
    expect(/<nav[^>]*data-month-nav[\s\S]*?<\/nav>/.exec(paged)?.[0]).toMatch(/Earlier: /);

    // A window the list does not offer is refused at the field.
    const refused = await owner.postForm("/dashboard/settings?lng=en", {
      intent: "save-settings",
      phone: business.phone,
      timeZone: business.timeZone,
      minimumNoticeMinutes: "60",
      bookingWindowDays: "10000",
      defaultLanguage: "en",
      confirmationLanguage: "en",
    });
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain(en.settings.bookingWindowInvalid);
  });
});
