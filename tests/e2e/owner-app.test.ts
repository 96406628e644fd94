import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import de from "~/locales/de";
import en from "~/locales/en";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { waitForMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";

vi.setConfig({ testTimeout: 180_000 });

let server: RunningServer;
let browser: Browser;
let password: string;
/** One booking waiting for confirmation per run below, each with its customer's e-mail. */
const customers: string[] = [];

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SEED_DEMO_DATA: "true", TRUST_PROXY: "loopback" }), launchBrowser()]);
  password = await demoOwnerPassword(server.url, server.dataDir);
  const services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
  const haircut = services.find((s: { name: string }) => s.name === "Haircut");
  for (let day = 1; day < 30 && customers.length < 4; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!slot) continue;
    const n = customers.length + 1;
    const guest = httpClient(server.url, { forwardedFor: `198.51.100.${n}` });
    const response = await guest.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${slot.time}`,
      customerInfo: { name: `Customer ${n}`, phone: `+1212555${3000 + n}`, email: `customer${n}@example.com`, notes: `Note ${n}` },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    customers.push(`customer${n}@example.com`);
  }
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const texts = { en, ar };

/** Presses Tab until the focused element matches, as a keyboard user would; fails after `limit` presses. */
async function tabTo(page: Page, matches: (element: { tag: string; name: string; inNav: boolean }) => boolean, limit = 60) {
  const passed: string[] = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      return {
        tag: element?.tagName.toLowerCase() ?? "",
        name: (element?.innerText ?? "").trim(),
        inNav: Boolean(element?.closest("nav")),
      };
    });
    if (matches(focused)) return;
    passed.push(`${focused.tag} "${focused.name}"`);
  }
  throw new Error(`the control was not reached by Tab on ${page.url()}; passed: ${passed.join(", ")}`);
}

describe.each([
  ["en", false],
  ["en", true],
  ["ar", false],
  ["ar", true],
] as const)("the owner's app in %s, JavaScript %s", (lng, javaScript) => {
  it("goes through every section by keyboard, each page accessible, and confirms a booking by hand", async () => {
    const t = texts[lng];
    const context = await newVisitor(browser, { javaScript });
    expect((await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(
      200,
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard?lng=${lng}`);
    expect(await page.locator("html").getAttribute("dir")).toBe(lng === "ar" ? "rtl" : "ltr");

    const sections = [
      { nav: t.owner.nav.services, heading: t.services.title, path: "/dashboard/services" },
      { nav: t.owner.nav.hours, heading: t.hours.title, path: "/dashboard/hours" },
      { nav: t.owner.nav.calls, heading: t.owner.calls.title, path: "/dashboard/calls" },
      { nav: t.dashboard.plan, heading: t.plan.title, path: "/dashboard/plan" },
      { nav: t.analytics.nav, heading: t.analytics.title, path: "/dashboard/analytics" },
      { nav: t.owner.nav.settings, heading: t.settings.title, path: "/dashboard/settings" },
      { nav: t.owner.nav.bookings, heading: t.bookings.title, path: "/dashboard" },
    ];
    for (const section of sections) {
      await tabTo(page, (f) => f.tag === "a" && f.inNav && f.name === section.nav);
      await page.keyboard.press("Enter");
      await page.waitForURL((url) => url.pathname === section.path);
      await page.getByRole("heading", { level: 1, name: section.heading }).waitFor();
      expect(await page.title()).toMatch(new RegExp(`^${section.heading}`));
      // The owner's tabs (a page may have a navigation of its own, such as the analytics periods).
      await expect(page.getByRole("navigation", { name: t.owner.shell.nav }).locator('a[aria-current="page"]').innerText()).resolves.toBe(
        section.nav,
      );
      // No site header or footer: the owner's app has its own frame.
      expect(await page.locator("footer").count()).toBe(0);
      const violations = await axeViolations(page, { javaScript });
      expect(describeViolations(violations), page.url()).toBe("");
    }

    // The day and week views, reached from the bookings list: accessible, in the owner's frame.
    for (const view of ["day", "week"] as const) {
      await page.goto(`${server.url}/dashboard/schedule?view=${view}`);
      await page
        .getByRole("heading", { level: 1, name: view === "day" ? t.owner.schedule.dayTitle : t.owner.schedule.weekTitle })
        .waitFor();
      expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
    }

    // The voice settings (the spec's screen 14, also /voice): in the owner's frame, accessible.
    await page.goto(`${server.url}/voice-settings`);
    await page.getByRole("heading", { level: 1, name: t.voiceSettings.title }).waitFor();
    expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
    // Signed in, /providers shows the setup guide: its long lines wrap, so nothing scrolls sideways
    // out of reach of the keyboard (axe: scrollable-region-focusable), on a phone too.
    const viewport = page.viewportSize();
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${server.url}/providers`);
    await page.getByRole("heading", { level: 2, name: t.providers.guide }).waitFor();
    expect(await page.locator("pre").evaluate((pre) => pre.scrollWidth <= pre.clientWidth)).toBe(true);
    expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
    if (viewport) await page.setViewportSize(viewport);
    await page.goto(`${server.url}/dashboard`);
    await page.getByRole("heading", { level: 1, name: t.bookings.title }).waitFor();

    // On the bookings page: the first booking still waiting is confirmed from the keyboard.
    const waiting = page.getByRole("button", { name: new RegExp(`^${t.owner.bookings.confirm}`) });
    const before = await waiting.count();
    expect(before).toBeGreaterThan(0);
    const customer = customers[customers.length - before]!;
    await tabTo(page, (f) => f.tag === "button" && f.name.startsWith(t.owner.bookings.confirm));
    await page.keyboard.press("Enter");
    // Post, redirect, get: the page after the redirect (fully loaded) says what was done.
    await page.waitForURL(/[?&]done=confirmed/);
    await page.getByRole("status").filter({ hasText: t.owner.bookings.done.emailed }).waitFor();
    expect(await waiting.count()).toBe(before - 1);
    await waitForMail(server.dataDir, customer, /is confirmed$/);
    const violations = await axeViolations(page, { javaScript });
    expect(describeViolations(violations), page.url()).toBe("");
    await context.close();
  });
});

describe.each([false, true])("the opening hours, JavaScript %s", (javaScript) => {
  it("offers each time in the page language's clock, every quarter hour, and saves the one chosen", async () => {
    const context = await newVisitor(browser, { javaScript });
    expect((await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(
      200,
    );
    const page = await context.newPage();
    const chosen = (select: ReturnType<Page["getByLabel"]>) =>
      select.evaluate((element: HTMLSelectElement) => ({ value: element.value, label: element.selectedOptions[0]?.textContent }));
    await page.goto(`${server.url}/dashboard/hours?lng=en`);
    const monday = page.getByRole("group", { name: "Monday" });
    const opens = monday.getByRole("combobox", { name: en.hours.opens, exact: true });
    expect(await chosen(opens)).toEqual({ value: "09:00", label: "9:00 AM" });
    expect(await opens.locator("option").count()).toBe(96);
    const closesAgain = monday.getByRole("combobox", { name: en.hours.closesAgain, exact: true });
    const before = await chosen(closesAgain);
    await closesAgain.selectOption({ label: "5:45 PM" });
    await page.getByRole("button", { name: en.hours.save }).click();
    await page.getByRole("status").filter({ hasText: en.hours.saved }).waitFor();
    // In German the same time reads on the 24-hour clock.
    await page.goto(`${server.url}/dashboard/hours?lng=de`);
    const montag = page.getByRole("group", { name: "Montag" });
    expect(await chosen(montag.getByRole("combobox", { name: de.hours.closesAgain, exact: true }))).toEqual({
      value: "17:45",
      label: "17:45",
    });
    // Back to the demo's hours for the other tests.
    await montag.getByRole("combobox", { name: de.hours.closesAgain, exact: true }).selectOption(before.value);
    await page.getByRole("button", { name: de.hours.save }).click();
    await page.getByRole("status").filter({ hasText: de.hours.saved }).waitFor();
    await page.goto(`${server.url}/dashboard/hours?lng=en`);
    expect(
      await chosen(page.getByRole("group", { name: "Monday" }).getByRole("combobox", { name: en.hours.closesAgain, exact: true })),
    ).toEqual(before);
    await context.close();
  });
});

describe.each([false, true])("the skip link in the owner's app, JavaScript %s", (javaScript) => {
  it("lands after the owner's tabs: the next Tab reaches the page's first control, not a tab", async () => {
    const context = await newVisitor(browser, { javaScript });
    expect((await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(
      200,
    );
    const page = await context.newPage();
    for (const path of ["/dashboard", "/dashboard/services", "/dashboard/hours", "/dashboard/calls", "/dashboard/settings"]) {
      await page.goto(`${server.url}${path}?lng=en`);
      await page.keyboard.press("Tab");
      expect(await page.evaluate(() => document.activeElement?.textContent), path).toBe(en.nav.skipToContent);
      await page.keyboard.press("Enter");
      await page.keyboard.press("Tab");
      const focused = await page.evaluate((label) => {
        const content = document.getElementById("owner-content");
        const first = content?.querySelector<HTMLElement>("a[href], button:not([disabled]), input:not([type=hidden]), select, textarea");
        const element = document.activeElement;
        return {
          inOwnerTabs: Boolean(element?.closest(`nav[aria-label="${label}"]`)),
          inContent: Boolean(content?.contains(element)),
          isFirst: Boolean(first) && element === first,
        };
      }, en.owner.shell.nav);
      expect(focused, path).toEqual({ inOwnerTabs: false, inContent: true, isFirst: true });
    }
    // A page of the owner's app without its frame (an error, or nobody signed in) still has the link's target.
    const skipTarget = () => page.evaluate(() => Boolean(document.querySelector(document.querySelector("a")!.hash)));
    await page.goto(`${server.url}/dashboard/bookings/999999?lng=en`);
    await page.getByRole("heading", { level: 1, name: en.errors.notFoundTitle }).waitFor();
    expect(await skipTarget()).toBe(true);
    await context.clearCookies();
    await page.goto(`${server.url}/dashboard/services?lng=en`);
    await page.getByRole("heading", { level: 1, name: en.dashboard.invalidTitle }).waitFor();
    expect(await skipTarget()).toBe(true);
    await context.close();
  });
});

/** A booking's control: its visible label, then (for screen readers) ": customer, when". */
const bookingControl = (tag: string, label: string, customer: string) => {
  const name = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*: ${customer},`);
  return (f: { tag: string; name: string }) => f.tag === tag && name.test(f.name);
};

describe.each([
  ["en", false, 0],
  ["en", true, 1],
  ["ar", false, 2],
  ["ar", true, 3],
] as const)("changing a booking by hand in %s, JavaScript %s", (lng, javaScript, variant) => {
  it("the owner moves one booking and cancels another by keyboard, and each customer gets the e-mail", async () => {
    // Two bookings of this run's own customers, on the first days with free times.
    const services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
    const haircut = services.find((s: { name: string }) => s.name === "Haircut");
    const t = texts[lng];
    const who = { move: `Move ${variant}`, cancel: `Cancel ${variant}` };
    const emails = { move: `move-${variant}@example.com`, cancel: `cancel-${variant}@example.com` };
    let n = 0;
    for (let day = 2; day < 30 && n < 2; day++) {
      const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const slots = await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
      const slot = Array.isArray(slots) ? slots.findLast((s: { available: boolean }) => s.available) : null;
      if (!slot) continue;
      const kind = n === 0 ? "move" : "cancel";
      const guest = httpClient(server.url, { forwardedFor: `198.51.100.${20 + variant * 2 + n}` });
      const response = await guest.postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId: haircut.id,
        appointmentDate: `${date}T${slot.time}`,
        customerInfo: { name: who[kind], phone: `+1212555${4100 + variant * 10 + n}`, email: emails[kind] },
        requestCall: false,
      });
      expect(response.status).toBe(201);
      n++;
    }
    expect(n).toBe(2);

    const context = await newVisitor(browser, { javaScript });
    expect((await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(
      200,
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard?lng=${lng}`);
    await page.getByRole("heading", { level: 1, name: t.bookings.title }).waitFor();

    // Move: the booking's own page, the first day offered, its first free time.
    await tabTo(page, bookingControl("a", t.owner.bookings.reschedule, who.move), 200);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: t.owner.reschedule.title }).waitFor();
    await tabTo(page, (f) => f.tag === "button" && f.name === t.owner.reschedule.showTimes, 100);
    await page.keyboard.press("Enter");
    await page.locator('input[name="time"]').first().waitFor();
    await tabTo(page, (f) => f.tag === "input", 100);
    await page.keyboard.press("Space");
    await tabTo(page, (f) => f.tag === "button" && f.name === t.owner.reschedule.move, 100);
    await page.keyboard.press("Enter");
    // The booking's page says it moved (the e-mail may come first: a navigation still under way
    // would be cut short by the next goto).
    await page.waitForURL((url) => url.searchParams.get("done") === "moved");
    const moved = await waitForMail(server.dataDir, emails.move, /has a new time$/);
    expect(moved.text).toContain(who.move);

    // Cancel: the disclosure on the bookings list, then its confirming button.
    await page.goto(`${server.url}/dashboard?lng=${lng}`);
    await page.getByRole("heading", { level: 1, name: t.bookings.title }).waitFor();
    await tabTo(page, bookingControl("summary", t.owner.bookings.cancel, who.cancel), 200);
    await page.keyboard.press("Enter");
    await tabTo(page, bookingControl("button", t.owner.bookings.cancelConfirm, who.cancel), 20);
    await page.keyboard.press("Enter");
    await waitForMail(server.dataDir, emails.cancel, /is cancelled$/);
    await page.getByRole("heading", { level: 1, name: t.bookings.title }).waitFor();
    expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
    await context.close();
  });
});

describe.each(["en", "ar"] as const)("the bookings list in %s, without JavaScript", (lng) => {
  it("gives each booking one compact row: six fit well under 1,000 px at 1280, every action reachable, mirrored in Arabic", async () => {
    // Six more bookings of this run's own customers, so the list has at least six rows.
    const services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
    const haircut = services.find((s: { name: string }) => s.name === "Haircut");
    const base = lng === "en" ? 60 : 70;
    let n = 0;
    for (let day = 1; day < 30 && n < 6; day++) {
      const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const slots = await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
      const slot = Array.isArray(slots) ? slots.filter((s: { available: boolean }) => s.available)[1] : null;
      if (!slot) continue;
      const guest = httpClient(server.url, { forwardedFor: `198.51.100.${base + n}` });
      const response = await guest.postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId: haircut.id,
        appointmentDate: `${date}T${slot.time}`,
        customerInfo: { name: `Row ${lng} ${n}`, phone: `+1212555${5000 + base + n}`, email: `row-${lng}-${n}@example.com` },
        requestCall: false,
      });
      expect(response.status).toBe(201);
      n++;
    }
    expect(n).toBe(6);

    const t = texts[lng];
    const context = await newVisitor(browser, { javaScript: false, width: 1280 });
    expect((await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(
      200,
    );
    const page = await context.newPage();
    await page.goto(`${server.url}/dashboard?lng=${lng}`);
    await page.getByRole("heading", { level: 1, name: t.bookings.title }).waitFor();
    const rows = page.locator("[data-booking-row]");
    expect(await rows.count()).toBeGreaterThanOrEqual(6);
    const first = (await rows.nth(0).boundingBox())!;
    const sixth = (await rows.nth(5).boundingBox())!;
    // Cards took 2,255 px for six bookings (issue 47).
    expect(sixth.y + sixth.height - first.y).toBeLessThan(600);
    // Each row: the time (a link to the booking's page), who and what, the status, and its actions.
    const row = rows.filter({ hasText: `Row ${lng} 0` });
    await row.getByRole("link", { name: /./ }).first().waitFor();
    expect(await row.locator("[data-booking-reference]").count()).toBe(1);
    expect(await row.getByRole("button", { name: new RegExp(`^${t.owner.bookings.confirm}`) }).count()).toBe(1);
    expect(await row.getByRole("link", { name: new RegExp(`^${t.owner.bookings.reschedule}`) }).count()).toBe(1);
    await row.locator("summary").click();
    await row.getByRole("button", { name: new RegExp(`^${t.owner.bookings.cancelConfirm}`) }).waitFor();
    // Mirrored in Arabic: the time stands at the start of the row, on the right.
    const time = (await row.getByRole("heading").boundingBox())!;
    const actions = (await row.getByRole("link", { name: new RegExp(`^${t.owner.bookings.reschedule}`) }).boundingBox())!;
    if (lng === "ar") expect(time.x).toBeGreaterThan(actions.x);
    else expect(time.x).toBeLessThan(actions.x);
    expect(describeViolations(await axeViolations(page, { javaScript: false })), page.url()).toBe("");
    // On a phone the same rows, stacked, with nothing scrolling sideways.
    await page.setViewportSize({ width: 390, height: 844 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    expect(describeViolations(await axeViolations(page, { javaScript: false })), page.url()).toBe("");
    await context.close();
  });
});
