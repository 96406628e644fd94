import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { unisolatedNumbers } from "../support/isolation";
import { startServer, type RunningServer } from "../support/server";

vi.setConfig({ testTimeout: 180_000 });

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer({ SEED_DEMO_DATA: "true" }), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

// The route list of public-site.test.ts, plus the pages of this part of the product.
const publicPaths = [
  "/",
  "/privacy",
  "/terms",
  "/cookies",
  "/how-it-works",
  "/languages",
  "/faq",
  "/safety",
  "/contact",
  "/accessibility",
  "/providers",
  "/business",
  "/language",
  "/this-page-does-not-exist",
  "/get-started",
  "/login",
  "/forgot-password",
  "/subscribe",
  "/sign-in",
  "/call",
  "/dashboard?userId=abc",
];

async function expectIsolated(page: Page, where: string) {
  expect(await page.getAttribute("html", "dir"), where).toBe("rtl");
  expect(await unisolatedNumbers(page), where).toEqual([]);
}

describe("the check itself", () => {
  it("finds a phone number, a crisis line, a price, a field's hint or a range outside an isolate, and nothing inside one", async () => {
    const page = await browser.newPage();
    await page.setContent(`<html dir="rtl" lang="ar"><body>
      <p>اتصل بـ 116 123</p><p>اتصل بـ 988 الآن</p><p>ادفع $5</p><p>الهاتف +966 55 123 4567</p>
      <div dir="ltr"><aside dir="rtl"><p>اتصل بـ 000</p></aside></div>
      <label for="phone">الهاتف</label><p id="phone-hint">مثل +1 212 555 0100.</p><input id="phone" aria-describedby="phone-hint">
      <p>خلال 30–60 ثانية</p><p>خلال <bdi dir="ltr">30–60</bdi> ثانية</p>
      <p>اتصل بـ <bdi dir="ltr">116 123</bdi></p><p><span dir="ltr">+966 55 123 4567</span></p><p>مدة 10 دقائق، عام 2026</p>
    </body></html>`);
    expect(await unisolatedNumbers(page)).toEqual([
      "اتصل بـ 116 123",
      "اتصل بـ 988 الآن",
      "ادفع $5",
      "الهاتف +966 55 123 4567",
      "اتصل بـ 000",
      "مثل +1 212 555 0100.",
      "خلال 30–60 ثانية",
    ]);
    await page.close();
  });
});

describe("every public page in Arabic", () => {
  it.each(publicPaths)("%s shows every number, price and crisis line isolated", async (path) => {
    const context = await newVisitor(browser, { javaScript: true, locale: "ar" });
    const page = await context.newPage();
    await page.goto(`${server.url}${path}`);
    await expectIsolated(page, path);
    await context.close();
  });

  it("the booking page and each of its steps, including a failed submit and the done page", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale: "ar" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=ar`);
    await expectIsolated(page, "service");
    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.getByRole("heading", { name: ar.book.chooseDate }).waitFor();
    await expectIsolated(page, "date");
    await page.locator("table button").nth(4).click();
    await page.locator("fieldset input[type=radio]").first().waitFor();
    await expectIsolated(page, "time");
    await page.locator("input[type=radio]:not([disabled])").first().check();
    await page.getByRole("button", { name: ar.book.next }).click();
    await page.getByRole("heading", { name: ar.book.yourDetails }).waitFor();
    await page.getByLabel(ar.book.phone).fill("12");
    await page.getByRole("button", { name: ar.book.review }).click();
    await page.locator("[data-error-summary]").waitFor();
    await expectIsolated(page, "contact with errors");
    await page.getByLabel(ar.book.name).fill("Layla Hassan");
    await page.getByLabel(ar.book.phone).fill("(212) 555-0166");
    await page.getByRole("button", { name: ar.book.review }).click();
    await page.getByRole("heading", { name: ar.book.confirmTitle }).waitFor();
    await expectIsolated(page, "confirm");
    await page.getByRole("button", { name: ar.book.confirm }).click();
    await page.getByRole("heading", { name: ar.book.sentTitle }).waitFor();
    await expectIsolated(page, "done");
    await context.close();
  });
});

describe("the empathy call's form in Arabic, on a server without telephony", () => {
  it("every field hint, and the notice that no call can be placed, said before the form", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale: "ar" });
    const page = await context.newPage();
    await page.goto(`${server.url}/?lng=ar`);
    await page.getByRole("status").filter({ hasText: ar.common.callsNotConfigured }).waitFor();
    await page.getByLabel(new RegExp(`^${ar.empathy.phone}`)).fill("+1 212 555 0174");
    expect(await page.getByRole("button", { name: ar.empathy.continue }).isDisabled()).toBe(true);
    await expectIsolated(page, "details step, calls not configured");
    await context.close();
  });
});

describe("the owner's app in Arabic", () => {
  it("every section, its forms' hints and a booking's own page", async () => {
    const password = await demoOwnerPassword(server.url, server.dataDir);
    // A booking of the demo business, for its own page.
    const services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
    const haircut = services.find((service: { name: string }) => service.name === "Haircut");
    let created = false;
    for (let day = 2; day < 30 && !created; day++) {
      const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const slots = await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
      const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
      if (!slot) continue;
      const guest = httpClient(server.url, { forwardedFor: "198.51.100.77" });
      const response = await guest.postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId: haircut.id,
        appointmentDate: `${date}T${slot.time}`,
        customerInfo: { name: "Omar Ali", phone: "+12125550177", email: "omar@example.com" },
        requestCall: false,
      });
      expect(response.status).toBe(201);
      created = true;
    }

    const context = await newVisitor(browser, { javaScript: true, locale: "ar" });
    const login = await context.request.post(`${server.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } });
    expect(login.status()).toBe(200);
    const page = await context.newPage();
    for (const path of [
      "/dashboard",
      "/dashboard/services",
      "/dashboard/hours",
      "/dashboard/calls",
      "/dashboard/plan",
      "/dashboard/analytics",
      "/dashboard/support",
      "/dashboard/settings",
      "/voice-settings",
    ]) {
      await page.goto(`${server.url}${path}?lng=ar`);
      await page.getByRole("heading", { level: 1 }).waitFor();
      await expectIsolated(page, path);
    }
    await page.goto(`${server.url}/dashboard?lng=ar`);
    const bookingPage = await page.locator('a[href^="/dashboard/bookings/"]').first().getAttribute("href");
    expect(bookingPage).toBeTruthy();
    await page.goto(`${server.url}${bookingPage}`);
    await page.getByRole("heading", { level: 1 }).waitFor();
    await expectIsolated(page, bookingPage!);
    await context.close();
  });
});

describe("the empathy call's status page in Arabic", () => {
  // Paying needs the payment and phone providers: a server of its own, with their fakes.
  let stripe: FakeStripe;
  let twilio: FakeTwilio;
  let realtime: FakeRealtime;
  let paid: RunningServer;
  beforeAll(async () => {
    [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime()]);
    paid = await startServer({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: "whsec_test_rtl_isolation",
      STRIPE_API_URL: stripe.url,
      STRIPE_JS_URL: stripe.jsUrl,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
      OPENAI_API_KEY: realtime.apiKey,
      OPENAI_BASE_URL: realtime.url,
      SEED_DEMO_DATA: "false",
    });
    stripe.setWebhook(`${paid.url}/webhooks/stripe`, "whsec_test_rtl_isolation");
  });
  afterAll(async () => {
    for (const [sid, call] of twilio?.calls ?? []) {
      if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
    }
    await paid?.stop();
    await Promise.all([twilio?.close(), realtime?.close(), stripe?.close()]);
  });

  it("after paying: the call's progress, the summary and the price", async () => {
    const context = await newVisitor(browser, { javaScript: false, locale: "ar" });
    const page = await context.newPage();
    await page.goto(`${paid.url}/?lng=ar`);
    await page.getByLabel(new RegExp(`^${ar.empathy.phone}`)).fill("+1 212 555 0175");
    await page.getByLabel(ar.empathy.adult).check();
    await page.getByLabel(ar.empathy.transcriptAccept).check();
    await page.getByRole("button", { name: ar.empathy.continue }).click();
    await page.getByRole("heading", { name: ar.empathy.summaryTitle }).waitFor();
    await expectIsolated(page, "payment step, payments configured");
    await page.getByRole("button", { name: ar.empathy.payCheckout }).click();
    await page.getByRole("button", { name: "Pay" }).click();
    await page.waitForURL(/\/empathy\/\d+\./, { timeout: 20_000 });
    await page.getByRole("heading", { level: 1, name: ar.empathy.statusTitle }).waitFor();
    await expectIsolated(page, "status page");
    await context.close();
  });
});
