import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { startAppWithFakes, type AppWithFakes } from "../support/app-with-fakes";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { PHONE_STATES, walkPhoneStates, type PhoneState } from "../support/phone-states";

vi.setConfig({ testTimeout: 180_000 });

// The owner's phone page /dashboard/phone (issue 48) in each state, with JavaScript and without,
// in English and Arabic (right to left): what it says, what the fake Twilio was told, and axe at
// 0 violations. And the page on a server without Twilio, which says so before any form.

const SALON_NUMBER = "+14155550101";
let app: AppWithFakes<{ twilio: { ownedNumbers: string[]; incomingNumbers: { phoneNumber: string; friendlyName?: string }[] } }>;
let bare: Awaited<ReturnType<typeof startAppInProcess>>;
let browser: Browser;
let password: string;

beforeAll(async () => {
  [app, browser] = await Promise.all([
    startAppWithFakes({
      twilio: {
        ownedNumbers: ["+15005550006"],
        incomingNumbers: [{ phoneNumber: SALON_NUMBER }, { phoneNumber: "+14155550102", friendlyName: "Front desk" }],
      },
    }),
    launchBrowser(),
  ]);
  // After the other: an app reads its settings from process.env while it starts, and the other's Twilio must not leak in.
  bare = await startAppInProcess({ SEED_DEMO_DATA: "true" });
  password = await demoOwnerPassword(app.url, app.app.dataDir);
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
  await bare?.stop();
});

const texts = { en, ar };

async function signedIn(url: string, pass: string, lng: "en" | "ar", javaScript: boolean) {
  const context = await newVisitor(browser, { javaScript, locale: lng, width: 390 });
  const login = await context.request.post(`${url}/api/auth/login`, { data: { email: "demo@sakina.app", password: pass } });
  expect(login.status()).toBe(200);
  return context;
}

describe("the phone number page", () => {
  for (const [lng, javaScript] of [
    ["en", true],
    ["en", false],
    ["ar", true],
  ] as const) {
    it(`connects a number, refuses bad settings beside their fields, disconnects, axe-clean (${lng}, JavaScript ${javaScript ? "on" : "off"})`, async () => {
      const t = texts[lng].phoneNumber;
      const context = await signedIn(app.url, password, lng, javaScript);
      const page = await context.newPage();
      const seen: PhoneState[] = [];
      await walkPhoneStates(page, app.url, lng, async (state) => {
        seen.push(state);
        const text = await page.locator(`#owner-content`).innerText();
        if (state === "choose") expect(text).toContain(t.chooseTitle);
        if (state === "choose-error") expect(text).toContain(t.chooseNumber);
        if (state === "connected") {
          expect(text).toContain(t.savedConnected);
          expect(app.twilio.incomingNumber(SALON_NUMBER)!.voiceUrl).toBe(`${app.url}/webhooks/twilio/voice/inbound`);
          expect(text).toContain(`**61*${SALON_NUMBER}#`);
        }
        if (state === "settings-error") {
          expect(text).toContain(texts[lng].dialling.premium);
          expect(text).toContain(texts[lng].flows.errorSummaryTitle);
          // The confirmation of the connect, still in the address, does not contradict the errors.
          expect(text).not.toContain(t.savedConnected);
        }
        if (state === "confirm-disconnect") {
          expect(text).toContain(t.confirmYes);
          expect(await page.locator("#phone-transfer").count()).toBe(0);
        }
        if (lng === "ar") expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
        expect(describeViolations(await axeViolations(page, { javaScript })), `${state} ${page.url()}`).toBe("");
      });
      expect(seen).toEqual(PHONE_STATES);
      expect(app.twilio.incomingNumber(SALON_NUMBER)!.voiceUrl).toBe("");
      expect(await page.locator("#owner-content").innerText()).toContain(t.savedDisconnected);
      await context.close();
    });
  }

  it("says that phone numbers are not configured, before any form (en, ar)", async () => {
    const barePassword = await demoOwnerPassword(bare.url, bare.dataDir);
    for (const lng of ["en", "ar"] as const) {
      const context = await signedIn(bare.url, barePassword, lng, false);
      const page = await context.newPage();
      await page.goto(`${bare.url}/dashboard/phone?lng=${lng}`, { waitUntil: "networkidle" });
      await expect(page.locator("#phone-not-configured").innerText()).resolves.toContain(texts[lng].phoneNumber.notConfigured);
      expect(await page.locator("#owner-content form").count()).toBe(0);
      expect(await page.locator("nav a[href='/dashboard/phone'][aria-current=page]").count()).toBe(1);
      expect(describeViolations(await axeViolations(page, { javaScript: false })), lng).toBe("");
      await context.close();
    }
  });
});
