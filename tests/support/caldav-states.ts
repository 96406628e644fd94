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

/** A Haircut booking of the demo salon's on the first free day, through the booking API (for a write that can wait). */
export async function bookDemoHaircut(url: string) {
  const services = (await (await fetch(`${url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  const haircut = services.find((s) => s.name === "Haircut")!;
  for (let day = 2; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = (await (await fetch(`${url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json()) as {
      time: string;
      available: boolean;
    }[];
    const slot = slots.find((s) => s.available);
    if (!slot) continue;
    const made = await fetch(`${url}/api/booking/create`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        businessLink: "demo-salon",
        serviceId: haircut.id,
        appointmentDate: `${date}T${slot.time}`,
        customerInfo: { name: "Nadia Panel", phone: "+12125553001", email: "panel@example.com" },
        requestCall: false,
      }),
    });
    if (made.status !== 201) throw new Error(`booking answered ${made.status}`);
    return;
  }
  throw new Error("no free Haircut time in 30 days");
}
