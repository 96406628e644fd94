import { gzipSync } from "node:zlib";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { waitForMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";

// Each test is a whole journey in a real browser: on a busy two-core machine it can take minutes.
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

async function expectAccessible(page: Page, javaScript: boolean, step: string) {
  expect(describeViolations(await axeViolations(page, { javaScript })), step).toBe("");
}

const variants = [
  { javaScript: true, locale: "en" as const, text: en, pick: 0 },
  { javaScript: false, locale: "en" as const, text: en, pick: 1 },
  { javaScript: true, locale: "ar" as const, text: ar, pick: 2 },
  { javaScript: false, locale: "ar" as const, text: ar, pick: 3 },
];

describe.each(variants)("booking an appointment, JavaScript $javaScript, language $locale", ({ javaScript, locale, text, pick }) => {
  it("goes from service to a confirmed request with no accessibility violations on any step", async () => {
    // A browser in the business's own zone: the times are the business's.
    const context = await newVisitor(browser, { javaScript, locale, timeZone: "America/New_York" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=${locale}`);
    expect(await page.getAttribute("html", "dir")).toBe(locale === "ar" ? "rtl" : "ltr");
    await expect(page.getByRole("heading", { level: 1 }).innerText()).resolves.toBe("Sakina Demo Salon");
    await expectAccessible(page, javaScript, "service");
    await page.getByRole("button", { name: /Haircut/ }).click();

    await page.getByRole("heading", { name: text.book.chooseDate }).waitFor();
    await page
      .getByText(text.book.zoneNote.replace("{{zone}}", locale === "ar" ? "التوقيت الشرقي لأمريكا الشمالية" : "Eastern Time"))
      .waitFor();
    await expectAccessible(page, javaScript, "date");
    const days = page.locator("table button");
    expect(await days.count()).toBeGreaterThan(10);
    // Each variant takes another day, so the four runs never compete for one slot.
    const day = days.nth(pick);
    expect(await day.getAttribute("aria-label")).toMatch(/\d/);
    await day.click();

    await page.locator("fieldset input[type=radio]").first().waitFor();
    await expectAccessible(page, javaScript, "time");
    // On a wide screen the month stays beside the times, to choose another day from.
    await page.locator("[data-month] table button[aria-current=date]").waitFor();
    await page.locator("input[type=radio]:not([disabled])").first().check();
    await page.getByRole("button", { name: text.book.next }).click();

    await page.getByRole("heading", { name: text.book.yourDetails }).waitFor();
    await expectAccessible(page, javaScript, "contact");
    // Submitting empty shows the field errors first.
    await page.getByRole("button", { name: text.book.review }).click();
    await page.getByText(text.book.nameRequired).first().waitFor();
    await page.getByLabel(text.book.name).fill("Layla Hassan");
    // A number that is no phone number: only the server knows, and says so at the field, with
    // JavaScript as without, in the same answer as a wrong e-mail's error; the name's error is gone.
    await page.getByLabel(text.book.phone).fill("12345");
    await page.getByLabel(text.book.email).fill("name@");
    await page.getByRole("button", { name: text.book.review }).click();
    await page.locator("[data-error-summary]").getByText(text.book.phoneInvalid).waitFor();
    await page.locator("[data-error-summary]").getByText(text.register.emailInvalid).waitFor();
    expect(await page.getByLabel(text.book.phone).getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel(text.book.phone).inputValue()).toBe("12345");
    expect(await page.getByText(text.book.nameRequired).count()).toBe(0);
    await page.getByLabel(text.book.phone).fill("(212) 555-0188");
    const email = `customer-${locale}-${javaScript}@example.com`;
    await page.getByLabel(text.book.email).fill(email);
    await page.getByRole("button", { name: text.book.review }).click();

    await page.getByRole("heading", { name: text.book.confirmTitle }).waitFor();
    await page.getByText("+1 212 555 0188").waitFor();
    await expectAccessible(page, javaScript, "confirm");
    await page.getByRole("button", { name: text.book.confirm }).click();

    await page.getByRole("heading", { name: text.book.sentTitle }).waitFor();
    // No telephony on this server: the done page promises no call; the confirmation comes by e-mail.
    await page.getByText(text.book.promiseNoneEmailed.split("{{business}}")[0]!).waitFor();
    await expectAccessible(page, javaScript, "done");

    // Reloading the success page books nothing new; the customer's e-mail arrives once.
    await page.reload();
    const mail = await waitForMail(server.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text).toContain("/booking/");
    await context.close();
  });
});

describe("the booking page with JavaScript, without React", () => {
  it("loads one small script, shows each step in place without a page load, and Back goes to the step before", async () => {
    const context = await newVisitor(browser, { javaScript: true });
    const page = await context.newPage();
    const scripts: Promise<number>[] = [];
    page.on("response", (response) => {
      if (response.request().resourceType() === "script") scripts.push(response.body().then((body) => gzipSync(body).length));
    });
    let loads = 0;
    page.on("load", () => loads++);
    await page.goto(`${server.url}/book/demo-salon?lng=en`);
    await hydrated(page);
    // Issue 14's budget for a booking page is 100 kB of gzipped JavaScript; React alone is more.
    const bytes = (await Promise.all(scripts)).reduce((sum, size) => sum + size, 0);
    expect(scripts.length).toBe(1);
    expect(bytes).toBeLessThan(100_000);

    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.getByRole("heading", { name: en.book.chooseDate }).waitFor();
    expect(new URL(page.url()).searchParams.get("service")).toBeTruthy();
    await page.locator("table button").nth(5).click();
    await page.locator("fieldset input[type=radio]").first().waitFor();
    expect(new URL(page.url()).searchParams.get("date")).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(loads).toBe(1);

    // Back: the browser's history has each step, and the page shows the step of the address.
    await page.goBack();
    // The date step has no times yet: their going is the sign the step before is shown (its
    // heading alone is on both steps), and the page has settled before the next Back.
    await page.locator("fieldset input[type=radio]").first().waitFor({ state: "detached" });
    await page.getByRole("heading", { name: en.book.chooseDate }).waitFor();
    await page.waitForLoadState();
    expect(new URL(page.url()).searchParams.get("date")).toBeNull();
    await page.goBack();
    await page.getByRole("heading", { name: en.book.chooseService }).waitFor();
    await context.close();
  });
});

describe.each([
  { locale: "en" as const, forward: "ArrowRight", backward: "ArrowLeft" },
  { locale: "ar" as const, forward: "ArrowLeft", backward: "ArrowRight" },
])("the calendar with JavaScript, $locale", ({ locale, forward, backward }) => {
  it("is one stop in the Tab order, its days reached with the arrow keys in the page's reading direction", async () => {
    const context = await newVisitor(browser, { javaScript: true, locale, timeZone: "America/New_York" });
    const page = await context.newPage();
    const services = (await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
    const haircut = services.find((service) => service.name === "Haircut")!.id;
    await page.goto(`${server.url}/book/demo-salon?service=${haircut}&lng=${locale}`);
    await hydrated(page);
    const days = page.locator("[data-month] table button[name=date]");
    const values = await days.evaluateAll((buttons) => buttons.map((button) => (button as HTMLButtonElement).value));
    expect(values.length).toBeGreaterThan(8);
    // One day in the Tab order: the first bookable one.
    expect(await page.locator("[data-month] table button[name=date][tabindex='0']").count()).toBe(1);
    expect(await page.locator("[data-month] table[role=grid]").count()).toBeGreaterThan(0);
    await days.first().focus();
    const focused = () => page.evaluate(() => (document.activeElement as HTMLButtonElement).value);
    await page.keyboard.press(forward);
    expect(await focused()).toBe(values[1]);
    await page.keyboard.press(backward);
    expect(await focused()).toBe(values[0]);
    // Down: a week on (or the next bookable day after it).
    await page.keyboard.press("ArrowDown");
    const week = await focused();
    expect(week).toBe(values.find((value) => (Date.parse(value) - Date.parse(values[0]!)) / 86_400_000 >= 7));
    // The day the keys reached is the one Tab comes back to, and Enter chooses it.
    expect(await page.locator("[data-month] table button[name=date][tabindex='0']").evaluate((b) => (b as HTMLButtonElement).value)).toBe(
      week,
    );
    await page.keyboard.press("Enter");
    await page.waitForURL((url) => url.searchParams.get("date") === week);
    await context.close();
  });
});
