// The owner's plan page without JavaScript: usage and the next invoice, cancel at the period's
// end, take it back, and start the monthly plan now; strangers get the sign-in page.
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, businesses } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { BUSINESS_PLAN } from "~/features/business/signup/onboarding.server";
import type { FakeStripe } from "../fakes/stripe";
import { type InProcessApp, startAppWithFakes, stripeClient } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";

let fake: FakeStripe;
let app: InProcessApp;
let close: () => Promise<void>;
let owner: ReturnType<typeof httpClient>;
let subscriptionId: string;

beforeAll(async () => {
  ({ app, stripe: fake, close } = await startAppWithFakes({ stripe: true }));
  const stripe = stripeClient(fake);
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  const customer = await stripe.customers.create({ email: "plan-page@example.com" });
  const pm = await stripe.paymentMethods.attach("pm_card_visa", { customer: customer.id });
  subscriptionId = await app.services.billing!.subscribe(
    {
      customerId: customer.id,
      priceIds: await app.services.billing!.ensureMeteredPlan(BUSINESS_PLAN),
      trialEnd: demo!.starterEndsAt!,
      paymentMethodId: pm.id,
      metadata: { purpose: "business_plan", businessId: String(demo!.id) },
    },
    "plan-page-subscription",
  );
  await db
    .update(businesses)
    .set({ stripeCustomerId: customer.id, stripeSubscriptionId: subscriptionId })
    .where(eq(businesses.id, demo!.id));
  await db.insert(accounts).values({
    businessId: demo!.id,
    name: "Plan Owner",
    email: "plan-owner@example.com",
    passwordHash: await hashPassword("plan page password"),
    mustChangePassword: false,
  });
  owner = httpClient(app.url);
  expect((await owner.postJson("/api/auth/login", { email: "plan-owner@example.com", password: "plan page password" })).status).toBe(200);
});

afterAll(() => close?.());

/** The page's words: React's text separators (<!-- -->) join, elements separate. */
const text = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/\s+/g, " ");

describe("the owner's plan page", () => {
  it("is only for the signed-in owner", async () => {
    const response = await httpClient(app.url).get("/dashboard/plan");
    expect(response.status).toBe(401);
  });

  it("shows the starter's usage and the first invoice, and cancels, keeps and upgrades with plain forms", async () => {
    let page = text(await (await owner.get("/dashboard/plan")).text());
    expect(page).toContain("Your plan: Starter");
    expect(page).toContain("AI calls used: 0 of 20 (confirmations, reminders and calls to your number)");
    expect(page).toMatch(/Next invoice: about \$99\.00 on /);

    let response = await owner.postForm("/dashboard/plan", { intent: "cancel" });
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/dashboard/plan?done=cancelled");
    expect(fake.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(true);
    page = text(await (await owner.get("/dashboard/plan?done=cancelled")).text());
    expect(page).toContain("Your plan will end at the end of this period.");
    expect(page).toContain("Keep my plan");

    response = await owner.postForm("/dashboard/plan", { intent: "keep" });
    expect(response.headers.get("location")).toBe("/dashboard/plan?done=kept");
    expect(fake.subscriptions.get(subscriptionId)!.cancel_at_period_end).toBe(false);

    response = await owner.postForm("/dashboard/plan", { intent: "upgrade" });
    expect(response.headers.get("location")).toBe("/dashboard/plan?done=upgraded");
    expect(fake.subscriptions.get(subscriptionId)!.status).toBe("active");
    page = text(await (await owner.get("/dashboard/plan?done=upgraded")).text());
    expect(page).toContain("The monthly plan has started.");
    expect(page).toContain("Your plan: Monthly plan");
    expect(page).toContain("AI calls used: 0 of 100 (confirmations, reminders and calls to your number)");
    expect(page).toMatch(/Next invoice: about \$99\.00 on /);
    expect(page).not.toContain("Start the monthly plan now");
  });

  it("answers an unknown action with a message, not a 500", async () => {
    const response = await owner.postForm("/dashboard/plan", { intent: "free-forever" });
    expect(response.status).toBe(400);
  });
});
