import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { hydrated, launchBrowser, newVisitor } from "../support/browser";
import { unisolatedNumbers } from "../support/isolation";
import { startServer, type RunningServer } from "../support/server";

let server: RunningServer;
let browser: Browser;
let stripe: FakeStripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;

// A server that can place the call (payments, telephony and the voice model against the fakes):
// the home page's first step is offered only where a call can follow.
beforeAll(async () => {
  [stripe, twilio, realtime, browser] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime(), launchBrowser()]);
  server = await startServer({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: "whsec_test_help_lines",
    STRIPE_API_URL: stripe.url,
    STRIPE_JS_URL: stripe.jsUrl,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    OPENAI_API_KEY: realtime.apiKey,
    OPENAI_BASE_URL: realtime.url,
  });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await Promise.all([twilio?.close(), realtime?.close(), stripe?.close()]);
});

const box = (page: Page) => page.locator("#help-lines");

/** Step one of the home page, filled as a visitor does, by the fields' names (the labels are in the page's language). */
async function giveNumber(page: Page, phone: string, language: string, javaScript: boolean) {
  const form = page.locator("#empathy-details");
  await form.locator("input[name=phone]").fill(phone);
  await form.locator("select[name=language]").selectOption(language);
  await form.locator("input[name=adult]").check();
  await form.locator("input[name=recording]").check();
  await form.locator("button[type=submit]").click();
  await page.waitForURL(/step=payment/);
  // The payment step loads React (Stripe's fields): a click in the box while it hydrates could be
  // taken by neither the browser nor the router.
  if (javaScript) await hydrated(page);
  else await page.waitForLoadState("domcontentloaded");
}

/** The country the box shows, once it shows it. */
async function shownCountry(page: Page, country: string) {
  await box(page).locator(`[data-help-country="${country}"]`).waitFor();
}

describe.each([
  { javaScript: true, name: "with JavaScript" },
  { javaScript: false, name: "without JavaScript" },
])("the crisis box on the home page, $name", ({ javaScript }) => {
  it("shows an Arabic visitor Saudi lines, and the Saudi lines again once a +966 number is given", async () => {
    const context = await newVisitor(browser, { javaScript, locale: "ar-SA" });
    const page = await context.newPage();
    await page.goto(server.url);
    await shownCountry(page, "SA");
    await box(page).getByRole("link", { name: "997" }).waitFor();
    await box(page).getByText("السعودية").first().waitFor();
    expect(await unisolatedNumbers(page)).toEqual([]);

    await giveNumber(page, "+966 55 123 4567", "arabic", javaScript);
    await shownCountry(page, "SA");
    await box(page).getByRole("link", { name: "911" }).waitFor();
    expect(await unisolatedNumbers(page)).toEqual([]);

    // Another country, chosen in the box: the payment step stays.
    await box(page).locator("select[name=helpCountry]").selectOption("EG");
    await box(page).locator("button[type=submit]").click();
    await page.waitForURL(/helpCountry=EG/);
    expect(new URL(page.url()).searchParams.get("step")).toBe("payment");
    await shownCountry(page, "EG");
    await box(page).getByRole("link", { name: "123" }).waitFor();
    await context.close();
  });

  it("shows a German visitor German lines, and keeps them for a +49 number", async () => {
    const context = await newVisitor(browser, { javaScript, locale: "de-DE" });
    const page = await context.newPage();
    await page.goto(server.url);
    await shownCountry(page, "DE");
    await box(page).getByRole("link", { name: "0800 111 0 111" }).waitFor();
    await box(page).getByText("TelefonSeelsorge").first().waitFor();

    await giveNumber(page, "+49 151 12345678", "german", javaScript);
    await shownCountry(page, "DE");
    await box(page).getByRole("link", { name: "112" }).waitFor();
    await context.close();
  });
});
