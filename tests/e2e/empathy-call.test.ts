import type { Browser, Page } from "playwright-core";
import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { axeViolations, describeViolations, launchBrowser, newVisitor } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";
import { converse } from "../support/conversation";

// Each test is a whole journey in a real browser: on a busy two-core machine it can take minutes.
vi.setConfig({ testTimeout: 180_000 });

const WEBHOOK_SECRET = "whsec_test_empathy_e2e";
let stripe: FakeStripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
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
      OPENAI_API_KEY: realtime.apiKey,
      OPENAI_BASE_URL: realtime.url,
      SEED_DEMO_DATA: "false",
      CALL_DELIVERED_MIN_SECONDS: "1",
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
  await realtime?.close();
  await stripe?.close();
});

async function expectAccessible(page: Page, javaScript: boolean) {
  const violations = await axeViolations(page, { javaScript });
  expect(describeViolations(violations), page.url()).toBe("");
}

/** The call placed on the fake Twilio for a number, and the voice session (number `index`) the app opened for it. */
async function placedCallTo(phone: string, index: number) {
  const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
    what: `a call to ${phone}`,
    timeoutMs: 20_000,
  });
  await twilio.stream(call.sid, 20_000);
  const update = (await realtime.waitForEvent(index, "session.update", undefined, 20_000)) as any;
  return { call, update };
}

const cases = [
  {
    name: "card, JavaScript on",
    javaScript: true,
    wallet: false,
    phone: "+12125550171",
    language: "spanish",
    languageName: "Spanish",
    voice: "Male voice",
    expectedVoice: "echo",
  },
  {
    name: "wallet, JavaScript on",
    javaScript: true,
    wallet: true,
    phone: "+12125550172",
    language: "french",
    languageName: "French",
    voice: "Female voice",
    expectedVoice: "shimmer",
  },
  {
    name: "Stripe Checkout, JavaScript off",
    javaScript: false,
    wallet: false,
    phone: "+12125550173",
    language: "german",
    languageName: "German",
    voice: "Male voice",
    expectedVoice: "echo",
  },
];

describe("the $5 empathy call, end to end", () => {
  it.each(cases)(
    "$name: details, payment, then the call in the chosen language and voice",
    async ({ javaScript, wallet, phone, language, languageName, voice, expectedVoice }) => {
      const sessionIndex = realtime.sessions.length;
      const context = await newVisitor(browser, { javaScript });
      const page = await context.newPage();
      await page.goto(server.url);
      await page.getByRole("heading", { name: "Request your call" }).waitFor();
      await page.getByText("not crisis intervention").first().waitFor();
      await page.getByRole("heading", { name: "In an emergency, contact emergency services now" }).waitFor();
      await expectAccessible(page, javaScript);

      // A number that is no phone number is refused next to the field.
      await page.getByLabel(/^Phone number/).fill("12345");
      await page.getByLabel("Call language").selectOption(language);
      await page.getByLabel(voice, { exact: true }).check();
      await page.getByLabel("I confirm that I am 18 or older.").check();
      await page.getByLabel("I have read the transcript notice and agree to it.").check();
      await page.getByRole("button", { name: "Continue to payment $5" }).click();
      // The message is under the field and, as a link to it, in the error summary.
      await page.getByText("This is not a valid phone number.").first().waitFor();
      await expectAccessible(page, javaScript);

      await page.getByLabel(/^Phone number/).fill(phone.replace("+1", "+1 ").replace(/(\d{3})(\d{3})(\d{4})$/, "$1 $2 $3"));
      if (!javaScript) {
        // The server answered the form: the choices are kept, the confirmations asked again.
        await page.getByLabel("I confirm that I am 18 or older.").check();
        await page.getByLabel("I have read the transcript notice and agree to it.").check();
      }
      await page.getByRole("button", { name: "Continue to payment $5" }).click();
      await page.getByRole("heading", { name: "Call summary" }).waitFor();
      await page.getByText("10 minutes").first().waitFor();
      await page.getByText("$5.00").first().waitFor();
      await page.getByRole("link", { name: "Back to edit details" }).waitFor();

      if (javaScript) {
        await page.getByLabel("Card number").waitFor();
        // Checked once the payment form is ready (the Pay button enabled).
        await page.getByRole("button", { name: "Pay $5.00" }).and(page.locator(":enabled")).waitFor();
        await expectAccessible(page, javaScript);
        if (wallet) {
          await page.getByRole("button", { name: "Pay with wallet" }).click();
        } else {
          // A declined card says why; the second card pays the same PaymentIntent.
          await page.getByLabel("Card number").fill("4000 0000 0000 0002");
          await page.getByRole("button", { name: "Pay $5.00" }).click();
          await page.getByText(/Payment failed: .*declined/).waitFor();
          await page.getByLabel("Card number").fill("4242 4242 4242 4242");
          await page.getByRole("button", { name: "Pay $5.00" }).click();
        }
      } else {
        await expectAccessible(page, javaScript);
        await page.getByRole("button", { name: "Pay $5 securely with Stripe" }).click();
        await page.getByRole("button", { name: "Pay" }).click();
      }
      await page.waitForURL(/\/empathy\/\d+\./, { timeout: 20_000 });
      await page.getByRole("heading", { name: "Call initiated!" }).waitFor();
      await page.getByText("within 30-60 seconds (up to 2-3 minutes when demand is high)").waitFor();
      await expectAccessible(page, javaScript);

      const intents = [...stripe.paymentIntents.values()].filter((pi) => pi.metadata?.purpose === "empathy_call");
      expect(intents.at(-1)).toMatchObject({ amount: 500, currency: "usd", status: "succeeded" });
      expect(intents.filter((pi) => pi.status !== "succeeded")).toHaveLength(0);

      const { call, update } = await placedCallTo(phone, sessionIndex);
      expect(call.params.TimeLimit).toBe("600");
      expect(update.session.audio.output.voice).toBe(expectedVoice);
      expect(update.session.instructions).toContain(`Speak only ${languageName}`);
      // A real conversation (the greeting heard, the caller heard), so the paid call counts.
      await converse(twilio, realtime, call.sid, 1);
      if (javaScript) await page.getByText("Your call has ended.").waitFor({ timeout: 15_000 });
      await context.close();
    },
  );

  // A redirect-based method (a bank's page) sends the customer to the confirmation's return_url
  // with the PaymentIntent's client secret; the fake Stripe.js pays cards in the page, so the test
  // plays the bank: it settles the intent and opens the return address as Stripe would.
  it.each([
    { outcome: "paid", phone: "+12125550174" },
    { outcome: "refused", phone: "+12125550175" },
  ])("back from a payment method's redirect ($outcome), the payment step shows how it ended", async ({ outcome, phone }) => {
    const context = await newVisitor(browser, { javaScript: true });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByLabel(/^Phone number/).fill(phone);
    await page.getByLabel("Call language").selectOption("english");
    await page.getByLabel("I confirm that I am 18 or older.").check();
    await page.getByLabel("I have read the transcript notice and agree to it.").check();
    await page.getByRole("button", { name: "Continue to payment $5" }).click();
    await page.getByRole("button", { name: "Pay $5.00" }).and(page.locator(":enabled")).waitFor();
    const returnTo = page.url();
    expect(new URL(returnTo).search).toBe("?step=payment");
    const created = await page.evaluate(
      async (body) => {
        const response = await fetch("/api/create-payment-intent", {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: JSON.stringify(body),
        });
        return (await response.json()) as { clientSecret: string; paymentIntentId: string };
      },
      { amount: 5, phone, language: "english", voice: "female", email: "", adult: true, recordingAccepted: true },
    );
    const api = new Stripe(stripe.secretKey, { host: "127.0.0.1", port: Number(new URL(stripe.url).port), protocol: "http" });
    const paymentMethod = outcome === "paid" ? "pm_card_visa" : "pm_card_chargeDeclined";
    await api.paymentIntents
      .confirm(created.paymentIntentId, { payment_method: paymentMethod, return_url: returnTo })
      .catch(() => undefined);
    const back = new URL(returnTo);
    back.searchParams.set("payment_intent", created.paymentIntentId);
    back.searchParams.set("payment_intent_client_secret", created.clientSecret);
    back.searchParams.set("redirect_status", outcome === "paid" ? "succeeded" : "failed");
    await page.goto(back.toString());
    if (outcome === "paid") {
      await page.waitForURL(/\/empathy\/\d+\./, { timeout: 20_000 });
      await page.getByRole("heading", { name: "Call initiated!" }).waitFor();
    } else {
      await page.getByText(/Payment failed: .*declined/).waitFor();
      // The client secret is gone from the address; the form pays again.
      expect(new URL(page.url()).search).toBe("?step=payment");
      await page.getByRole("button", { name: "Pay $5.00" }).and(page.locator(":enabled")).waitFor();
      await page.getByLabel("Card number").fill("4242 4242 4242 4242");
      await page.getByRole("button", { name: "Pay $5.00" }).click();
      await page.waitForURL(/\/empathy\/\d+\./, { timeout: 20_000 });
    }
    // The paid call rings; nobody is there to talk, so it is hung up.
    const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: `a call to ${phone}`,
      timeoutMs: 20_000,
    });
    twilio.hangup(call.sid);
    await context.close();
  });

  it("asks for the phone number when it is left empty", async () => {
    const context = await newVisitor(browser, { javaScript: true });
    const page = await context.newPage();
    await page.goto(server.url);
    await page.getByRole("button", { name: "Continue to payment $5" }).click();
    await page.getByText("Phone number required - Please enter your phone number to receive the call").first().waitFor();
    await page.getByText("Please confirm that you are 18 or older.").first().waitFor();
    await context.close();
  });
});
