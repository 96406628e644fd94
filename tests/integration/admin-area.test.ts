import { and, eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordFunnelEventOnce } from "#models/funnel";
import { accounts, auditLog, businesses, calls, funnelEvents, payments, supportTickets } from "#models/schema";
import { placeCallJob } from "~/calls/engine.server";
import type { FakeStripe } from "../fakes/stripe";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { demoOwnerPassword } from "../support/demo-owner";
import { enrolledAdmin } from "../support/admin";
import { waitForMail } from "../support/outbox";

let stripe: FakeStripe;
let app: InProcessApp;
let close: () => Promise<void>;
let admin: Awaited<ReturnType<typeof enrolledAdmin>>;

beforeAll(async () => {
  ({ app, stripe, close } = await startAppWithFakes({ stripe: true }));
  admin = await enrolledAdmin(app);
});

afterAll(() => close?.());

async function demoBusiness() {
  const [business] = await app.services.db.select().from(businesses).where(eq(businesses.email, "demo@sakina.app"));
  return business!;
}

describe("the admin area", () => {
  it("suspends a business: its booking page says so, its calls stop, the audit log shows who did it; reactivating undoes it", async () => {
    const business = await demoBusiness();
    const list = await (await admin.client.get("/admin/businesses")).text();
    expect(list).toContain(business.name);
    expect(list).toContain(`aria-label="Suspend ${business.name}"`);
    // The services the booking page offers, read (and cached) before the suspension.
    const servicesApi = `/api/booking/services/${business.bookingLink}`;
    expect((await httpClient(app.url).get(servicesApi)).status).toBe(200);

    const suspended = await admin.client.postForm("/admin/businesses", { intent: "suspend", id: String(business.id) });
    expect(suspended.status).toBe(302);
    expect(suspended.headers.get("location")).toBe("/admin/businesses");
    expect((await demoBusiness()).status).toBe("suspended");

    const page = await httpClient(app.url).get(`/book/${business.bookingLink}`);
    expect(page.status).toBe(503);
    expect(await page.text()).toContain("is not taking bookings right now");
    const api = await httpClient(app.url).get(`/api/booking/business/${business.bookingLink}`);
    expect(api.status).toBe(404);
    expect((await httpClient(app.url).get(servicesApi)).status).toBe(404);

    // A call of the business queued before the suspension is not placed.
    const [queued] = await app.services.db
      .insert(calls)
      .values({ purpose: "test", language: "en", voice: "sage", toNumber: "+12125550100", businessId: business.id, timeLimitSeconds: 180 })
      .returning();
    await placeCallJob.handle({ callId: queued!.id, origin: app.url }, app.services);
    const [stopped] = await app.services.db.select().from(calls).where(eq(calls.id, queued!.id));
    expect(stopped).toMatchObject({ status: "failed", lastError: "The business is suspended: its calls are paused." });

    // A second click finds it already suspended: nothing changes, nothing more is logged.
    const again = await admin.client.postForm("/admin/businesses", { intent: "suspend", id: String(business.id) });
    expect(again.status).toBe(302);
    const entries = await app.services.db.select().from(auditLog).where(eq(auditLog.action, "business.suspend"));
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actorEmail: admin.email, targetType: "business", targetId: String(business.id) });

    const audit = await (await admin.client.get("/admin/audit")).text();
    expect(audit).toContain("business.suspend");
    expect(audit).toContain(`name: ${business.name}`);

    const reactivated = await admin.client.postForm("/admin/businesses", { intent: "reactivate", id: String(business.id) });
    expect(reactivated.status).toBe(302);
    expect((await demoBusiness()).status).toBe("active");
    expect((await httpClient(app.url).get(`/book/${business.bookingLink}`)).status).toBe(200);
    expect((await httpClient(app.url).get(servicesApi)).status).toBe(200);
  });

  it("lists flagged calls with their redacted transcript and takes one off the queue when reviewed", async () => {
    const [call] = await app.services.db
      .insert(calls)
      .values({
        purpose: "empathy",
        language: "en",
        voice: "sage",
        status: "completed",
        timeLimitSeconds: 600,
        flaggedForReview: true,
        flagReason: "crisis language",
        transcript: [
          { role: "caller", text: "I can't go on, my number is [phone]", at: new Date().toISOString() },
          { role: "agent", text: "You are not alone. Please call 988.", at: new Date().toISOString() },
        ],
      })
      .returning();
    const queue = await (await admin.client.get("/admin/reviews")).text();
    expect(queue).toContain(`id="review-${call!.id}"`);
    expect(queue).toContain("my number is [phone]");

    const reviewed = await admin.client.postForm("/admin/reviews", { intent: "reviewed", id: String(call!.id) });
    expect(reviewed.status).toBe(302);
    expect(await (await admin.client.get("/admin/reviews")).text()).not.toContain(`id="review-${call!.id}"`);
    const [row] = await app.services.db.select().from(calls).where(eq(calls.id, call!.id));
    expect(row!.reviewedAt).not.toBeNull();
    const calls_ = await (await admin.client.get("/admin/calls?flagged=1")).text();
    expect(calls_).toContain("Reviewed");
    expect(await app.services.db.select().from(auditLog).where(eq(auditLog.action, "call.reviewed"))).toHaveLength(1);
  });

  it("refunds a payment through Stripe once, with an idempotency key, and logs it", async () => {
    const intent = stripe.seedPaymentIntent({ amount: 500, currency: "usd", status: "succeeded" });
    const [payment] = await app.services.db
      .insert(payments)
      .values({ purpose: "empathy_call", providerPaymentId: String(intent.id), amountCents: 500, currency: "usd", status: "succeeded" })
      .returning();
    expect(await (await admin.client.get("/admin/payments")).text()).toContain(`aria-label="Refund payment ${payment!.id}"`);
    const refunded = await admin.client.postForm("/admin/payments", { intent: "refund", id: String(payment!.id) });
    expect(refunded.status).toBe(302);
    const refunds = [...stripe.refunds.values()].filter((r) => r.payment_intent === intent.id);
    expect(refunds).toHaveLength(1);
    const request = stripe.requests.find((r) => r.method === "POST" && r.path === "/v1/refunds");
    expect(request?.idempotencyKey).toBe(`admin-refund-${intent.id}`);
    const [row] = await app.services.db.select().from(payments).where(eq(payments.id, payment!.id));
    expect(row!.refundedAt).not.toBeNull();
    const again = await admin.client.postForm("/admin/payments", { intent: "refund", id: String(payment!.id) });
    expect(again.status).toBe(302);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intent.id)).toHaveLength(1);
    const [entry] = await app.services.db.select().from(auditLog).where(eq(auditLog.action, "payment.refund"));
    expect(entry!.detail).toMatchObject({ amountCents: 500, currency: "usd" });
  });

  it("three refund clicks at once give one Stripe refund and one audit entry; the others hear it was already refunded", async () => {
    const intent = stripe.seedPaymentIntent({ amount: 700, currency: "usd", status: "succeeded" });
    const [payment] = await app.services.db
      .insert(payments)
      .values({ purpose: "empathy_call", providerPaymentId: String(intent.id), amountCents: 700, currency: "usd", status: "succeeded" })
      .returning();
    const click = () => admin.client.postForm("/admin/payments", { intent: "refund", id: String(payment!.id) });
    const answers = await Promise.all([click(), click(), click()]);
    expect(answers.map((answer) => answer.status)).toEqual([302, 302, 302]);
    expect([...stripe.refunds.values()].filter((r) => r.payment_intent === intent.id)).toHaveLength(1);
    const refundCalls = stripe.requests.filter(
      (r) => r.method === "POST" && r.path === "/v1/refunds" && r.body.payment_intent === intent.id,
    );
    expect(refundCalls).toHaveLength(1);
    const entries = await app.services.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "payment.refund"), eq(auditLog.targetId, String(payment!.id))));
    expect(entries).toHaveLength(1);
    // A fourth click is told, and logs nothing.
    const late = await click();
    const shown = await (await admin.client.get(late.headers.get("location")!)).text();
    expect(shown).toContain("This payment was already refunded.");
    expect(
      await app.services.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, "payment.refund"), eq(auditLog.targetId, String(payment!.id)))),
    ).toHaveLength(1);
  });

  it("shows an owner's support ticket, e-mails the admins, and marks paid-plan owners priority", async () => {
    const password = await demoOwnerPassword(app.url, app.dataDir);
    const owner = httpClient(app.url);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const form = await owner.get("/dashboard/support");
    expect(form.status).toBe(200);
    const empty = await owner.postForm("/dashboard/support", { subject: "", message: "" });
    expect(empty.status).toBe(400);
    expect(await empty.text()).toContain("Enter a subject.");
    await app.services.db.update(businesses).set({ planStatus: "active" }).where(eq(businesses.email, "demo@sakina.app"));
    const sent = await owner.postForm("/dashboard/support", {
      subject: "Calls to Riyadh",
      message: "Our customers in Riyadh are not called.",
    });
    expect(sent.status).toBe(302);
    expect(sent.headers.get("location")).toBe("/dashboard/support?sent=1");
    const [ticket] = await app.services.db.select().from(supportTickets);
    expect(ticket).toMatchObject({ subject: "Calls to Riyadh", priority: true, status: "open" });
    const mail = await waitForMail(app.dataDir, admin.email, /Support request from Sakina Demo Salon/);
    expect(mail.subject).toMatch(/^\[Priority\]/);
    const list = await (await admin.client.get("/admin/support")).text();
    expect(list).toContain("Calls to Riyadh");
    expect(list).toContain("Priority");
    expect((await admin.client.postForm("/admin/support", { intent: "close", id: String(ticket!.id) })).status).toBe(302);
    await app.services.db.update(businesses).set({ planStatus: "starter" }).where(eq(businesses.email, "demo@sakina.app"));
  });

  it("shows the funnels' counts and conversion from first-party events", async () => {
    await app.services.db
      .insert(funnelEvents)
      .values([{ name: "proceed_to_payment" }, { name: "proceed_to_payment" }, { name: "payment_success" }]);
    const html = await (await admin.client.get("/admin/funnel")).text();
    expect(html).toContain("Went to payment");
    expect(html).toContain("50%");
  });

  it("counts a business's funnel step once when two deliveries record it at the same moment", async () => {
    const business = await demoBusiness();
    await Promise.all(
      Array.from({ length: 4 }, () => recordFunnelEventOnce(app.services.db, "business_verified", { businessId: business.id })),
    );
    const rows = await app.services.db
      .select()
      .from(funnelEvents)
      .where(and(eq(funnelEvents.name, "business_verified"), eq(funnelEvents.businessId, business.id)));
    expect(rows).toHaveLength(1);
  });

  it("the database refuses to change or remove an audit entry; deleting the admin's account keeps the entry", async () => {
    const db = app.services.db;
    const [account] = await db
      .insert(accounts)
      .values({ name: "Former admin", email: "former-admin@example.com", passwordHash: "x", role: "admin" })
      .returning();
    await db.insert(auditLog).values({ accountId: account!.id, actorEmail: account!.email, action: "test.entry" });
    // Drizzle wraps the database's error; its cause is what PostgreSQL said.
    const refusal = (query: Promise<unknown>) =>
      query.then(
        () => "accepted",
        (error: { message: string; cause?: { message?: string } }) => error.cause?.message ?? error.message,
      );
    expect(await refusal(db.update(auditLog).set({ action: "test.rewritten" }).where(eq(auditLog.action, "test.entry")))).toMatch(
      /append-only: UPDATE refused/,
    );
    expect(await refusal(db.delete(auditLog).where(eq(auditLog.action, "test.entry")))).toMatch(/append-only: DELETE refused/);
    expect(await refusal(db.execute(sql`truncate audit_log`))).toMatch(/append-only: TRUNCATE refused/);
    await db.delete(accounts).where(eq(accounts.id, account!.id));
    const [kept] = await db.select().from(auditLog).where(eq(auditLog.action, "test.entry"));
    expect(kept).toMatchObject({ accountId: null, actorEmail: "former-admin@example.com" });
  });

  it("lists consumers with masked numbers, calls, refusals, provider health and jobs", async () => {
    for (const page of ["/admin/consumers", "/admin/calls", "/admin/refusals", "/admin/health", "/admin/jobs", "/admin"]) {
      const response = await admin.client.get(page);
      expect(response.status, page).toBe(200);
    }
    const jobs = await (await admin.client.get("/admin/jobs")).text();
    expect(jobs).toContain("email-send");
    const health = await (await admin.client.get("/admin/health")).text();
    expect(health).toContain("Payments (Stripe)");
    expect(health).toContain("Working");
  });
});

describe("the admin tables' pages", () => {
  it("lists businesses 25 a page, with the position and plain links to the pages either side", async () => {
    await app.services.db.insert(businesses).values(
      Array.from({ length: 30 }, (_, i) => ({
        name: `Paged Business ${i + 1}`,
        bookingLink: `paged-business-${i + 1}`,
        ownerName: "Paged Owner",
        email: `paged-business-${i + 1}@example.com`,
        phone: "+442079460958",
        industry: "beauty",
      })),
    );
    const one = await (await admin.client.get("/admin/businesses")).text();
    const [, pages, total] = /Page 1 of (\d+) \((\d+) in all\)/.exec(one) ?? [];
    expect(Number(total)).toBeGreaterThanOrEqual(31);
    expect(Number(pages)).toBe(Math.ceil(Number(total) / 25));
    expect(one).toMatch(/<nav aria-label="Pages"[^>]*>/);
    expect(one).toMatch(/<a [^>]*href="\/admin\/businesses\?page=2"[^>]*>Next page<\/a>/);
    expect(one).not.toContain("Previous page");
    const two = await (await admin.client.get("/admin/businesses?page=2")).text();
    expect(two).toContain(`Page 2 of ${pages} (${total} in all)`);
    expect(two).toMatch(/<a [^>]*href="\/admin\/businesses"[^>]*>Previous page<\/a>/);
    // Each page has a title of its own.
    expect(two).toMatch(/<title>Businesses, page 2 · Sakina<\/title>/);
    expect(one).toMatch(/<title>Businesses · Sakina<\/title>/);
  });
});
