import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import ar from "~/locales/ar";
import { launchBrowser, newVisitor } from "../support/browser";
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
];

async function expectIsolated(page: Page, where: string) {
  expect(await page.getAttribute("html", "dir"), where).toBe("rtl");
  expect(await unisolatedNumbers(page), where).toEqual([]);
}

describe("the check itself", () => {
  it("finds a phone number, a crisis line or a price outside an isolate, and nothing inside one", async () => {
    const page = await browser.newPage();
    await page.setContent(`<html dir="rtl" lang="ar"><body>
      <p>اتصل بـ 116 123</p><p>اتصل بـ 988 الآن</p><p>ادفع $5</p><p>الهاتف +966 55 123 4567</p>
      <div dir="ltr"><aside dir="rtl"><p>اتصل بـ 000</p></aside></div>
      <p>اتصل بـ <bdi dir="ltr">116 123</bdi></p><p><span dir="ltr">+966 55 123 4567</span></p><p>مدة 10 دقائق، عام 2026</p>
    </body></html>`);
    expect(await unisolatedNumbers(page)).toEqual([
      "اتصل بـ 116 123",
      "اتصل بـ 988 الآن",
      "ادفع $5",
      "الهاتف +966 55 123 4567",
      "اتصل بـ 000",
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
