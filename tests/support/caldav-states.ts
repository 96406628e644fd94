import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { bookings, businesses } from "#models/schema";
import { calendarReadJob, calendarWriteJob } from "~/features/booking/calendar-sync.server";
import type { AppServices } from "~/platform/services.server";
import { jobsIdle } from "./jobs";
import type { Radicale } from "./radicale";

export type CalDavState = "error" | "connected" | "failing";

/**
 * The owner's CalDAV panel in each of its states, as the owner reaches them on /dashboard/settings
 * (signed in on `page`): a wrong password refused beside its field, connected and synced, and the
 * server down with a write waiting. `onState` looks at each (axe, a screenshot). Leaves the
 * calendar disconnected and the server running, so it can be walked again.
 */
export async function walkCalDavStates(
  page: Page,
  app: { url: string; services: AppServices },
  radicale: Radicale,
  language: string,
  onState: (state: CalDavState) => Promise<void>,
) {
  const settings = `${app.url}/dashboard/settings?lng=${language}`;
  const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const panel = page.locator("section[aria-labelledby=caldav-title]");
  const fill = async (password: string) => {
    await page.locator("#caldav-url").fill(`${radicale.origin}/`);
    await page.locator("#caldav-username").fill(radicale.user);
    await page.locator("#caldav-password").fill(password);
    await panel.locator("button[type=submit]").last().click();
  };
  await page.goto(settings, { waitUntil: "networkidle" });
  // Left connected by a walk that failed half-way: start from the beginning.
  if (await page.locator("#caldav-status").count()) {
    await panel.locator("form:has(input[value=disconnect-calendar]) button").click();
    await page.locator("#caldav-status").waitFor({ state: "detached" });
  }
  await fill("wrong-password");
  await page.locator("#caldav-password[aria-invalid=true]").waitFor();
  await onState("error");

  await page.goto(settings, { waitUntil: "networkidle" });
  await fill(radicale.password);
  await page.locator("#caldav-status").waitFor();
  await jobsIdle(app.services);
  await page.goto(settings, { waitUntil: "networkidle" });
  await onState("connected");

  await radicale.stop();
  const [booking] = await app.services.db.select().from(bookings).where(eq(bookings.businessId, demo!.id)).limit(1);
  await app.services.jobs.enqueue(calendarReadJob, { businessId: demo!.id });
  if (booking) await app.services.jobs.enqueue(calendarWriteJob, { bookingId: booking.id, businessId: demo!.id });
  await jobsIdle(app.services);
  await page.goto(settings, { waitUntil: "networkidle" });
  await onState("failing");

  await radicale.start();
  await panel.locator("form:has(input[value=disconnect-calendar]) button").click();
  await page.locator("#caldav-status").waitFor({ state: "detached" });
  await app.services.database.executeSql(`DELETE FROM pgboss.job WHERE name LIKE 'calendar-%' AND state < 'completed'`, []);
}
