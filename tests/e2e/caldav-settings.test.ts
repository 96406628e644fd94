import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { bookDemoHaircut, walkCalDavStates } from "../support/caldav-states";
import { demoOwnerPassword } from "../support/demo-owner";
import { startRadicale, type Radicale } from "../support/radicale";

vi.setConfig({ testTimeout: 180_000 });

// The owner's CalDAV panel on /dashboard/settings (issue 47) in each state, with JavaScript and
// without, in English and Arabic (right to left): what it says, and axe at 0 violations.

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let radicale: Radicale;
let browser: Browser;
let password: string;

beforeAll(async () => {
  [app, radicale, browser] = await Promise.all([
    startAppInProcess({ SEED_DEMO_DATA: "true", CALDAV_PRIVATE_ADDRESSES: "allow" }),
    startRadicale(),
    launchBrowser(),
  ]);
  password = await demoOwnerPassword(app.url, app.dataDir);
  // A booking of the demo salon's, for the write that waits while the server is down.
  await bookDemoHaircut(app.url);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
  await radicale?.close();
});

const texts = { en, ar };

describe("the CalDAV settings panel", () => {
  for (const [lng, javaScript] of [
    ["en", true],
    ["en", false],
    ["ar", true],
  ] as const) {
    it(`connects, says why it failed and how the sync went, axe-clean (${lng}, JavaScript ${javaScript ? "on" : "off"})`, async () => {
      const t = texts[lng].caldav;
      const context = await newVisitor(browser, { javaScript, locale: lng, width: 390 });
      const login = await context.request.post(`${app.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } });
      expect(login.status()).toBe(200);
      const page = await context.newPage();
      const seen: string[] = [];
      await walkCalDavStates(page, app, radicale, lng, async (state) => {
        seen.push(state);
        const panel = page.locator("section[aria-labelledby=caldav-title]");
        const text = await panel.innerText();
        if (state === "error") expect(text).toContain(t.errorCredentials);
        if (state === "connected") expect(text).toContain(t.lastSync.split("{{")[0]!.trim());
        if (state === "failing") {
          expect(text).toContain(t.problemUnreachable);
          expect(text).toContain(t.waiting.split("{{")[0]!.trim());
        }
        if (lng === "ar") expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
        expect(describeViolations(await axeViolations(page, { javaScript })), `${state} ${page.url()}`).toBe("");
      });
      expect(seen).toEqual(["error", "connected", "failing"]);
      await context.close();
    });
  }
});
