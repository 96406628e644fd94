import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { linkIn, waitForMail } from "../support/outbox";
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

async function expectAccessible(page: Page, javaScript: boolean, state: string) {
  expect(describeViolations(await axeViolations(page, { javaScript })), state).toBe("");
}

/** Waits until the heading with this text has the keyboard's focus (the step took it). */
async function expectFocusOn(page: Page, heading: string) {
  const focused = page.locator("h1:focus, h2:focus");
  await focused.filter({ hasText: heading }).waitFor();
  expect((await focused.innerText()).trim()).toBe(heading);
}

/** The salon's Latin name in a title: isolated inside an Arabic title, plain in an English one. */
const salonInTitle = (locale: "en" | "ar") => (locale === "ar" ? "\u2068Sakina Demo Salon\u2069" : "Sakina Demo Salon");

const journeys = [
  { javaScript: false, locale: "en" as const, text: en, day: 8 },
  { javaScript: true, locale: "en" as const, text: en, day: 9 },
  { javaScript: false, locale: "ar" as const, text: ar, day: 10 },
  { javaScript: true, locale: "ar" as const, text: ar, day: 11 },
];

describe.each(journeys)("the steps take the focus, JavaScript $javaScript, $locale", ({ javaScript, locale, text, day }) => {
  it("from the service to the done page, then the manage page's reschedule and cancel, axe clean on each", async () => {
    const context = await newVisitor(browser, { javaScript, locale, timeZone: "America/New_York" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=${locale}`);
    if (javaScript) await hydrated(page);
    // The first page is read from the top: nothing takes the focus.
    expect(await page.locator("h2:focus").count()).toBe(0);
    expect(await page.title()).toBe(`${text.book.stepTitles.service} – ${salonInTitle(locale)}`);

    await page.getByRole("button", { name: /Haircut/ }).click();
    await expectFocusOn(page, text.book.chooseDate);
    expect(await page.title()).toBe(`${text.book.stepTitles.date} – ${salonInTitle(locale)}`);
    await page.locator("table button").nth(day).click();
    await page.locator("input[name=time]").first().waitFor();
    const timeHeading = (await page.locator("#time-step-title").innerText()).trim();
    await expectFocusOn(page, timeHeading);
    expect(await page.title()).toBe(`${text.book.stepTitles.time} – ${salonInTitle(locale)}`);
    await expectAccessible(page, javaScript, "time");

    await page.locator("input[name=time]:not([disabled])").first().check();
    await page.getByRole("button", { name: text.book.next }).click();
    await expectFocusOn(page, text.book.yourDetails);
    await page.getByLabel(text.book.name).fill("Focus Tester");
    await page.getByLabel(text.book.phone).fill(`(212) 555-01${String(day).padStart(2, "0")}`);
    const email = `focus-${locale}-${javaScript}@example.com`;
    await page.getByLabel(text.book.email).fill(email);
    await page.getByRole("button", { name: text.book.review }).click();
    await expectFocusOn(page, text.book.confirmTitle);
    await page.getByRole("button", { name: text.book.confirm }).click();
    await expectFocusOn(page, text.book.sentTitle);
    expect(await page.title()).toBe(`${text.book.stepTitles.done} – ${salonInTitle(locale)}`);

    // The manage page, as the e-mail's link opens it.
    const mail = await waitForMail(server.dataDir, email, /Sakina Demo Salon/);
    const manage = new URL(linkIn(mail, "/booking/")).pathname;
    await page.goto(`${server.url}${manage}?lng=${locale}`);
    if (javaScript) await hydrated(page);
    await expectAccessible(page, javaScript, "manage");
    await page.getByRole("link", { name: text.manage.reschedule }).click();
    await expectFocusOn(page, text.manage.chooseDate);
    // No cancel beside the time picker.
    expect(await page.getByRole("link", { name: text.manage.cancel }).count()).toBe(0);
    await expectAccessible(page, javaScript, "reschedule date");
    await page
      .locator("table button")
      .nth(day + 1)
      .click();
    await page.locator("input[name=start]").first().waitFor();
    await expectFocusOn(page, (await page.locator("#reschedule-title").innerText()).trim());
    expect(await page.getByRole("link", { name: text.manage.cancel }).count()).toBe(0);
    await expectAccessible(page, javaScript, "reschedule time");
    await page.getByRole("link", { name: text.manage.keep }).click();

    // The cancel asks first; the answer is a page to book again from.
    await page.getByRole("link", { name: text.manage.cancel }).click();
    await expectFocusOn(page, text.manage.cancelConfirmTitle);
    await expectAccessible(page, javaScript, "cancel confirm");
    await page.getByRole("button", { name: text.manage.cancelYes }).click();
    await expectFocusOn(page, text.manage.cancelledTitle);
    await expectAccessible(page, javaScript, "cancelled");
    await page.getByRole("link", { name: text.manage.bookAgain }).click();
    await page.getByRole("heading", { name: text.book.chooseService }).waitFor();
    await context.close();
  });
});

describe.each([
  { locale: "en" as const, text: en },
  { locale: "ar" as const, text: ar },
])("the date and time steps on a wide screen, $locale", ({ locale, text }) => {
  it("puts the month and the day's times side by side at 1280, the month first in the reading direction; stacked on a phone", async () => {
    for (const width of [1280, 390]) {
      const context = await newVisitor(browser, { javaScript: false, locale, width, timeZone: "America/New_York" });
      const page = await context.newPage();
      await page.goto(`${server.url}/book/demo-salon?lng=${locale}`);
      await page.getByRole("button", { name: /Haircut/ }).click();
      await page.locator("table button").first().waitFor();
      if (width === 1280) {
        // The date step is laid out as the time step: the months where they will stay, the
        // heading where the day's times will come, sharing the same rows of the screen.
        const heading = page.getByRole("heading", { name: text.book.chooseDate });
        const [months, title] = [(await page.locator("[data-month]").boundingBox())!, (await heading.boundingBox())!];
        if (locale === "ar") expect(title.x + title.width).toBeLessThanOrEqual(months.x);
        else expect(months.x + months.width).toBeLessThanOrEqual(title.x);
        expect(Math.abs(months.y - title.y)).toBeLessThan(40);
        await page.getByText(text.book.timesBeside).waitFor();
      }
      await page.locator("table button").nth(3).click();
      await page.getByRole("button", { name: text.book.next }).waitFor();
      const month = page.locator("[data-month]");
      const times = page.locator("[data-times]");
      if (width === 390) {
        // The phone shows the times alone, as before; the month is the step back.
        expect(await month.isVisible()).toBe(false);
        await page.getByRole("link", { name: text.book.otherDate }).waitFor();
        await context.close();
        continue;
      }
      const [a, b] = [(await month.boundingBox())!, (await times.boundingBox())!];
      if (locale === "ar") expect(b.x + b.width).toBeLessThanOrEqual(a.x);
      else expect(a.x + a.width).toBeLessThanOrEqual(b.x);
      // Side by side: they share the same rows of the screen.
      expect(Math.abs(a.y - b.y)).toBeLessThan(20);
      await expectAccessible(page, false, `time ${width}`);
      await context.close();
    }
  });
});

describe("the visitor's time zone in a browser elsewhere", () => {
  it("with JavaScript, shows the times in the browser's zone from the first step, the zone named in words", async () => {
    const context = await newVisitor(browser, { javaScript: true, timeZone: "Europe/Berlin" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=en`);
    await hydrated(page);
    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.getByText("Times are shown in Central European Time.").waitFor();
    await page.locator("table button").nth(4).click();
    await page.locator("input[name=time]").first().waitFor();
    expect(new URL(page.url()).searchParams.get("tz")).toBe("Europe/Berlin");
    expect(await page.getByLabel(en.book.zoneLabel).inputValue()).toBe("Europe/Berlin");
    await expectAccessible(page, true, "time in Berlin");
    await context.close();
  });

  it("with JavaScript, a time step opened from a link shows itself again in the browser's zone, in place", async () => {
    const context = await newVisitor(browser, { javaScript: true, timeZone: "Asia/Tokyo" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=en`);
    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.locator("table button").nth(5).click();
    await page.locator("input[name=time]").first().waitFor();
    const shared = new URL(page.url());
    shared.searchParams.delete("tz");
    let loads = 0;
    page.on("load", () => loads++);
    await page.goto(shared.href);
    await page.getByText("Times are shown in Japan Standard Time.").waitFor();
    expect(new URL(page.url()).searchParams.get("tz")).toBe("Asia/Tokyo");
    expect(await page.getByLabel(en.book.zoneLabel).inputValue()).toBe("Asia/Tokyo");
    expect(loads).toBe(1);
    await context.close();
  });

  it("without JavaScript, keeps the business's zone until the visitor chooses theirs", async () => {
    const context = await newVisitor(browser, { javaScript: false, timeZone: "Europe/Berlin" });
    const page = await context.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=en`);
    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.locator("table button").nth(4).click();
    const select = page.getByLabel(en.book.zoneLabel);
    expect(await select.inputValue()).toBe("America/New_York");
    const before = await page.locator("input[name=time] + bdi").first().innerText();
    // Each zone once, by its name: Berlin is one of the zones named "Central European Time".
    const central = select.locator("option", { hasText: /^Central European Time \(/ });
    await select.selectOption((await central.getAttribute("value"))!);
    await page.getByRole("button", { name: en.manageLink.show }).click();
    await page.getByText("Times are shown in Central European Time.").waitFor();
    expect(await page.locator("input[name=time] + bdi").first().innerText()).not.toBe(before);
    await context.close();
  });
});
