import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { startServer, type RunningServer } from "../support/server";

vi.setConfig({ testTimeout: 180_000 });

let server: RunningServer;
let browser: Browser;
let password: string;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SEED_DEMO_DATA: "true", TRUST_PROXY: "loopback" }), launchBrowser()]);
  password = await demoOwnerPassword(server.url, server.dataDir);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

let customers = 0;
/** A customer books the first free Haircut through the public booking API. */
async function customerBooks() {
  const services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
  const haircut = services.find((s: { name: string }) => s.name === "Haircut");
  for (let day = 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!slot) continue;
    customers += 1;
    const guest = httpClient(server.url, { forwardedFor: `198.51.100.${customers}` });
    const response = await guest.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${slot.time}`,
      customerInfo: { name: `Analytics Customer ${customers}`, phone: `+1212555${5000 + customers}` },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    return;
  }
  throw new Error("no free slot");
}

async function ownerPage(javaScript: boolean, path: string) {
  const context = await newVisitor(browser, { javaScript });
  const login = await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } });
  expect(login.status()).toBe(200);
  const page = await context.newPage();
  await page.goto(`${server.url}${path}`);
  return { context, page };
}

describe("the analytics page", () => {
  it("shows a new booking on an open page without a reload, says so politely, and axe finds nothing", async () => {
    const { context, page } = await ownerPage(true, "/dashboard/analytics?period=7&lng=en");
    await page.getByRole("heading", { level: 1, name: en.analytics.title }).waitFor();
    await hydrated(page);
    await page.getByText(en.analytics.live).waitFor();
    const bookingsTile = page.locator('[data-tile="bookings"] p').nth(1);
    const before = Number(await bookingsTile.innerText());
    // Anything a reload would lose: it must still be there when the figure changes.
    await page.evaluate(() => ((window as unknown as { stillHere: boolean }).stillHere = true));

    await customerBooks();
    await page
      .locator('[data-tile="bookings"] p')
      .nth(1)
      .filter({ hasText: new RegExp(`^${before + 1}$`) })
      .waitFor();
    expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
    // The status table beside the chart has the new booking too.
    expect(await page.locator('td[data-key="pending"]').first().innerText()).toBe(String(before + 1));
    // One short sentence in a polite live region, not the whole page read again.
    const announced = page.locator("#analytics-update");
    expect(await announced.getAttribute("aria-live")).toBe("polite");
    await announced.filter({ hasText: /\S/ }).waitFor();
    expect(await announced.innerText()).toMatch(new RegExp(`bookings ${before + 1},`));
    expect(await page.locator('[aria-live="assertive"]').count()).toBe(0);

    expect(describeViolations(await axeViolations(page, { javaScript: true })), page.url()).toBe("");
    await context.close();
  });

  it.each([
    ["en", "/dashboard/analytics?lng=en"],
    ["ar", "/dashboard/analytics?period=90&lng=ar"],
  ] as const)("works without JavaScript in %s: the period links and the charts, and axe finds nothing", async (lng, path) => {
    const t = { en, ar }[lng];
    const { context, page } = await ownerPage(false, path);
    await page.getByRole("heading", { level: 1, name: t.analytics.title }).waitFor();
    expect(await page.locator("html").getAttribute("dir")).toBe(lng === "ar" ? "rtl" : "ltr");
    expect(await page.getByRole("img").count()).toBeGreaterThanOrEqual(5);
    expect(await page.getByRole("table").count()).toBe(5);
    expect(describeViolations(await axeViolations(page, { javaScript: false })), page.url()).toBe("");
    // Another period is a plain link: the page comes back with it chosen.
    await page.getByRole("link", { name: t.analytics.period.replace("{{days}}", "7") }).click();
    await page.waitForURL(/period=7/);
    expect(await page.locator('nav a[aria-current="page"]').allInnerTexts()).toContain(t.analytics.period.replace("{{days}}", "7"));
    await context.close();
  });
});
