import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEmpathyRequest } from "#models/empathy";
import { parseEmpathyToken } from "~/features/empathy/empathy.server";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { bookThroughPage } from "../support/book-through-page";
import { httpClient } from "../support/http-client";
import { METRICS_TOKEN, sampleSum, scrape, type Sample } from "../support/metrics";
import { payAndAskForCall } from "../support/paid-call";
import { waitFor } from "../support/wait";

// An operator's view (issue 49): the app's Prometheus metrics on a listener of its own, with a
// token, and the counters an alert or a dashboard reads moving once for each thing that happened.

let app: InProcessApp;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let close: () => Promise<void>;
let metricsUrl: string;

beforeAll(async () => {
  ({ app, stripeApi, twilio, close } = await startAppWithFakes({
    stripe: true,
    twilio: true,
    realtime: true,
    env: { TRUST_PROXY: "1", EMPATHY_RETRY_DELAY_SECONDS: "1", METRICS_PORT: "0", METRICS_TOKEN },
  }));
  metricsUrl = app.metricsUrl!;
});

afterAll(() => close?.());

/** How much each series moved between two scrapes. */
function moved(before: Sample[], after: Sample[]) {
  return (name: string, labels: Record<string, string> = {}) => sampleSum(after, name, labels) - sampleSum(before, name, labels);
}

describe("the metrics listener", () => {
  it("answers only with the token, on its own port; the public port has no metrics", async () => {
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(app.url).port);

    const anonymous = await fetch(metricsUrl);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toMatch(/^Bearer/);
    expect(await anonymous.text()).not.toContain("sakina_");
    const wrong = await fetch(metricsUrl, { headers: { Authorization: `Bearer ${METRICS_TOKEN.slice(0, -1)}x` } });
    expect(wrong.status).toBe(401);

    // Through the public port, with the token too, /metrics is an unknown page.
    for (const headers of [{}, { Authorization: `Bearer ${METRICS_TOKEN}` }] as Record<string, string>[]) {
      const viaPublic = await fetch(`${app.url}/metrics`, { headers });
      expect(viaPublic.status).toBe(404);
      expect(await viaPublic.text()).not.toMatch(/sakina_|nodejs_eventloop/);
    }

    const samples = await scrape(metricsUrl);
    for (const name of [
      "nodejs_eventloop_lag_p99_seconds",
      "process_resident_memory_bytes",
      "sakina_refunds_waiting",
      "sakina_bridges_live",
    ]) {
      expect(
        samples.some((sample) => sample.name === name),
        name,
      ).toBe(true);
    }
  });

  it("times requests by route pattern and status, never by URL", async () => {
    const before = await scrape(metricsUrl);
    const page = await fetch(`${app.url}/book/demo-salon`);
    expect(page.status).toBe(200);
    expect(page.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    // nginx's id is kept (deploy/nginx.conf sends $request_id).
    const traced = await fetch(`${app.url}/book/no-such-salon`, { headers: { "X-Request-Id": "nginx-0123456789abcdef" } });
    expect(traced.headers.get("x-request-id")).toBe("nginx-0123456789abcdef");
    const after = await scrape(metricsUrl);
    const delta = moved(before, after);
    expect(delta("sakina_http_request_duration_seconds_count", { method: "GET", route: "/book/:bookingLink", status: "200" })).toBe(1);
    expect(delta("sakina_http_request_duration_seconds_count", { method: "GET", route: "/book/:bookingLink", status: "404" })).toBe(1);
    expect(after.some((sample) => Object.values(sample.labels).some((value) => value.includes("demo-salon")))).toBe(false);
  });
});

describe("counters an operator alerts on", () => {
  it("a paid call whose first dial fails and whose attempts all miss: one payment, one failed dial, one refund", async () => {
    const phone = "+12125550149";
    const before = await scrape(metricsUrl);
    twilio.setOutcome(phone, "busy");
    // The first dial is refused outright (a permanent error); the next two attempts ring busy.
    // (Twilio's message names the number: the log line that says the dial failed must not.)
    twilio.failNext(400, {
      code: 21215,
      message: `Account not authorized to call ${phone}. Perhaps you need to enable some international permissions: https://www.twilio.com/console/voice/calls/geo-permissions/low-risk`,
    });
    const paid = await payAndAskForCall({ url: app.url, stripe: stripeApi, phone, forwardedFor: "198.51.100.49" });
    const requestId = parseEmpathyToken(app.services, paid.token)!;
    await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "refunded", {
      what: "the refund after the last attempt",
      timeoutMs: 45_000,
    });
    const after = await scrape(metricsUrl);
    const delta = moved(before, after);
    expect(delta("sakina_payments_total", { kind: "paid_call" })).toBe(1);
    expect(delta("sakina_call_dial_failures_total", { purpose: "empathy", transient: "false" })).toBe(1);
    expect(delta("sakina_call_dial_failures_total")).toBe(1);
    expect(delta("sakina_refunds_total", { result: "refunded" })).toBe(1);
    expect(delta("sakina_refunds_total")).toBe(1);
    // Attempts 2 and 3 were dialled; the first never was, so no payment-to-dial time was observed for it.
    expect(delta("sakina_calls_placed_total", { purpose: "empathy" })).toBe(2);
    expect(delta("sakina_calls_finished_total", { purpose: "empathy", outcome: "failed" })).toBe(1);
    expect(delta("sakina_calls_finished_total", { purpose: "empathy", outcome: "busy" })).toBe(2);
    expect(delta("sakina_paid_call_payment_to_dial_seconds_count")).toBe(0);
    expect(sampleSum(after, "sakina_refunds_waiting")).toBe(0);
  });

  it("a paid call dialled at once: its payment-to-dial time is observed once", async () => {
    const phone = "+12125550150";
    twilio.setOutcome(phone, "busy");
    const before = await scrape(metricsUrl);
    const paid = await payAndAskForCall({ url: app.url, stripe: stripeApi, phone, forwardedFor: "198.51.100.50" });
    const requestId = parseEmpathyToken(app.services, paid.token)!;
    await waitFor(async () => (await findEmpathyRequest(app.services.db, requestId))?.status === "refunded", {
      what: "the refund after the last attempt",
      timeoutMs: 45_000,
    });
    const after = await scrape(metricsUrl);
    const delta = moved(before, after);
    expect(delta("sakina_payments_total")).toBe(1);
    expect(delta("sakina_paid_call_payment_to_dial_seconds_count")).toBe(1);
    expect(delta("sakina_call_dial_failures_total")).toBe(0);
    expect(delta("sakina_refunds_total", { result: "refunded" })).toBe(1);
  });

  it("a booking made through the page counts once; its e-mails count as sent", async () => {
    const phone = "+12125550151";
    twilio.setOutcome(phone, "busy");
    const before = await scrape(metricsUrl);
    await bookThroughPage(httpClient(app.url, { forwardedFor: "198.51.100.51" }), "demo-salon", {
      serviceName: "Haircut",
      phone,
      email: "metrics-booking@example.com",
    });
    const afterBooking = await waitFor(
      async () => {
        const samples = await scrape(metricsUrl);
        return moved(before, samples)("sakina_emails_sent_total", { result: "sent" }) >= 2 && samples;
      },
      { what: "the booking's e-mails to the customer and the owner" },
    );
    const delta = moved(before, afterBooking);
    expect(delta("sakina_bookings_total")).toBe(1);
    expect(delta("sakina_payments_total")).toBe(0);
    expect(delta("sakina_refunds_total")).toBe(0);
  });
});
