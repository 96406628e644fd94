import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { linkIn, waitForMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

// Each test is a whole journey in a real browser: on a busy two-core machine it can take minutes.
vi.setConfig({ testTimeout: 180_000 });

const WEBHOOK_SECRET = "whsec_test_onboarding";
let stripe: FakeStripe;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  stripe = await startFakeStripe();
  [server, browser] = await Promise.all([
    startServer({
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      STRIPE_JS_URL: stripe.jsUrl,
      SEED_DEMO_DATA: "false",
    }),
    launchBrowser(),
  ]);
  stripe.setWebhook(`${server.url}/webhooks/stripe`, WEBHOOK_SECRET);
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await stripe?.close();
});

async function expectAccessible(page: Page, javaScript: boolean) {
  const violations = await axeViolations(page, { javaScript });
  expect(describeViolations(violations), page.url()).toBe("");
}

describe.each([true, false])("a business signs up end to end, JavaScript %s", (javaScript) => {
  it("registers, verifies, pays $1, receives credentials, changes the password and adds a service", async () => {
    const email = `owner-${javaScript ? "js" : "nojs"}@example.com`;
    const context = await newVisitor(browser, { javaScript });
    const page = await context.newPage();

    await page.goto(`${server.url}/get-started`);
    await expectAccessible(page, javaScript);
    await page.getByLabel("Business name").fill(javaScript ? "Bright Smile Dental" : "Café Nour");
    await page.getByLabel("Your name").fill("Amira Haddad");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Type of business").selectOption("healthcare");
    // Whether a number is real is the server's check (the metadata stays out of the browser).
    await page.getByLabel("Business phone").fill("12");
    await page.getByRole("button", { name: "Create my business account" }).click();
    await page.locator("[data-error-summary]").getByText("Enter a valid phone number with its country code").waitFor();
    expect(await page.getByLabel("Business phone").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("E-mail").inputValue()).toBe(email);
    await page.getByLabel("Business phone").fill("+1 212 555 0142");
    await page.getByRole("button", { name: "Create my business account" }).click();
    await page.getByRole("heading", { name: "Check your e-mail" }).waitFor();
    await expectAccessible(page, javaScript);

    const verification = await waitForMail(server.dataDir, email, /Confirm your e-mail/);
    await page.goto(linkIn(verification, "/verify-email"));
    if (!javaScript) await page.getByRole("button", { name: "Confirm my e-mail" }).click();
    await page.getByRole("heading", { name: "Email verified successfully!" }).waitFor();
    await page.getByText("Payment required", { exact: true }).waitFor();
    await expectAccessible(page, javaScript);
    await page.getByRole("link", { name: "Complete payment ($1 starter)" }).click();
    await page.getByRole("heading", { name: "Activate with the $1 starter" }).waitFor();

    if (javaScript) {
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await expectAccessible(page, javaScript);
      await page.getByRole("button", { name: "Pay $1 and activate" }).click();
      await page.getByText("Payment successful!").first().waitFor();
    } else {
      await expectAccessible(page, javaScript);
      await page.getByRole("button", { name: "Pay $1 securely with Stripe" }).click();
      await page.getByRole("button", { name: "Pay" }).click();
    }
    await page.waitForURL(/\/setup-complete\?/);
    const bookingLink = javaScript ? "bright-smile-dental" : "cafe-nour";
    await page.getByText(`/book/${bookingLink}`).waitFor();
    await expectAccessible(page, javaScript);

    const intent = [...stripe.paymentIntents.values()].find((pi) => pi.customer && stripe.customers.get(pi.customer)?.email === email);
    expect(intent).toMatchObject({ amount: 100, currency: "usd", status: "succeeded", setup_future_usage: "off_session" });

    const credentials = await waitForMail(server.dataDir, email, /Your Sakina login/);
    const temporaryPassword = /Temporary password: (\S+)/.exec(credentials.text)?.[1];
    expect(temporaryPassword).toMatch(/^[A-Za-z0-9-]{19}$/);
    expect(credentials.text).toContain(`/book/${bookingLink}`);

    await page.getByRole("link", { name: "Go to login" }).click();
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill(temporaryPassword!);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Choose a new password" }).waitFor();
    await expectAccessible(page, javaScript);
    await page.getByLabel(/^New password/).fill("a calm blue harbour");
    await page.getByLabel("Repeat the new password").fill("a calm blue harbour");
    await page.getByRole("button", { name: "Save password" }).click();

    await page.waitForURL(/\/dashboard/);
    await page.getByRole("heading", { name: "Bookings", level: 1 }).waitFor();
    await expectAccessible(page, javaScript);
    await page.getByRole("link", { name: "Calls", exact: true }).click();
    await page.getByText("AI calls used: 0 of 20 (confirmations, reminders and calls to your number)").first().waitFor();
    await page.getByRole("link", { name: "Bookings", exact: true }).click();
    await page.getByRole("link", { name: "Add your first service" }).click();
    await page.getByRole("heading", { name: "Add your first service" }).waitFor();
    await expectAccessible(page, javaScript);
    await page.getByLabel("Service name").last().fill("Check-up");
    await page.getByLabel("Price").last().fill("40");
    await page.getByLabel("Duration in minutes").last().fill("30");
    await page.getByRole("button", { name: "Add service" }).click();
    await page.getByText("Service added: Check-up").waitFor();
    await page.getByText("30 min · $40.00").waitFor();

    // The $99/month plan is prepared on the saved card, trialing until the 7 starter days end.
    const subscription = await waitFor(() => [...stripe.subscriptions.values()].find((s) => s.customer === intent!.customer), {
      what: "the monthly subscription",
    });
    expect(subscription.status).toBe("trialing");
    expect(subscription.trial_end - Math.floor(Date.now() / 1000)).toBeGreaterThan(6.9 * 86_400);
    expect(subscription.items.data).toHaveLength(2);
    await context.close();
  });
});
