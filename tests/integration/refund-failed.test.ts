import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEmpathyRequest } from "#models/empathy";
import { payments } from "#models/schema";
import { empathyRefundJob, empathyRefundSweepJob, parseEmpathyToken } from "~/features/empathy/empathy.server";
import en from "~/locales/en";
import type { FakeStripe } from "../fakes/stripe";
import type { FakeTwilio } from "../fakes/twilio";
import { enrolledAdmin } from "../support/admin";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { type httpClient } from "../support/http-client";
import { exhaustRetries } from "../support/jobs";
import { waitForMail } from "../support/outbox";
import { waitFor } from "../support/wait";
import { expectLog } from "../support/console";
import { payAndAskForCall } from "../support/paid-call";

let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, stripe, stripeApi, twilio, close } = await startAppWithFakes({
    stripe: true,
    twilio: true,
    realtime: true,
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false", EMPATHY_RETRY_DELAY_SECONDS: "1" },
  }));
});

afterAll(() => close?.());

/** The words a visitor reads: the page without its markup and scripts (numbers are set in their own inline elements). */
async function pageText(client: ReturnType<typeof httpClient>, url: string) {
  const html = await (await client.get(url)).text();
  return html
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, " ")
    .replace(/<[^>]+>/g, "")
    .replace(/&#x27;|&#39;|&#x2019;/g, "'")
    .replace(/[\u2066-\u2069]/g, "")
    .replace(/\s+/g, " ");
}

/** What a caller's browser does: the $5 PaymentIntent through the app, paid as Stripe.js would, then the call asked for. */
async function paidCall(phone: string) {
  const paid = await payAndAskForCall({
    url: app.url,
    stripe: stripeApi,
    phone,
    forwardedFor: "198.51.100.77",
    email: "caller@example.com",
  });
  return { paymentIntentId: paid.paymentIntentId, statusUrl: paid.statusUrl, client: paid.client };
}

describe("a refund Stripe keeps refusing", () => {
  it("ends as refund_failed after the job's last retry: the caller is told honestly, the admins by e-mail and in their list, and their retry refunds once with the job's key", async () => {
    const admin = await enrolledAdmin(app);
    // The operator's log says so too, as a warning (an alert fires on refund_failed as well).
    expectLog("warn", /paid call \d+: the refund job gave up \(refund_failed\); an admin refunds by hand/);
    const phone = "+12125550177";
    twilio.setOutcome(phone, "busy");
    // Stripe's API is down for refunds until the test says otherwise.
    const outage = stripe.failNext(
      { method: "POST", pathPrefix: "/v1/refunds" },
      500,
      { type: "api_error", message: "An unknown error occurred" },
      Infinity,
    );
    try {
      const { paymentIntentId, statusUrl, client } = await paidCall(phone);
      const requestId = parseEmpathyToken(app.services, statusUrl.split("/").pop()!)!;
      await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "refunding", {
        what: "every attempt missed",
        timeoutMs: 30_000,
      });

      // While the refund is only on its way, the page does not say it is done.
      const onItsWay = await pageText(client, statusUrl);
      expect(onItsWay).toContain(en.empathy.refundingTitle);
      expect(onItsWay).not.toContain(en.empathy.refundedTitle);

      await exhaustRetries(app.services, empathyRefundJob.name, { field: "requestId", key: String(requestId) }, { timeoutMs: 90_000 });
      const tries = stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/refunds");
      expect(tries.length).toBeGreaterThanOrEqual(empathyRefundJob.retryLimit + 1);
      expect(new Set(tries.map((r) => r.idempotencyKey))).toEqual(new Set([`empathy-refund-${requestId}`]));

      // The sweep (every five minutes) finds the refund no job will send any more.
      await empathyRefundSweepJob.handle({}, app.services);
      expect((await findEmpathyRequest(app.services.db, requestId))?.status).toBe("refund_failed");
      const page = await pageText(client, statusUrl);
      expect(page).toContain(en.empathy.refundFailedTitle);
      expect(page).not.toContain(en.empathy.refundedTitle);
      expect(page).not.toContain(en.empathy.refundingTitle);

      const mail = await waitForMail(app.dataDir, admin.email, /refund failed/i);
      expect(mail.text).toContain(paymentIntentId);
      expect(mail.text).toContain("/admin/payments");

      const [payment] = await app.services.db.select().from(payments).where(eq(payments.providerPaymentId, paymentIntentId));
      const list = await (await admin.client.get("/admin/payments")).text();
      expect(list).toContain(en.admin.payments.failedRefundsTitle);
      expect(list).toContain(en.admin.payments.refundFailedState);
      expect(list).toContain(`aria-label="Retry the refund of payment ${payment!.id}"`);

      // Stripe answers again: the admin's retry sends the job's own request, under its key.
      outage.stop();
      const retried = await admin.client.postForm("/admin/payments", { intent: "refund", id: String(payment!.id) });
      expect(retried.status).toBe(302);
      const last = stripe.requests.filter((r) => r.method === "POST" && r.path === "/v1/refunds").at(-1)!;
      expect(last.idempotencyKey).toBe(`empathy-refund-${requestId}`);
      expect((await findEmpathyRequest(app.services.db, requestId))?.status).toBe("refunded");
      expect(await pageText(client, statusUrl)).toContain(en.empathy.refundedTitle);

      // A second click (or a second admin) refunds nothing more.
      expect((await admin.client.postForm("/admin/payments", { intent: "refund", id: String(payment!.id) })).status).toBe(302);
      expect([...stripe.refunds.values()].filter((r) => r.payment_intent === paymentIntentId)).toEqual([
        expect.objectContaining({ amount: 500, status: "succeeded" }),
      ]);
      expect(await (await admin.client.get("/admin/payments")).text()).not.toContain(en.admin.payments.failedRefundsTitle);
    } finally {
      outage.stop();
      twilio.setOutcome(phone, null);
    }
  });
});
