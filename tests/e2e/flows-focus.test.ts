import { readFileSync } from "node:fs";
import path from "node:path";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { launchBrowser, newVisitor, hydrated } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";

// Whole journeys in a real browser on a busy two-core machine.
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

/** Where the keyboard is: the focused element's tag and text. */
async function focused(page: Page) {
  return page.evaluate(() => {
    const element = document.activeElement;
    return {
      tag: element?.tagName.toLowerCase() ?? "",
      text: (element?.textContent ?? "").trim(),
      summary: element?.hasAttribute("data-error-summary"),
    };
  });
}

/** Waits until the focus is on the heading with this text (the step changed and took the focus). */
async function expectFocusOnHeading(page: Page, text: string) {
  await page.waitForFunction(
    (expected) => /^H[1-3]$/.test(document.activeElement?.tagName ?? "") && document.activeElement?.textContent?.trim() === expected,
    text,
  );
  const now = await focused(page);
  expect(now.text).toBe(text);
}

/** Keyboard only: the control gets the focus as Tab would bring it there, then a key acts on it. */
async function press(control: Locator, key = "Enter") {
  await control.focus();
  await control.press(key);
}

async function typeInto(control: Locator, text: string) {
  await control.focus();
  await control.pressSequentially(text);
}

const languages = [
  { locale: "en" as const, text: en, day: 6 },
  { locale: "ar" as const, text: ar, day: 7 },
];

describe.each(languages)("with JavaScript and the keyboard only, in $locale", ({ locale, text, day }) => {
  it("each booking step's heading takes the focus, and the confirmation is announced from a live region that was already there", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=${locale}`);
    await hydrated(page);
    await press(page.getByRole("button", { name: /Haircut/ }));
    await expectFocusOnHeading(page, text.book.chooseDate);

    await press(page.locator("table button").nth(day));
    const timeHeading = page.getByRole("heading", { level: 2 });
    await page.locator("fieldset input[type=radio]").first().waitFor();
    await expectFocusOnHeading(page, (await timeHeading.innerText()).trim());
    expect(await timeHeading.innerText()).not.toBe(text.book.chooseDate);

    await press(page.locator("input[type=radio]:not([disabled])").first(), "Space");
    await press(page.getByRole("button", { name: text.book.next }));
    await expectFocusOnHeading(page, text.book.yourDetails);

    // An empty submit: the summary takes the focus and the title says it failed.
    await press(page.getByRole("button", { name: text.book.review }));
    await page.waitForFunction(() => document.activeElement?.hasAttribute("data-error-summary"));
    expect(await page.title()).toMatch(new RegExp(`^${text.flows.errorTitle.replace("{{title}}", "")}`));
    await typeInto(page.getByLabel(text.book.name), "Layla Hassan");
    await typeInto(page.getByLabel(text.book.phone), "(212) 555-0171");
    await press(page.getByRole("button", { name: text.book.review }));
    await expectFocusOnHeading(page, text.book.confirmTitle);
    expect(await page.title()).not.toMatch(/^(Error|خطأ)/);

    // The live region is on the page, empty, before the booking is made.
    const region = await page.locator('[role="status"]#booking-status').elementHandle();
    expect(await region!.evaluate((element) => element.textContent)).toBe("");
    await press(page.getByRole("button", { name: text.book.confirm }));
    await expectFocusOnHeading(page, text.book.sentTitle);
    expect(await region!.evaluate((element) => element.isConnected)).toBe(true);
    expect(await region!.evaluate((element) => element.textContent)).toContain(text.book.sentTitle);
    expect(await region!.evaluate((element) => element.textContent)).toContain("Layla Hassan");
    await page.getByRole("link", { name: text.manageLink.icsFile }).waitFor();
    await page.getByRole("link", { name: text.flows.manageBooking }).waitFor();
    await context.close();
  });

  it("without telephony, the $5 call's form says so at its top before anything is typed, and its button is disabled with the reason", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale });
    const page = await context.newPage();
    await page.goto(`${server.url}/?lng=${locale}`);
    await hydrated(page);
    // No telephony in this test server: the notice is there on arrival, not after a submit.
    await page.getByRole("status").filter({ hasText: text.common.callsNotConfigured }).waitFor();
    const next = page.locator("#empathy-details button[type=submit]");
    expect(await next.isDisabled()).toBe(true);
    const reason = await next.getAttribute("aria-describedby");
    expect(await page.locator(`#${reason}`).innerText()).toBe(text.common.callsNotConfigured);
    // What the visitor types stays: nothing is submitted, nothing is cleared.
    await typeInto(page.getByLabel(new RegExp(`^${text.empathy.phone}`)), "+1 212 555 0177");
    expect(await page.getByLabel(new RegExp(`^${text.empathy.phone}`)).inputValue()).toBe("+1 212 555 0177");
    await context.close();
  });

  it("registration's next step takes the focus; an e-mail already registered is an error on the field, the form kept", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale });
    const page = await context.newPage();
    await page.goto(`${server.url}/get-started?lng=${locale}`);
    await hydrated(page);
    await typeInto(page.getByLabel(text.register.name), "Salon Lumière");
    await typeInto(page.getByLabel(text.register.ownerName), "Amira Haddad");
    await typeInto(page.getByLabel(text.register.email), "demo@sakina.app");
    await typeInto(page.getByLabel(text.register.phone), "+1 212 555 0142");
    await press(page.getByRole("button", { name: text.register.submit }));
    await page.waitForFunction(() => document.activeElement?.hasAttribute("data-error-summary"));
    expect(page.url()).toContain("/get-started");
    await page.getByText(text.flows.emailExists).first().waitFor();
    expect(await page.getByLabel(text.register.email).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel(text.register.name).inputValue()).toBe("Salon Lumière");
    await page.getByRole("link", { name: text.auth.forgot }).waitFor();
    // The summary's link leads to the field.
    await press(page.locator("[data-error-summary] a"));
    await page.waitForFunction(() => (document.activeElement as HTMLInputElement | null)?.name === "email");

    await page.getByLabel(text.register.email).fill(`owner-${locale}@example.com`);
    await press(page.getByRole("button", { name: text.register.submit }));
    await expectFocusOnHeading(page, text.register.checkInboxTitle);
    await context.close();
  });
});

describe("after login", () => {
  it("the demo owner must choose a password first, and that page's heading has the focus", async () => {
    const password = readFileSync(path.join(server.dataDir, "demo-owner-password"), "utf8").trim();
    expect(server.output()).toContain(`demo@sakina.app / ${password}`);
    const context = await newVisitor(browser, { javaScript: true });
    const page = await context.newPage();
    await page.goto(`${server.url}/login`);
    await hydrated(page);
    await typeInto(page.getByLabel(en.auth.email), "demo@sakina.app");
    await typeInto(page.getByLabel(en.auth.password), password);
    await press(page.getByRole("button", { name: en.auth.signIn }));
    await expectFocusOnHeading(page, en.password.changeTitle);
    expect(new URL(page.url()).pathname).toBe("/change-password");
    await context.close();
  });
});

describe("the booking-done page", () => {
  it("shows nothing private at a hand-made or shared address, and no calendar file", async () => {
    const context = await newVisitor(browser, { javaScript: false });
    const page = await context.newPage();
    const response = await page.goto(`${server.url}/book/demo-salon?service=1&date=2030-01-02&time=10:00&step=done&name=Mallory`);
    expect(response?.status()).toBe(200);
    await page.getByRole("heading", { name: en.flows.doneNothingTitle }).waitFor();
    const body = await page.locator("main").innerText();
    expect(body).not.toContain(en.book.sentTitle);
    expect(body).not.toMatch(/Mallory|2030|10:00/);
    expect(await page.getByRole("link", { name: en.manageLink.icsFile }).count()).toBe(0);
    expect((await context.request.get(`${server.url}/book/demo-salon/calendar.ics`)).status()).toBe(404);
    await context.close();
  });
});

describe("without JavaScript", () => {
  it.each(languages)("a failed submit shows the error summary with links to the fields, in $locale", async ({ locale, text }) => {
    const context = await newVisitor(browser, { javaScript: false, locale });
    const page = await context.newPage();
    await page.goto(`${server.url}/get-started?lng=${locale}`);
    await page.getByLabel(text.register.email).fill("not an e-mail");
    await page.getByRole("button", { name: text.register.submit }).click();
    const summary = page.locator("[data-error-summary]");
    await summary.waitFor();
    expect(await summary.getByRole("heading").innerText()).toBe(text.flows.errorSummaryTitle);
    expect(await page.title()).toMatch(new RegExp(`^${text.flows.errorTitle.replace("{{title}}", "")}`));
    const targets = await summary.locator("a").evaluateAll((links) => links.map((link) => link.getAttribute("href")));
    expect(targets.length).toBeGreaterThanOrEqual(3);
    for (const target of targets) {
      expect(await page.locator(`${target}`).getAttribute("aria-invalid")).toBe("true");
    }
    // The typed value is kept.
    expect(await page.getByLabel(text.register.email).inputValue()).toBe("not an e-mail");
    await context.close();
  });
});
