// Dialling while the phone provider misbehaves (issue 25.3 and 25.5), against the fake Twilio,
// Stripe and Realtime servers through the real SDKs, with the app's own job workers:
// - a provider answering 500 to dial after dial is retried on the promised schedule, and those
//   re-dials are not new calls to the person: the per-number daily cap (3) never refuses them, and
//   a second payment the same day still rings;
// - a call-create request the provider holds up does not hold back another caller's dial.
import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findEmpathyRequest } from "#models/empathy";
import { callRefusals, calls as callsTable } from "#models/schema";
import { parseEmpathyToken } from "~/features/empathy/empathy.server";
import { dialDeadline } from "~/calls/engine.server";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { waitFor } from "../support/wait";
import { queueTestCall } from "../support/queue-call";
import { payAndAskForCall } from "../support/paid-call";

let stripeApi: Stripe;
let twilio: FakeTwilio;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, stripeApi, twilio, close } = await startAppWithFakes({
    // Only the start-call request places calls here, not the webhook.
    stripe: { webhookSecret: "whsec_test_dialling_faults", webhooks: { signedWith: "whsec_elsewhere" } },
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: {
      TRUST_PROXY: "1",
      SEED_DEMO_DATA: "false",
      // The production retry policy: every 10 s for 5 minutes. Only the pause is shortened (to
      // its minimum, 1 s); the 5 minutes are moved through below, not waited for.
      DIAL_RETRY_DELAY_SECONDS: "1",
      CALLS_PER_NUMBER_PER_DAY: "3",
    },
  }));
});

afterAll(() => close?.());

let visitor = 0;
let numberSeq = 600;
const nextNumber = () => `+1212555${String(numberSeq++).padStart(4, "0")}`;

/** Pays for a call to `phone` and asks for it, as the page does. */
async function paidCall(phone: string) {
  const paid = await payAndAskForCall({ url: app.url, stripe: stripeApi, phone, forwardedFor: `198.51.100.${++visitor}` });
  return { requestId: parseEmpathyToken(app.services, paid.token)!, paymentIntentId: paid.paymentIntentId };
}

const dialsTo = (number: string) =>
  twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === number);
const placedTo = (number: string) => [...twilio.calls.values()].filter((c) => c.params.To === number);
const attemptsOf = (requestId: number) =>
  app.services.db.select().from(callsTable).where(eq(callsTable.empathyRequestId, requestId)).orderBy(callsTable.attempt);
const capRefusals = async () => (await app.services.db.select().from(callRefusals)).filter((r) => r.reason === "number_cap");
const SERVER_ERROR = { code: 20500, message: "Internal Server Error" };

/** The person answers and hangs up, so no call is left running into the next test (or past the file's end). */
async function answerAndHangUp(sid: string) {
  await twilio.waitForStatus(sid, "in-progress", 20_000);
  twilio.hangup(sid);
}

describe("a phone provider answering 500 to one attempt's dials", () => {
  it("keeps re-dialling past the number's daily cap, and places the call when the provider recovers", async () => {
    const phone = nextNumber();
    // Twice the cap: before, the 4th dial was refused as the number's 4th call of the day and refunded.
    twilio.failNext(500, SERVER_ERROR, 6);
    const paid = await paidCall(phone);
    const [placed] = await waitFor(() => (placedTo(phone).length > 0 ? placedTo(phone) : null), {
      what: "the call placed after the outage",
      timeoutMs: 30_000,
    });
    expect(dialsTo(phone)).toHaveLength(7);
    // The provider's answer is stored a moment after the fake created the call.
    const attempts = await waitFor(async () => {
      const rows = await attemptsOf(paid.requestId);
      return rows.every((row) => row.providerCallId) ? rows : null;
    });
    expect(attempts.map((a) => [a.attempt, a.providerCallId])).toEqual([[1, placed!.sid]]);
    expect(await capRefusals()).toEqual([]);
    expect((await findEmpathyRequest(app.services.db, paid.requestId))!.refundId).toBeNull();
    await answerAndHangUp(placed!.sid);
  });

  it("gives up only at the end of the promised 5 minutes, never on the cap, and a second payment that day still rings", async () => {
    const phone = nextNumber();
    twilio.failNext(500, SERVER_ERROR, 10_000);
    try {
      const first = await paidCall(phone);
      // More failed dials than the cap allows calls: still retrying, nothing refused or refunded.
      await waitFor(() => dialsTo(phone).length > 4, { what: "a fifth dial", timeoutMs: 30_000 });
      const [attempt] = await attemptsOf(first.requestId);
      expect(attempt!.status).toBe("queued");
      expect(dialDeadline(attempt!, app.services.env.DIAL_RETRY_WINDOW_SECONDS).getTime() - attempt!.dialFailingSince!.getTime()).toBe(
        300_000,
      );
      expect(await capRefusals()).toEqual([]);
      expect((await findEmpathyRequest(app.services.db, first.requestId))!.status).not.toBe("refunded");

      // The 5 minutes pass (the failing run began 301 s ago): the next re-dial gives up, as the page promised.
      await app.services.db
        .update(callsTable)
        .set({ dialFailingSince: new Date(Date.now() - 301_000) })
        .where(eq(callsTable.id, attempt!.id));
      const refunded = await waitFor(
        async () => {
          const row = await findEmpathyRequest(app.services.db, first.requestId);
          return row?.status === "refunded" ? row : null;
        },
        { what: "the refund after the retry window", timeoutMs: 30_000 },
      );
      expect(refunded.refundReason).toBe("telephony_unavailable");
      expect(await capRefusals()).toEqual([]);
    } finally {
      twilio.clearFailures();
    }

    // The provider is back; the same person pays again the same day: the call rings.
    await paidCall(phone);
    const [placed] = await waitFor(() => (placedTo(phone).length > 0 ? placedTo(phone) : null), {
      what: "the second payment's call placed",
      timeoutMs: 30_000,
    });
    expect(await capRefusals()).toEqual([]);
    await answerAndHangUp(placed!.sid);
  });
});

describe("a provider request that hangs", () => {
  it("does not hold back another caller's dial", async () => {
    const slow = nextNumber();
    const other = nextNumber();
    const hang = twilio.hangNext({ to: slow });
    try {
      const testCall = (to: string) => queueTestCall(app.services, { purpose: "test", to, language: "en", voice: "alloy" });
      await testCall(slow);
      await waitFor(() => (dialsTo(slow).length > 0 ? true : null), { what: "the slow dial reaching the provider", timeoutMs: 10_000 });
      const askedAt = performance.timeOrigin + performance.now();
      await testCall(other);
      const [dial] = await waitFor(() => (dialsTo(other).length > 0 ? dialsTo(other) : null), {
        what: "the other caller's dial while the first hangs",
        timeoutMs: 5_000,
      });
      expect(dial!.at - askedAt).toBeLessThan(3_000);
      // The first is still held by the provider: nothing was created for it yet.
      expect(placedTo(slow)).toHaveLength(0);
    } finally {
      hang.release();
    }
    const [released] = await waitFor(() => (placedTo(slow).length > 0 ? placedTo(slow) : null), {
      what: "the slow dial answered once released",
      timeoutMs: 10_000,
    });
    await answerAndHangUp(released!.sid);
  });
});
