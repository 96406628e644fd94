import Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { httpClient } from "../support/http-client";
import { linkIn, readOutbox, waitForMail } from "../support/outbox";
import { startAppInProcess } from "../support/app-in-process";
import { jobsIdle } from "../support/jobs";
import { demoOwnerPassword } from "../support/demo-owner";

const WEBHOOK_SECRET = "whsec_test_security";
let fake: FakeStripe;
let server: Awaited<ReturnType<typeof startAppInProcess>>;
let stripe: Stripe;

beforeAll(async () => {
  fake = await startFakeStripe();
  // In this process, so a test can see the app's job queue go idle before counting e-mails.
  server = await startAppInProcess({
    STRIPE_SECRET_KEY: fake.secretKey,
    STRIPE_PUBLISHABLE_KEY: fake.publishableKey,
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_URL: fake.url,
    STRIPE_JS_URL: fake.jsUrl,
    SEED_DEMO_DATA: "true",
    TRUST_PROXY: "1",
  });
  fake.setWebhook(`${server.url}/webhooks/stripe`, WEBHOOK_SECRET);
  const api = new URL(fake.url);
  stripe = new Stripe(fake.secretKey, { host: api.hostname, port: Number(api.port), protocol: "http", maxNetworkRetries: 0 });
});

afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

let counter = 0;
/** Registers and verifies a business through the APIs; returns its browser-like client and id. */
async function verifiedBusiness() {
  counter += 1;
  const email = `owner${counter}@example.com`;
  // Registrations are limited per visitor: each test business comes from its own address.
  const client = httpClient(server.url, { forwardedFor: `203.0.113.${counter}` });
  const registered = await client.postJson("/api/business/register", {
    name: `Test Studio ${counter}`,
    ownerName: "Test Owner",
    email,
    phone: "+44 20 7946 0958",
  });
  expect(registered.status).toBe(201);
  const mail = await waitForMail(server.dataDir, email, /Confirm your e-mail/);
  const link = new URL(linkIn(mail, "/verify-email"));
  const verified = await client.postJson("/api/verify-email-and-setup", {
    token: link.searchParams.get("token"),
    email: link.searchParams.get("email"),
  });
  expect(verified.status).toBe(200);
  const { businessId } = await verified.json();
  return { client, email, businessId: businessId as number, name: `Test Studio ${counter}` };
}

async function paidIntent(client: ReturnType<typeof httpClient>, businessId: number) {
  const created = await client.postJson("/api/create-subscription", { businessId });
  expect(created.status).toBe(200);
  const { paymentIntentId } = await created.json();
  await stripe.paymentIntents.confirm(paymentIntentId, { payment_method: "pm_card_visa", return_url: "https://example.com/return" });
  return paymentIntentId as string;
}

/** An activated business whose owner has chosen a password through a reset link. */
async function activatedOwner(password: string) {
  const { client, businessId, email } = await verifiedBusiness();
  const intentId = await paidIntent(client, businessId);
  expect((await client.postJson("/api/activate-business", { businessId, paymentIntentId: intentId })).status).toBe(200);
  await waitForMail(server.dataDir, email, /Your Sakina login/);
  const owner = httpClient(server.url);
  await owner.postJson("/api/auth/forgot-password", { email });
  const mail = await waitForMail(server.dataDir, email, /Reset your Sakina password/);
  const link = new URL(linkIn(mail, "/reset-password"));
  const target = `${link.pathname}${link.search}`;
  const fields = { token: link.searchParams.get("token")!, email, password, confirm: password };
  const reset = await owner.postForm(target, fields, { tokenFrom: target });
  return { owner, email, reset, target, fields };
}

describe("the Stripe webhook", () => {
  const payload = JSON.stringify({ id: "evt_forged", object: "event", type: "payment_intent.succeeded", data: { object: {} } });

  it("rejects a request without a signature, with a forged one, or with an old one", async () => {
    const send = (signature?: string) =>
      fetch(`${server.url}/webhooks/stripe`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...(signature ? { "Stripe-Signature": signature } : {}) },
        body: payload,
      });
    expect((await send()).status).toBe(400);
    const forged = stripe.webhooks.generateTestHeaderString({ payload, secret: "whsec_not_ours" });
    expect((await send(forged)).status).toBe(400);
    const replayed = stripe.webhooks.generateTestHeaderString({
      payload,
      secret: WEBHOOK_SECRET,
      timestamp: Math.floor(Date.now() / 1000) - 3600,
    });
    expect((await send(replayed)).status).toBe(400);
  });

  it("activates a paid business once, however often the event arrives", async () => {
    const { email, businessId, client } = await verifiedBusiness();
    const intentId = await paidIntent(client, businessId);
    await fake.flush();
    await waitForMail(server.dataDir, email, /Your Sakina login/);
    const event = fake.events.find((e) => e.type === "payment_intent.succeeded" && e.data.object.id === intentId)!;
    expect(await fake.resend(event.id)).toBe(200);
    expect(await fake.resend(event.id)).toBe(200);
    const activate = await client.postJson("/api/activate-business", { businessId, paymentIntentId: intentId });
    expect(activate.status).toBe(200);
    // Every request is answered and the queue has nothing left to run: a second e-mail would be out by now.
    await jobsIdle(server.services);
    const credentials = (await readOutbox(server.dataDir)).filter((m) => m.to.includes(email) && /Your Sakina login/.test(m.subject));
    expect(credentials).toHaveLength(1);
  });
});

describe("activation checks the PaymentIntent with Stripe", () => {
  it.each([
    ["the wrong amount", { amount: 500, currency: "usd", status: "succeeded" }, 400],
    ["the wrong currency", { amount: 100, currency: "eur", status: "succeeded" }, 400],
    ["a payment not yet made", { amount: 100, currency: "usd", status: "requires_payment_method" }, 402],
  ])("refuses %s", async (_name, fields, status) => {
    const { client, businessId } = await verifiedBusiness();
    const intent = fake.seedPaymentIntent({ ...fields, metadata: { purpose: "business_starter", businessId: String(businessId) } });
    const response = await client.postJson("/api/activate-business", { businessId, paymentIntentId: intent.id });
    expect(response.status).toBe(status);
    expect((await response.json()).error).toMatch(/^Setup failed/);
    // Still waiting for its payment: the payment step is still offered.
    expect((await client.postJson("/api/create-subscription", { businessId })).status).toBe(200);
  });

  it("refuses another business's payment", async () => {
    const first = await verifiedBusiness();
    const second = await verifiedBusiness();
    const intentId = await paidIntent(first.client, first.businessId);
    const response = await second.client.postJson("/api/activate-business", { businessId: second.businessId, paymentIntentId: intentId });
    expect(response.status).toBe(400);
    expect((await second.client.postJson("/api/create-subscription", { businessId: second.businessId })).status).toBe(200);
  });

  it("refuses a business this browser did not register", async () => {
    const { businessId } = await verifiedBusiness();
    const stranger = httpClient(server.url);
    expect((await stranger.postJson("/api/create-subscription", { businessId })).status).toBe(403);
  });

  it("activates once under twenty concurrent requests", async () => {
    const { client, businessId, email } = await verifiedBusiness();
    const intentId = await paidIntent(client, businessId);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => client.postJson("/api/activate-business", { businessId, paymentIntentId: intentId })),
    );
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
    await fake.flush();
    await waitForMail(server.dataDir, email, /Your Sakina login/);
    // Every request is answered and the queue has nothing left to run: a second e-mail would be out by now.
    await jobsIdle(server.services);
    const credentials = (await readOutbox(server.dataDir)).filter((m) => m.to.includes(email) && /Your Sakina login/.test(m.subject));
    expect(credentials).toHaveLength(1);
  });
});

describe("passwords", () => {
  it("answers forgot-password the same way whether or not the address exists", async () => {
    const client = httpClient(server.url);
    const known = await client.postJson("/api/auth/forgot-password", { email: "demo@sakina.app" });
    const unknown = await client.postJson("/api/auth/forgot-password", { email: "nobody@example.com" });
    expect(known.status).toBe(unknown.status);
    expect(await known.json()).toEqual(await unknown.json());
    const page = await client.postForm("/forgot-password", { email: "nobody@example.com" });
    const pageKnown = await client.postForm("/forgot-password", { email: "demo@sakina.app" });
    const strip = (html: string) => html.replace(/nonce="[^"]*"|value="[^"]{20,}"|nobody@example\.com|demo@sakina\.app/g, "");
    expect(strip(await page.text())).toBe(strip(await pageKnown.text()));
    await waitForMail(server.dataDir, "demo@sakina.app", /Reset your Sakina password/);
    expect((await readOutbox(server.dataDir)).some((m) => m.to.includes("nobody@example.com"))).toBe(false);
  });

  it("uses a reset link once, and the new password signs the owner in", async () => {
    const { reset, target, fields, email } = await activatedOwner("a fresh long password");
    expect(reset.status).toBe(302);
    expect(reset.headers.get("location")).toBe("/dashboard");
    const again = await httpClient(server.url).postForm(
      target,
      { ...fields, password: "another long password", confirm: "another long password" },
      { tokenFrom: target },
    );
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("This link is invalid, expired, or already used.");
    const login = await httpClient(server.url).postJson("/api/auth/login", { email, password: "a fresh long password" });
    expect(login.status).toBe(200);
    expect(await login.json()).toMatchObject({ user: { email }, mustChangePassword: false });
  });

  it("makes one address wait after five wrong passwords for an account", async () => {
    const client = httpClient(server.url);
    const attempts = [];
    for (let i = 0; i < 8; i++)
      attempts.push(await client.postJson("/api/auth/login", { email: "ratelimit@example.com", password: "wrong-password" }));
    expect(attempts.map((r) => r.status)).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    expect(Number(attempts[5]!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await attempts[5]!.json()).error).toMatch(/^Too many attempts\. Please wait 1 minutes/);
  });
});

describe("the dashboard belongs to its owner", () => {
  it("does not let one owner see or change another business's services", async () => {
    const demoPassword = await demoOwnerPassword(server.url, server.dataDir);
    const demo = httpClient(server.url);
    expect((await demo.postJson("/api/auth/login", { email: "demo@sakina.app", password: demoPassword })).status).toBe(200);
    expect(await (await demo.get("/dashboard/services")).text()).toContain("Haircut");

    const { owner } = await activatedOwner("other owner password");
    expect(await (await owner.get("/dashboard/services")).text()).not.toContain("Haircut");
    // The demo's services are the first three rows; the other owner tries to switch them off.
    for (let serviceId = 1; serviceId <= 3; serviceId++) {
      const response = await owner.postForm(
        "/dashboard/services",
        { intent: "toggle-service", serviceId: String(serviceId), active: "false" },
        { tokenFrom: "/dashboard/services" },
      );
      expect(response.status).toBe(400);
    }
    const demoPage = await (await demo.get("/dashboard/services")).text();
    expect(demoPage).toContain("Haircut");
    expect(demoPage).not.toContain("Inactive");
  });
});

describe("dashboard forms", () => {
  it("answer bad service, hours and settings input with field errors", async () => {
    const { owner } = await activatedOwner("dashboard form tester");
    const service = await owner.postForm(
      "/dashboard/services",
      { intent: "add-service", name: "", price: "abc", currency: "XYZ", durationMinutes: "3" },
      { tokenFrom: "/dashboard/services" },
    );
    expect(service.status).toBe(400);
    const serviceHtml = await service.text();
    for (const message of [
      "Enter the service name.",
      "Enter a price like 25 or 25.50.",
      "Choose a currency from the list.",
      "Enter a whole number of minutes between 5 and 720.",
    ]) {
      expect(serviceHtml).toContain(message);
    }
    const hours = await owner.postForm(
      "/dashboard/hours",
      { intent: "save-hours", d1_open: "on", d1_start1: "17:00", d1_end1: "09:00", d2_open: "on", d2_start1: "9am", d2_end1: "12:00" },
      { tokenFrom: "/dashboard/hours" },
    );
    expect(hours.status).toBe(400);
    const hoursHtml = await hours.text();
    expect(hoursHtml).toContain("Closing must be after opening.");
    expect(hoursHtml).toContain("Enter a time like 09:00.");
    // The times are chosen from a list in the page's clock; a saved time off its quarter hours stays chosen.
    const saved = await owner.postForm(
      "/dashboard/hours",
      { intent: "save-hours", d1_open: "on", d1_start1: "09:10", d1_end1: "17:00", d1_start2: "", d1_end2: "" },
      { tokenFrom: "/dashboard/hours" },
    );
    expect(saved.status).toBe(302);
    const week = await (await owner.get("/dashboard/hours?lng=en")).text();
    expect(week).toContain('<option value="09:10" selected="">9:10 AM</option>');
    expect(week).toContain('<option value="17:00" selected="">5:00 PM</option>');
    expect(week).toContain('<option value="" selected="">Not used</option>');
    expect(week).not.toContain('type="time"');
    const german = await (await owner.get("/dashboard/hours?lng=de")).text();
    expect(german).toContain('<option value="17:00" selected="">17:00</option>');
    await owner.get("/dashboard/hours?lng=en"); // the language chosen stays for the next pages
    const settings = await owner.postForm(
      "/dashboard/settings",
      {
        intent: "save-settings",
        phone: "12",
        timeZone: "Mars/Olympus",
        minimumNoticeMinutes: "7",
        defaultLanguage: "xx",
        confirmationLanguage: "en",
        confirmationVoice: "robot",
        description: "x".repeat(501),
      },
      { tokenFrom: "/dashboard/settings" },
    );
    expect(settings.status).toBe(400);
    const settingsHtml = await settings.text();
    for (const message of [
      "Enter a valid phone number",
      "Choose a time zone from the list.",
      "Choose a notice period from the list.",
      "Choose a voice from the list.",
      "Keep this under 500 characters.",
    ]) {
      expect(settingsHtml).toContain(message);
    }
  });
});

describe("registration input", () => {
  it.each([
    [{}, ["name", "ownerName", "email", "phone"]],
    [{ name: "x".repeat(121), ownerName: "A", email: "a@example.com", phone: "+12125550100" }, ["name"]],
    [{ name: "A", ownerName: "A", email: "not-an-email", phone: "+12125550100" }, ["email"]],
    [{ name: "A", ownerName: "A", email: "a@example.com", phone: "12" }, ["phone"]],
    [{ name: "A", ownerName: "A", email: "a@example.com", phone: "+12125550100", industry: "casino" }, ["industry"]],
  ])("answers %j with field errors for %j", async (body, fields) => {
    const response = await httpClient(server.url).postJson("/api/business/register", body);
    expect(response.status).toBe(400);
    const json = await response.json();
    expect(Object.keys(json.fields).sort()).toEqual([...fields].sort());
  });

  it("answers malformed JSON with a 400, not a 500", async () => {
    const response = await fetch(`${server.url}/api/business/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
  });

  it("answers an already active e-mail with 409 login", async () => {
    const response = await httpClient(server.url).postJson("/api/business/register", {
      name: "Again",
      ownerName: "Demo",
      email: "demo@sakina.app",
      phone: "+12125550100",
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({ action: "login", error: "This email is already registered. Please login instead." });
  });
});

describe("registering with an address already registered", () => {
  const details = (email: string) => ({ name: "Someone Else's Studio", ownerName: "Stranger", email, phone: "+44 20 7946 0999" });

  it("answers a stranger as for a new address, hands them nothing of the verified, unpaid business, and e-mails its owner the way on", async () => {
    const { client: starter, email, businessId, name } = await verifiedBusiness();
    counter += 1;
    const stranger = httpClient(server.url, { forwardedFor: `203.0.113.${counter}` });
    const fresh = await stranger.postJson("/api/business/register", details(`fresh${counter}@example.com`));
    const again = await stranger.postJson("/api/business/register", details(email));

    // The same status and the same body, but for the address: nothing tells the two apart.
    expect(again.status).toBe(fresh.status);
    expect(again.status).toBe(201);
    const freshBody = await fresh.json();
    const againBody = await again.json();
    expect(JSON.stringify(againBody).replaceAll(email, "ADDRESS")).toBe(
      JSON.stringify(freshBody).replaceAll(`fresh${counter}@example.com`, "ADDRESS"),
    );
    expect(JSON.stringify(againBody)).not.toContain(name);
    expect(JSON.stringify(againBody)).not.toContain(String(businessId));

    // The stranger's browser holds no registration: no payment, no activation, no business page.
    expect((await stranger.postJson("/api/create-subscription", { businessId })).status).toBe(403);
    expect((await stranger.postJson("/api/activate-business", { businessId, paymentIntentId: "pi_123" })).status).toBe(403);
    const page = await (await stranger.get("/get-started")).text();
    expect(page).toContain("Check your e-mail");
    expect(page).not.toContain(name);

    // The owner's inbox gets a link to continue; whichever browser opens it may pay.
    const mail = await waitForMail(server.dataDir, email, /Continue the registration of/);
    expect(mail.text).toContain(name);
    const link = new URL(linkIn(mail, "/verify-email"));
    const ownersPhone = httpClient(server.url);
    const opened = await ownersPhone.postJson("/api/verify-email-and-setup", {
      token: link.searchParams.get("token"),
      email: link.searchParams.get("email"),
    });
    expect(opened.status).toBe(200);
    expect((await ownersPhone.postJson("/api/create-subscription", { businessId })).status).toBe(200);
    // The browser that started the signup keeps its place, as before.
    expect((await starter.postJson("/api/create-subscription", { businessId })).status).toBe(200);
  });

  it("leads the registration form to the same page as a new address, and re-sends an unverified owner's verification link", async () => {
    counter += 1;
    const email = `unverified${counter}@example.com`;
    const starter = httpClient(server.url, { forwardedFor: `203.0.113.${counter}` });
    expect((await starter.postJson("/api/business/register", { ...details(email), name: "Unverified Studio" })).status).toBe(201);
    await waitForMail(server.dataDir, email, /Confirm your e-mail/);

    counter += 1;
    const stranger = httpClient(server.url, { forwardedFor: `203.0.113.${counter}` });
    const fields = { intent: "register", ...details(email), industry: "service" };
    const posted = await stranger.postForm("/get-started", fields);
    const fresh = await httpClient(server.url, { forwardedFor: `203.0.113.${counter}` }).postForm("/get-started", {
      ...fields,
      email: `fresh${counter}@example.com`,
    });
    expect(posted.status).toBe(fresh.status);
    expect(posted.headers.get("location")).toBe(fresh.headers.get("location"));
    const page = await (await stranger.get("/get-started")).text();
    expect(page).toContain("Check your e-mail");
    expect(page).not.toContain("Unverified Studio");

    // The owner gets a second verification link; the stranger's resend is answered as the owner's would be.
    await waitForMail(server.dataDir, email, /Confirm your e-mail/, { after: 1 });
    const resent = await stranger.postForm("/get-started", { intent: "resend" });
    expect(resent.status).toBe(302);
    await waitForMail(server.dataDir, email, /Confirm your e-mail/, { after: 2 });
  });
});

describe("the registration form without JavaScript", () => {
  it("shows each field's error on the page", async () => {
    const client = httpClient(server.url);
    const response = await client.postForm("/get-started", {
      intent: "register",
      name: "",
      ownerName: "",
      email: "bad",
      phone: "abc",
      industry: "casino",
    });
    expect(response.status).toBe(400);
    const html = await response.text();
    for (const message of [
      "Enter your business name.",
      "Enter your name.",
      "Enter an e-mail address like name@example.com.",
      "Enter a valid phone number",
      "Choose a type of business from the list.",
    ]) {
      expect(html).toContain(message);
    }
  });
});
