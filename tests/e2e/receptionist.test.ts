import { eq } from "drizzle-orm";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { businesses } from "#models/schema";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { unisolatedNumbers } from "../support/isolation";
import { seedReceptionistDay } from "../support/receptionist";

vi.setConfig({ testTimeout: 180_000 });

// What the owner sees of the receptionist (issue 48, ADR 0041): a call to the business's number on
// the calls page and on its own page, with what it came to, and the messages and voicemails callers
// left; in English and Arabic (right to left), at phone and desktop width, with JavaScript and
// without, axe at 0 violations.

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let browser: Browser;
let password: string;
let callId: number;

beforeAll(async () => {
  [app, browser] = await Promise.all([startAppInProcess({ SEED_DEMO_DATA: "true" }), launchBrowser()]);
  password = await demoOwnerPassword(app.url, app.dataDir);
  const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  callId = await seedReceptionistDay(app.services, demo!.id);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

const texts = { en, ar };

describe("the receptionist's calls and messages for the owner", () => {
  for (const [lng, javaScript, width] of [
    ["en", true, 1280],
    ["en", false, 390],
    ["ar", true, 390],
    ["ar", false, 1280],
  ] as const) {
    it(`lists the call with its outcome and the messages, and shows the call's page, axe-clean (${lng}, JavaScript ${javaScript ? "on" : "off"}, ${width} px)`, async () => {
      const t = texts[lng];
      const context = await newVisitor(browser, { javaScript, locale: lng, width });
      const login = await context.request.post(`${app.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } });
      expect(login.status()).toBe(200);
      const page = await context.newPage();
      await page.goto(`${app.url}/dashboard/calls?lng=${lng}`, { waitUntil: "networkidle" });
      expect(await page.locator("html").getAttribute("dir")).toBe(lng === "ar" ? "rtl" : "ltr");
      const calls = await page.locator("section[aria-labelledby=calls-title]").innerText();
      expect(calls).toContain(t.owner.callPurpose.receptionist);
      expect(calls).toContain(t.receptionist.outcome.booked);
      expect(calls).toContain("+1 212 555 0187");
      const messages = page.locator("section#messages");
      await expect(messages.getByRole("heading", { level: 2 }).innerText()).resolves.toBe(t.receptionist.messagesTitle);
      const listed = await messages.innerText();
      expect(listed).toContain("Please call me back about a group booking for six people next Saturday.");
      expect(listed).toContain("Lina");
      expect(listed).toContain(t.receptionist.kind.voicemail);
      expect(listed).toContain(t.receptionist.transcribing);
      expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
      // Phone numbers read left to right inside the Arabic page.
      expect(await unisolatedNumbers(page)).toEqual([]);
      expect(await messages.locator('bdi[dir="ltr"]').allInnerTexts()).toContain("+966 55 123 4567");

      await page.goto(`${app.url}/dashboard/calls/${callId}?lng=${lng}`, { waitUntil: "networkidle" });
      const call = await page.locator("main").innerText();
      expect(call).toContain(t.receptionist.outcome.booked);
      expect(call).toContain("Booked a haircut for Friday at 10:00");
      expect(describeViolations(await axeViolations(page, { javaScript })), page.url()).toBe("");
      expect(await unisolatedNumbers(page)).toEqual([]);
      await context.close();
    });
  }
});
