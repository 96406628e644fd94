import ICAL from "ical.js";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import en from "~/locales/en";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { demoOwnerPassword } from "../support/demo-owner";
import { linkIn, waitForMail, type OutboxMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";

// Issue 47's journey in a real browser: a visitor in Los Angeles books, the owner moves the
// booking, the customer's first e-mailed link still opens it, in Pacific Time; both e-mails and
// the updated calendar file arrive (SEQUENCE 1), the customer asks for a new link (the old one
// says so), then cancels (METHOD:CANCEL).
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

/** The event of the .ics an e-mail carries, read by ical.js as a calendar app reads it. */
function eventOf(mail: OutboxMail) {
  const part = mail.raw.split(/\r?\n--/).find((p) => /filename="?booking\.ics/i.test(p));
  if (!part) throw new Error(`no calendar file in "${mail.subject}"`);
  const [headers = "", ...body] = part.split(/\r?\n\r?\n/);
  const text = /base64/i.test(headers) ? Buffer.from(body.join("").replace(/\s/g, ""), "base64").toString("utf8") : body.join("\n\n");
  const calendar = new ICAL.Component(ICAL.parse(text));
  const event = new ICAL.Event(calendar.getFirstSubcomponent("vevent")!);
  return {
    method: String(calendar.getFirstPropertyValue("method")),
    uid: event.uid,
    sequence: event.sequence,
    status: event.component.getFirstPropertyValue("status"),
    start: event.startDate.toJSDate().getTime(),
  };
}

describe("after the booking, in a real browser", () => {
  it("an LA visitor books, the owner moves it, the first link still opens it in Pacific Time, and the calendar follows", async () => {
    const email = "pacific-visitor@example.com";
    const visitor = await newVisitor(browser, { javaScript: true, locale: "en-US", timeZone: "America/Los_Angeles" });
    const page = await visitor.newPage();
    await page.goto(`${server.url}/book/demo-salon?lng=en`);
    await hydrated(page);
    await page.getByRole("button", { name: /Haircut/ }).click();
    await page.locator("table button").nth(5).click();
    await page.locator("input[name=time]:not([disabled])").first().check();
    // The browser's zone, taken by the page without a choice.
    expect(await page.getByText("Pacific Time").count()).toBeGreaterThan(0);
    await page.getByRole("button", { name: en.book.next }).click();
    await page.getByLabel(en.book.name).fill("Pacific Visitor");
    await page.getByLabel(en.book.phone).fill("(212) 555-0177");
    await page.getByLabel(en.book.email).fill(email);
    await page.getByRole("button", { name: en.book.review }).click();
    await page.getByRole("button", { name: en.book.confirm }).click();
    await page.getByRole("heading", { name: en.book.sentTitle }).waitFor();
    // Add to calendar on the done page comes from the manage link.
    expect(await page.locator("a[href$='/calendar.ics']").getAttribute("href")).toMatch(/^\/booking\/[\w-]+\/calendar\.ics$/);
    expect(await page.getByRole("link", { name: en.manageLink.google }).count()).toBe(1);

    const first = await waitForMail(server.dataDir, email, /^Your booking request at/);
    expect(first.text).toContain("Pacific Time");
    const manage = linkIn(first, "/booking/");
    const created = eventOf(first);
    expect(created.sequence).toBe(0);
    const reference = /Booking reference: (\w{3}-\w{3})/.exec(first.text)![1]!;

    // The owner moves it from the dashboard.
    const ownerContext = await newVisitor(browser, { javaScript: true, locale: "en-US", timeZone: "America/New_York" });
    const ownerPage = await ownerContext.newPage();
    const password = await demoOwnerPassword(server.url, server.dataDir);
    await ownerPage.goto(`${server.url}/login?lng=en`);
    await ownerPage.locator("input[name=email]").fill("demo@sakina.app");
    await ownerPage.locator("input[name=password]").fill(password);
    await ownerPage.locator("input[name=password]").press("Enter");
    await ownerPage.waitForURL(/\/dashboard/);
    const card = ownerPage.locator("article", { hasText: reference });
    await card.locator("a[href^='/dashboard/bookings/']").first().click();
    await ownerPage.getByRole("button", { name: en.owner.reschedule.showTimes }).click();
    await ownerPage.locator("input[name=time]").first().check();
    await ownerPage.getByRole("button", { name: en.owner.reschedule.move }).click();
    await ownerPage.waitForURL(/done=moved/);

    const moved = await waitForMail(server.dataDir, email, /has a new time$/);
    expect(linkIn(moved, "/booking/")).toBe(manage);
    const update = eventOf(moved);
    expect(update).toMatchObject({ uid: created.uid, sequence: 1, method: "PUBLISH" });
    expect(update.start).not.toBe(created.start);

    // The first e-mailed link still opens the booking, at the new time, in Pacific Time.
    await page.goto(manage);
    await hydrated(page);
    const when = await page.locator("[data-booking-when]").innerText();
    expect(when).toContain("Pacific Time");
    expect(when).toContain(
      new Date(update.start).toLocaleTimeString("en-US", { timeZone: "America/Los_Angeles", hour: "numeric", minute: "2-digit" }),
    );
    await expectAccessible(page, true, "manage after the owner's move");

    // Only the customer's own request replaces the link: the old one then says so, in the business's frame.
    await page.getByRole("button", { name: en.manageLink.newLinkButton }).click();
    await page.waitForURL((address) => address.pathname !== new URL(manage).pathname);
    const renewed = page.url();
    await waitForMail(server.dataDir, email, /^Your new link for your booking at/);
    const replaced = await page.goto(manage);
    expect(replaced?.status()).toBe(410);
    await page.getByRole("heading", { name: en.manageLink.replacedTitle }).waitFor();
    await expectAccessible(page, true, "replaced manage link");
    await page.goto(renewed);
    await hydrated(page);

    // The customer cancels: the owner is told, and the calendar file removes the event.
    await page.getByRole("link", { name: en.manage.cancel }).click();
    await page.getByRole("button", { name: en.manage.cancelYes }).click();
    await page.getByRole("heading", { name: en.manage.cancelledTitle }).waitFor();
    const cancelled = await waitForMail(server.dataDir, email, /^You cancelled your booking at/);
    expect(eventOf(cancelled)).toMatchObject({ uid: created.uid, method: "CANCEL", status: "CANCELLED", sequence: 2 });
    await waitForMail(server.dataDir, "demo@sakina.app", /^Pacific Visitor cancelled their booking/);
    await ownerPage.goto(`${server.url}/dashboard?filter=cancelled&lng=en`);
    await ownerPage.locator("article", { hasText: reference }).getByText("Cancelled by the customer").waitFor();
    // An unknown link: a page of its own (not a bare 404 to Sakina's home), axe clean.
    const unknown = await page.goto(`${server.url}/booking/no-such-link-000000000000000`);
    expect(unknown?.status()).toBe(404);
    await page.getByRole("heading", { name: en.manageLink.unknownTitle }).waitFor();
    await expectAccessible(page, true, "unknown manage link");
    await ownerContext.close();
    await visitor.close();
  });
});
