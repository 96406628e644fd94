import en from "~/locales/en";
import type { Browser, Page } from "playwright-core";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { unisolatedNumbers } from "../support/isolation";
import { waitFor } from "../support/wait";

vi.setConfig({ testTimeout: 180_000 });

const WEBHOOK_SECRET = "whsec_test_subscriptions_e2e";
let stripe: FakeStripe;
let twilio: FakeTwilio;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [stripe, twilio] = await Promise.all([startFakeStripe(), startFakeTwilio()]);
  [server, browser] = await Promise.all([
    startServer({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      STRIPE_JS_URL: stripe.jsUrl,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
      SEED_DEMO_DATA: "false",
    }),
    launchBrowser(),
  ]);
  stripe.setWebhook(`${server.url}/webhooks/stripe`, WEBHOOK_SECRET);
});

afterAll(async () => {
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await browser?.close();
  await server?.stop();
  await twilio?.close();
  await stripe?.close();
});

async function expectAccessible(page: Page, javaScript: boolean) {
  const violations = await axeViolations(page, { javaScript });
  expect(describeViolations(violations), page.url()).toBe("");
}

let seq = 300;

/** Stripe's hosted page (the fake's stand-in): the card is prefilled, the button saves it. */
async function payOnStripe(page: Page) {
  await page.waitForURL((url) => url.href.startsWith(`${stripe.url}/checkout/`));
  await page.getByRole("button", { name: /Pay|Save card|Subscribe/ }).click();
}

for (const javaScript of [false, true]) {
  describe(`a subscriber's journey with JavaScript ${javaScript ? "on" : "off"}`, () => {
    it("subscribes, lands on the dashboard, requests a call, changes preferences, upgrades, updates the card and cancels", async () => {
      const context = await newVisitor(browser, { javaScript });
      const page = await context.newPage();
      const phone = `+1212555${String(seq++).padStart(4, "0")}`;
      // The app's own origin (where Stripe's pages send the browser back, with its cookies).
      await page.goto(`${server.url.replace("127.0.0.1", "localhost")}/subscribe`);
      await expectAccessible(page, javaScript);

      // A submit with fields missing: one summary naming each missing field, once.
      await page.getByLabel("Full name").fill("Nour Saleh");
      await page.getByRole("button", { name: "Continue to card" }).click();
      await expect.poll(() => page.title()).toMatch(/^Error:/);
      await expect
        .poll(() => page.locator("[data-error-summary] a").allTextContents())
        .toEqual([en.subscribe.emailRequired, en.subscribe.phoneRequired]);
      expect(await page.locator("[data-error-summary]").textContent()).not.toContain(en.subscribe.incompleteBody);

      await page.getByLabel("Full name").fill("Nour Saleh");
      await page.getByLabel("E-mail").fill(`nour${seq}@example.com`);
      await page.getByLabel("Phone number").fill(phone);
      await page.getByLabel("Twice a week").check();
      await page.getByRole("button", { name: "Continue to card" }).click();
      await page.getByRole("heading", { name: "Save your card" }).waitFor();

      if (javaScript) {
        // Stripe's Payment Element (the fake Stripe.js) saves the card in the page.
        await page.getByRole("button", { name: "Start my free trial" }).waitFor();
        await expect.poll(() => page.getByRole("button", { name: "Start my free trial" }).isEnabled(), { timeout: 15_000 }).toBe(true);
        await expectAccessible(page, javaScript);
        await page.getByLabel("Card number").fill("4242 4242 4242 4242");
        await page.getByRole("button", { name: "Start my free trial" }).click();
      } else {
        await expectAccessible(page, javaScript);
        await page.getByRole("button", { name: "Add card on Stripe's secure page" }).click();
        await payOnStripe(page);
      }
      await page
        .getByRole("heading", { name: "Subscription activated!" })
        .waitFor({ timeout: 20_000 })
        .catch(async (error: Error) => {
          throw new Error(`${error.message}\n${page.url()}\n${await page.locator("body").innerText()}`);
        });
      await page.getByRole("link", { name: "Go to dashboard" }).click();
      await page.getByRole("heading", { name: /Welcome, Nour Saleh/ }).waitFor();
      expect(await page.locator("main").textContent()).toContain("0 of 5 trial calls used");
      await expectAccessible(page, javaScript);

      // Request a call: placed with the preferred language and voice.
      await page.getByLabel("How are you feeling?").fill("tired and anxious");
      await page.getByLabel("How urgent is it?").selectOption("high");
      await page.getByRole("button", { name: "Request support call" }).click();
      await page.getByText("Call initiated!").waitFor();
      const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
        what: "the support call",
        timeoutMs: 20_000,
      });
      expect(call).toBeTruthy();
      await page.reload();
      expect(await page.locator("main").textContent()).toContain("tired and anxious");

      // Preferences.
      await page.getByRole("link", { name: "Call preferences" }).click();
      await page.getByRole("heading", { name: "Call preferences" }).waitFor();
      await expectAccessible(page, javaScript);
      await page.getByLabel("Preferred call time").fill("07:00");
      await page.getByRole("button", { name: "Save preferences" }).click();
      await expect.poll(() => page.title()).toMatch(/^Error:/);
      await page.getByLabel("Preferred call time").fill("18:30");
      await page.getByLabel("Time zone").selectOption("Asia/Tokyo");
      await page.getByLabel("Language of your calls").selectOption("fr");
      await page.getByRole("button", { name: "Save preferences" }).click();
      await page.getByText("Preferences saved").waitFor();
      expect(await page.getByLabel("Preferred call time").inputValue()).toBe("18:30");
      await page.getByRole("link", { name: "Back to dashboard" }).click();

      // Upgrade: billing starts now, 30 calls a month.
      await page.getByRole("button", { name: /Upgrade to monthly/ }).click();
      await page.getByText("Subscription upgraded").waitFor();
      await expect.poll(async () => (await page.locator("main").textContent()) ?? "").toMatch(/of 30 monthly calls used/);

      // Update the card on Stripe's page (setup mode), then back to the dashboard.
      await page.getByRole("link", { name: "Update card" }).first().click();
      await page.getByRole("button", { name: "Continue to Stripe" }).click();
      await payOnStripe(page);
      await page.getByText("Your card is updated.").waitFor({ timeout: 20_000 });

      // Cancel: access continues until the period ends.
      await page.getByRole("button", { name: "Cancel subscription" }).click();
      await page.getByText("Subscription cancelled").waitFor();
      expect(await page.locator("main").textContent()).toMatch(/Cancelled: access until/);
      await context.close();
    });
  });
}

it("reads right to left in Arabic, numbers and prices isolated, through signup, the dashboard and the preferences", async () => {
  const context = await newVisitor(browser, { javaScript: false, locale: "ar" });
  const page = await context.newPage();
  const isolated = async () => expect(await unisolatedNumbers(page), page.url()).toEqual([]);
  await page.goto(`${server.url.replace("127.0.0.1", "localhost")}/subscribe`);
  expect(await page.locator("html").getAttribute("dir")).toBe("rtl");
  await expectAccessible(page, false);
  await isolated();
  await page.locator("#sub-name").fill("Layla Test");
  await page.locator("#sub-email").fill(`layla${seq}@example.com`);
  await page.locator("#sub-phone").fill(`+1212555${String(seq++).padStart(4, "0")}`);
  await page.locator('form:has(#sub-name) button[type="submit"]').click();
  await page.waitForURL(/step=payment/);
  await isolated();
  await page.locator('form:has(input[name="intent"][value="checkout"]) button').click();
  await payOnStripe(page);
  await page.waitForURL(/\/subscribe\/complete/);
  await page.locator('a[href^="/dashboard?userId="]').first().click();
  await page.waitForURL(/\/dashboard\?userId=/);
  await expectAccessible(page, false);
  await isolated();
  await page.locator('a[href^="/preferences?userId="]').first().click();
  await page.waitForURL(/\/preferences\?userId=/);
  await expectAccessible(page, false);
  await isolated();
  await page.goto(`${server.url}/subscribe`);
  await page.goto(`${server.url}/dashboard?userId=abc`);
  await expectAccessible(page, false);
  await page.goto(`${server.url}/sign-in`);
  await expectAccessible(page, false);
  await context.close();
});

// A redirect-based way of saving the card (a bank's page) sends the browser to the confirmation's
// return_url with the SetupIntent's client secret; the test plays the bank, which refuses the card,
// and opens the return address as Stripe would.
it("back from a redirect that refused the card, the card step says so and saves another card", async () => {
  const context = await newVisitor(browser, { javaScript: true });
  const page = await context.newPage();
  await page.goto(`${server.url.replace("127.0.0.1", "localhost")}/subscribe`);
  await page.getByLabel("Full name").fill("Rami Aziz");
  const email = `rami${seq}@example.com`;
  await page.getByLabel("E-mail").fill(email);
  await page.getByLabel("Phone number").fill(`+1212555${String(seq++).padStart(4, "0")}`);
  await page.getByLabel("Twice a week").check();
  await page.getByRole("button", { name: "Continue to card" }).click();
  const save = page.getByRole("button", { name: "Start my free trial" });
  await expect.poll(() => save.isEnabled(), { timeout: 15_000 }).toBe(true);
  const returnTo = page.url();
  const customer = [...stripe.customers.values()].find((c) => c.email === email)!;
  const setupIntent = [...stripe.setupIntents.values()].filter((si) => si.customer === customer.id).at(-1)!;
  const api = new Stripe(stripe.secretKey, { host: "127.0.0.1", port: Number(new URL(stripe.url).port), protocol: "http" });
  await expect(
    api.setupIntents.confirm(setupIntent.id, { payment_method: "pm_card_chargeDeclined", return_url: returnTo }),
  ).rejects.toThrow(/declined/);
  const back = new URL(returnTo);
  back.searchParams.set("setup_intent", setupIntent.id);
  back.searchParams.set("setup_intent_client_secret", setupIntent.client_secret);
  back.searchParams.set("redirect_status", "failed");
  await page.goto(back.toString());
  await page.getByText(/Payment failed: .*declined/).waitFor();
  // The client secret is gone from the address; the form saves another card.
  expect(new URL(page.url()).search).toBe("?step=payment");
  await expect.poll(() => save.isEnabled(), { timeout: 15_000 }).toBe(true);
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await save.click();
  await page.getByRole("heading", { name: "Subscription activated!" }).waitFor({ timeout: 30_000 });
  // The form asked for a new trial subscription (as a reload does); it has the card.
  expect([...stripe.subscriptions.values()].filter((sub) => sub.customer === customer.id).at(-1)).toMatchObject({
    status: "trialing",
    default_payment_method: expect.stringMatching(/^pm_/),
  });
  await context.close();
});
