import { and, eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { calls as callsTable, subscribers, supportCalls } from "#models/schema";
import { findSubscriber } from "#models/subscribers";
import { scheduledCallsJob } from "~/features/subscriptions/index.server";
import { translatorFor } from "~/platform/i18n.server";
import type { FakeStripe } from "../fakes/stripe";
import { inVersion } from "../fakes/stripe/events";
import type { FakeTwilio } from "../fakes/twilio";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { readOutbox } from "../support/outbox";
import { waitFor } from "../support/wait";

const WEBHOOK_SECRET = "whsec_test_subscriptions";
let stripe: FakeStripe;
let stripeApi: Stripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, stripe, stripeApi, twilio, realtime, close } = await startAppWithFakes({
    stripe: { webhookSecret: WEBHOOK_SECRET, webhooks: "app" },
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false", CALL_DELIVERED_MIN_SECONDS: "1" },
  }));
});

afterAll(() => close?.());

let visitor = 0;
let seq = 200;
const nextPhone = () => `+1212555${String(seq++).padStart(4, "0")}`;
const client = () => httpClient(app.url, { forwardedFor: `198.51.100.${++visitor}` });

/** Signs up as a browser without JavaScript does: the form, then Stripe Checkout, then the return page. */
async function subscribe(options: { phone?: string; email?: string; frequency?: string } = {}) {
  const browser = client();
  const phone = options.phone ?? nextPhone();
  const email = options.email ?? `person${seq}@example.com`;
  const details = await browser.postForm("/subscribe", {
    fullName: "Maya Haddad",
    email,
    phone,
    callFrequency: options.frequency ?? "weekly",
  });
  expect(details.status, await details.clone().text()).toBe(302);
  expect(details.headers.get("Location")).toBe("/subscribe?step=payment");
  const toCheckout = await browser.postForm("/subscribe", { intent: "checkout" }, { tokenFrom: "/subscribe?step=payment" });
  expect(toCheckout.status).toBe(302);
  const checkoutUrl = toCheckout.headers.get("Location")!;
  expect(checkoutUrl.startsWith(`${stripe.url}/checkout/`)).toBe(true);
  const paid = await fetch(checkoutUrl, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email, card_number: "4242 4242 4242 4242" }),
  });
  expect(paid.status).toBe(303);
  const back = new URL(paid.headers.get("Location")!);
  const done = await browser.get(back.pathname + back.search);
  const html = await done.text();
  await stripe.flush();
  const row = (await app.services.db.select().from(subscribers).where(eq(subscribers.phone, phone)))[0]!;
  return { browser, phone, email, html, id: row.id };
}

const dashboardOf = async (browser: ReturnType<typeof client>, id: number | string) => {
  const response = await browser.get(`/api/user/${id}/dashboard`);
  return { status: response.status, body: (await response.json()) as any };
};

describe("subscribing", () => {
  it("starts a 7-day trial with the card saved on Stripe's page, signs the browser in and e-mails a welcome", async () => {
    const { browser, html, id, email } = await subscribe();
    expect(html).toContain("Subscription activated!");
    expect(html).toContain(`/dashboard?userId=${id}`);
    const { status, body } = await dashboardOf(browser, id);
    expect(status).toBe(200);
    expect(body.user.subscriptionStatus).toBe("trial");
    expect(body.canMakeCall).toBe(true);
    expect(body.callsRemaining).toBe(5);
    const days = Math.ceil((new Date(body.user.trialEndsAt).getTime() - Date.now()) / 86_400_000);
    expect(days).toBe(7);
    const sub = [...stripe.subscriptions.values()].find((s) => s.metadata.subscriberId === String(id))!;
    expect(sub.status).toBe("trialing");
    expect(sub.items.data[0].price.unit_amount).toBe(999);
    const welcome = await waitFor(
      async () => (await readOutbox(app.dataDir)).find((m) => m.to === email && /trial has started/.test(m.subject)),
      {
        what: "the welcome e-mail",
      },
    );
    expect(welcome).toBeTruthy();
    const page = (await (await browser.get(`/dashboard?userId=${id}`)).text()).replace(/<[^>]+>/g, "");
    expect(page).toContain("0 of 5 trial calls used");
    expect(page).toContain("Request support call");
  });

  it("refuses an incomplete form with the catalogue's message, and a second trial for the same phone", async () => {
    const missing = await client().postJson("/api/subscription/create", {
      phone: "+12125550100",
      email: "",
      fullName: "A",
      callFrequency: "weekly",
    });
    expect(missing.status).toBe(400);
    const body = (await missing.json()) as { error: string; title: string };
    expect(body.title).toBe("Please complete form");
    expect(body.error).toBe("All fields are required to subscribe");

    const first = await subscribe();
    const again = await client().postJson("/api/subscription/create", {
      phone: first.phone,
      email: "someone.else@example.com",
      fullName: "Someone Else",
      callFrequency: "weekly",
    });
    expect(again.status).toBe(409);

    // A call was placed for them: deleting the account erases its number too.
    twilio.setOutcome(first.phone, "no-answer");
    await first.browser.postForm(
      `/dashboard?userId=${first.id}`,
      { intent: "request_call", feeling: "ok", urgency: "low" },
      { tokenFrom: `/dashboard?userId=${first.id}` },
    );
    const placed = await waitFor(
      async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, first.phone)))[0],
      {
        what: "a call record",
      },
    );
    // Deleting the account does not give the number a new trial.
    const deleted = await first.browser.postForm(
      `/preferences?userId=${first.id}`,
      { intent: "delete", confirm: "on" },
      { tokenFrom: `/preferences?userId=${first.id}` },
    );
    expect(deleted.status).toBe(302);
    expect(await findSubscriber(app.services.db, first.id)).toBeNull();
    const [erased] = await app.services.db.select().from(callsTable).where(eq(callsTable.id, placed.id));
    expect(erased!.toNumber).toBeNull();
    const afterDelete = await client().postJson("/api/subscription/create", {
      phone: first.phone,
      email: "third.person@example.com",
      fullName: "Third",
      callFrequency: "weekly",
    });
    expect(afterDelete.status).toBe(409);
    expect(((await afterDelete.json()) as { error: string }).error).toMatch(/already had a free trial/);
  });
});

describe("unfinished signups", () => {
  it("hold a phone number for an hour at most, so nobody can block someone else's trial", async () => {
    const phone = nextPhone();
    const squatter = client();
    const first = await squatter.postForm("/subscribe", {
      fullName: "Not Them",
      email: `squat${seq}@example.com`,
      phone,
      callFrequency: "weekly",
    });
    expect(first.status).toBe(302);
    const owner = { fullName: "Real Person", email: `real${seq}@example.com`, phone, callFrequency: "weekly" };
    expect((await client().postJson("/api/subscription/create", owner)).status).toBe(409);
    await app.services.db
      .update(subscribers)
      .set({ createdAt: new Date(Date.now() - 2 * 3_600_000) })
      .where(eq(subscribers.phone, phone));
    const created = await client().postJson("/api/subscription/create", owner);
    expect(created.status).toBe(200);
    const body = (await created.json()) as { clientSecret: string; userId: number };
    expect(body.clientSecret).toMatch(/^seti_/);
    expect((await findSubscriber(app.services.db, body.userId))!.email).toBe(owner.email);
  });
});

describe("privacy of a subscriber's data", () => {
  it("shows user N only to the session that owns it; another user's id looks like a missing one", async () => {
    const owner = await subscribe();
    const other = await subscribe();
    const stranger = client();
    const missing = await dashboardOf(owner.browser, 999_999);
    const foreign = await dashboardOf(other.browser, owner.id);
    const anonymous = await dashboardOf(stranger, owner.id);
    expect(missing.status).toBe(404);
    expect(foreign).toEqual(missing);
    expect(anonymous).toEqual(missing);
    expect((await dashboardOf(owner.browser, "abc")).body.error).toBe("Invalid user ID");
    expect((await dashboardOf(owner.browser, "0")).status).toBe(400);

    const page = await other.browser.get(`/dashboard?userId=${owner.id}`);
    expect(page.status).toBe(404);
    expect(await page.text()).not.toContain("Maya");
    expect((await other.browser.get(`/api/users/${owner.id}/profile`)).status).toBe(404);
    const change = await other.browser.postJson(`/api/users/${owner.id}/preferences`, {
      preferredLanguage: "fr",
      callScheduleType: "weekly",
      preferredCallTime: "10:00",
      timezone: "Europe/Paris",
      callReminders: false,
    });
    expect(change.status).toBe(404);
    expect((await findSubscriber(app.services.db, owner.id))!.preferredLanguage).toBe("en");
    expect((await other.browser.postJson("/api/subscription/cancel", { userId: owner.id })).status).toBe(404);
    expect((await findSubscriber(app.services.db, owner.id))!.cancelAtPeriodEnd).toBe(false);
  });

  it("signs in with a magic link that works once", async () => {
    const { email, id } = await subscribe();
    const later = client();
    const asked = await later.postForm("/sign-in", { email });
    expect(asked.status).toBe(200);
    const mail = await waitFor(async () => (await readOutbox(app.dataDir)).find((m) => m.to === email && /sign-in link/.test(m.subject)), {
      what: "the sign-in e-mail",
    });
    const link = new URL(/https?:\/\/\S+\/sign-in\/confirm\?\S+/.exec(mail!.text)![0]);
    // Opening the link (a mail scanner does) signs nobody in.
    const preview = await later.get(link.pathname + link.search);
    expect(await preview.text()).toContain("Sign in to Sakina");
    expect((await dashboardOf(later, id)).status).toBe(404);
    const used = await later.postForm(link.pathname + link.search, {}, { tokenFrom: link.pathname + link.search });
    expect(used.status).toBe(302);
    expect(used.headers.get("Location")).toBe(`/dashboard?userId=${id}`);
    expect((await dashboardOf(later, id)).status).toBe(200);
    const twice = client();
    const page = await twice.get(link.pathname + link.search);
    expect(await page.text()).toContain("This sign-in link does not work");
  });
});

describe("the allowance", () => {
  it("places a requested call in the preferred language and voice; an undelivered call does not count", async () => {
    const { browser, id, phone } = await subscribe();
    const saved = await browser.postJson(`/api/users/${id}/preferences`, {
      preferredLanguage: "spanish",
      voiceGender: "male",
      callScheduleType: "weekly",
      preferredCallTime: "10:00",
      timezone: "Europe/Madrid",
      callReminders: true,
    });
    expect(saved.status).toBe(200);
    twilio.setOutcome(phone, "no-answer");
    const asked = await browser.postForm(
      `/dashboard?userId=${id}`,
      { intent: "request_call", feeling: "anxious", urgency: "high" },
      { tokenFrom: `/dashboard?userId=${id}` },
    );
    expect(asked.status).toBe(302);
    const call = await waitFor(async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, phone)))[0], {
      what: "the support call",
    });
    expect(call.purpose).toBe("support");
    expect(call.language).toBe("es");
    expect(call.voice).toBe("echo");
    const ended = await waitFor(
      async () => {
        const [row] = await app.services.db.select().from(supportCalls).where(eq(supportCalls.subscriberId, id));
        return row?.status === "not_delivered" ? row : undefined;
      },
      { what: "the unanswered call to end", timeoutMs: 20_000 },
    );
    expect(ended.feeling).toBe("anxious");
    const { body } = await dashboardOf(browser, id);
    expect(body.callsRemaining).toBe(5);
    expect(body.canMakeCall).toBe(true);
    expect(body.recentCalls[0]).toMatchObject({ feeling: "anxious", urgency: "high", status: "not_delivered" });
  });

  it("counts a delivered call, and keeps the summary the listener wrote until the subscriber deletes it", async () => {
    const { browser, id, phone } = await subscribe();
    const index = realtime.sessions.length;
    realtime.script(
      [
        { say: "Hello, I am Emma, an AI listener from Sakina. How are you feeling today?" },
        { transcriptOfCaller: "I had a hard week at work and I feel tired." },
        { tool: "save_summary", arguments: { summary: "You talked about a hard week at work. Call me on +1 212 555 0199." } },
        { tool: "end_call", arguments: { reason: "done" }, say: "Take good care of yourself. Goodbye!" },
      ],
      index,
    );
    await browser.postForm(
      `/dashboard?userId=${id}`,
      { intent: "request_call", feeling: "tired", urgency: "normal" },
      { tokenFrom: `/dashboard?userId=${id}` },
    );
    const call = await waitFor(
      async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, phone)))[0]?.providerCallId ?? undefined,
      {
        what: "the call placed",
        timeoutMs: 20_000,
      },
    );
    const stream = await twilio.stream(call, 20_000);
    await realtime.waitForServerEvent(index, "response.done", undefined, 20_000);
    await waitFor(() => (stream.pendingPlaybackMs() === 0 ? true : undefined), { what: "the greeting played" });
    await stream.sendSpeech(800);
    await twilio.waitForStatus(call, "completed", 30_000);
    const done = await waitFor(
      async () => {
        const [row] = await app.services.db.select().from(supportCalls).where(eq(supportCalls.subscriberId, id));
        return row?.status === "completed" ? row : undefined;
      },
      { what: "the delivered call counted", timeoutMs: 20_000 },
    );
    expect(done.summary).toBe("You talked about a hard week at work. Call me on [phone].");
    const { body } = await dashboardOf(browser, id);
    expect(body.callsRemaining).toBe(4);
    expect(body.recentCalls[0].summary).toContain("hard week");
    await browser.postForm(
      `/dashboard?userId=${id}`,
      { intent: "delete_summary", supportCallId: String(done.id) },
      { tokenFrom: `/dashboard?userId=${id}` },
    );
    expect((await dashboardOf(browser, id)).body.recentCalls[0].summary).toBeNull();
  });

  it("refuses the 6th trial call and, after the upgrade, the 31st monthly call", async () => {
    const { browser, id } = await subscribe();
    const subscriber = (await findSubscriber(app.services.db, id))!;
    const delivered = (n: number, periodStart: Date, plan: "trial" | "monthly") =>
      app.services.db.insert(supportCalls).values(
        Array.from({ length: n }, () => ({
          subscriberId: id,
          feeling: "ok",
          urgency: "normal",
          status: "completed" as const,
          periodStart,
          plan,
        })),
      );
    await delivered(5, subscriber.periodStart!, "trial");
    const sixth = await browser.postForm(
      `/dashboard?userId=${id}`,
      { intent: "request_call", feeling: "low", urgency: "normal" },
      { tokenFrom: `/dashboard?userId=${id}` },
    );
    expect(sixth.status).toBe(302);
    const trial = await dashboardOf(browser, id);
    expect(trial.body.canMakeCall).toBe(false);
    expect(trial.body.limitReason).toBe("trial_used");
    expect(trial.body.user.callsUsedInTrial).toBe(5);
    expect(
      await app.services.db
        .select()
        .from(supportCalls)
        .where(and(eq(supportCalls.subscriberId, id), eq(supportCalls.status, "queued"))),
    ).toEqual([]);

    const upgraded = await browser.postJson("/api/subscription/upgrade", { userId: id });
    expect(upgraded.status).toBe(200);
    expect(((await upgraded.json()) as { title: string }).title).toBe("Subscription upgraded");
    const monthly = (await findSubscriber(app.services.db, id))!;
    expect(monthly.status).toBe("active");
    expect((await dashboardOf(browser, id)).body.callsRemaining).toBe(30);
    await delivered(30, monthly.periodStart!, "monthly");
    const full = await dashboardOf(browser, id);
    expect(full.body.user.callsUsedThisMonth).toBe(30);
    expect(full.body.canMakeCall).toBe(false);
    expect(full.body.limitReason).toBe("month_used");
    const receipt = await waitFor(
      async () => (await readOutbox(app.dataDir)).find((m) => m.to === monthly.email && /receipt/i.test(m.subject)),
      {
        what: "the receipt",
      },
    );
    expect(receipt!.text).toContain("$9.99");
  });

  // Issue 45.7: the fourth call of the day to one number was accepted ("Call requested"), then
  // dropped at dial time by the per-number cap (CALLS_PER_NUMBER_PER_DAY, 3) as "not delivered".
  it("refuses a fourth call of the day to the subscriber's number when it is asked for, with the reason", async () => {
    const { browser, id, phone } = await subscribe();
    twilio.setOutcome(phone, "no-answer");
    const ask = () =>
      browser.postForm(
        `/dashboard?userId=${id}`,
        { intent: "request_call", feeling: "restless", urgency: "normal" },
        { tokenFrom: `/dashboard?userId=${id}` },
      );
    const requests = () => app.services.db.select().from(supportCalls).where(eq(supportCalls.subscriberId, id));
    for (let n = 1; n <= 3; n++) {
      expect((await ask()).status).toBe(302);
      // One call at a time: the next is asked for once this one ended, unanswered.
      await waitFor(async () => ((await requests()).filter((row) => row.status === "not_delivered").length === n ? true : undefined), {
        what: `call ${n} to end unanswered`,
        timeoutMs: 20_000,
      });
    }
    expect(callsTo(phone)).toHaveLength(3);

    // The dashboard no longer offers a fourth call, and says why (the page and its JSON).
    const shown = await dashboardOf(browser, id);
    expect(shown.body.canMakeCall).toBe(false);
    expect(shown.body.limitReason).toBe("number_cap");
    const t = await translatorFor("en");
    const page = await (await browser.get(`/dashboard?userId=${id}`)).text();
    expect(page).toContain(t("subscribe.limit.number_cap"));

    // Asked for all the same (a form posted without the page's button state): refused on the form, beside the button.
    const fourth = await ask();
    expect(fourth.status).toBe(400);
    const html = await fourth.text();
    expect(html).toMatch(new RegExp(`id="call-unavailable"[^>]*>${escapeRegExp(t("subscribe.limit.number_cap"))}`));
    expect(html).toContain('aria-describedby="call-unavailable"');
    // Nothing was accepted: no fourth request in the list, no fourth call placed.
    expect(await requests()).toHaveLength(3);
    expect(callsTo(phone)).toHaveLength(3);
  });
});

const callsTo = (e164: string) => [...twilio.calls.values()].filter((call) => call.params.To === e164);
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

describe("the billing life cycle", () => {
  it("cancels at the period's end, with the catalogue's toast and an e-mail", async () => {
    const { browser, id, email } = await subscribe();
    const response = await browser.postJson("/api/subscription/cancel", { userId: id });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { title: string; message: string };
    expect(body.title).toBe("Subscription cancelled");
    expect(body.message).toBe("Your subscription has been cancelled. Access continues until your billing period ends.");
    const row = (await findSubscriber(app.services.db, id))!;
    expect(row.cancelAtPeriodEnd).toBe(true);
    expect(row.status).toBe("trialing");
    await waitFor(async () => (await readOutbox(app.dataDir)).find((m) => m.to === email && /cancelled/.test(m.subject)), {
      what: "the cancellation e-mail",
    });
  });

  it("stops scheduled calls while a payment has failed and resumes them when the new card pays", async () => {
    const { id } = await subscribe();
    const row = (await findSubscriber(app.services.db, id))!;
    expect(row.nextCallAt).not.toBeNull();
    const subId = row.stripeSubscriptionId!;
    // The card on file starts declining; the trial ends and the first invoice fails.
    const pm = await stripeApi.paymentMethods.attach("pm_card_chargeDeclined", { customer: row.stripeCustomerId! });
    await stripeApi.subscriptions.update(subId, { default_payment_method: pm.id });
    await (stripe as any).advanceSubscription(subId);
    await stripe.flush();
    const pastDue = await waitFor(
      async () => {
        const s = await findSubscriber(app.services.db, id);
        return s?.status === "past_due" ? s : undefined;
      },
      { what: "past_due" },
    );
    expect(pastDue.nextCallAt).toBeNull();
    await waitFor(async () => (await readOutbox(app.dataDir)).find((m) => m.to === row.email && /payment failed/i.test(m.subject)), {
      what: "payment failed e-mail",
    });

    // Scheduled calls do not ring: the job skips a lapsed subscription.
    await scheduledCallsJob.handle({}, app.services);
    expect(await app.services.db.select().from(supportCalls).where(eq(supportCalls.subscriberId, id))).toEqual([]);

    // A new card through Stripe's page in setup mode: the open invoice is paid with it.
    const browser = (await signInAs(row.email)).browser;
    const started = await browser.postForm(`/subscription/card?userId=${id}`, {}, { tokenFrom: `/subscription/card?userId=${id}` });
    expect(started.status).toBe(302);
    const saved = await fetch(started.headers.get("Location")!, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: row.email, card_number: "4242 4242 4242 4242" }),
    });
    const back = new URL(saved.headers.get("Location")!);
    const returned = await browser.get(back.pathname + back.search);
    expect(returned.status).toBe(302);
    await stripe.flush();
    const recovered = await waitFor(
      async () => {
        const s = await findSubscriber(app.services.db, id);
        return s?.status === "active" ? s : undefined;
      },
      { what: "active again" },
    );
    expect(recovered.nextCallAt!.getTime()).toBeGreaterThan(Date.now());
  });

  it("a replayed or out-of-order event changes nothing", async () => {
    const { browser, id } = await subscribe();
    const subId = (await findSubscriber(app.services.db, id))!.stripeSubscriptionId!;
    const trialEvent =
      [...stripe.events].reverse().find((e) => e.type === "customer.subscription.updated" && e.data.object.id === subId) ??
      [...stripe.events].reverse().find((e) => e.type === "customer.subscription.created" && e.data.object.id === subId)!;
    expect((await browser.postJson("/api/subscription/upgrade", { userId: id })).status).toBe(200);
    await stripe.flush();
    const before = (await findSubscriber(app.services.db, id))!;
    expect(before.status).toBe("active");
    // The old "trialing" event arrives again, late.
    expect(await stripe.resend(trialEvent.id)).toBe(200);
    const after = (await findSubscriber(app.services.db, id))!;
    expect(after.status).toBe("active");
    expect(after.periodStart).toEqual(before.periodStart);
    expect((await dashboardOf(browser, id)).body.callsRemaining).toBe(30);
  });

  it("reads a paid invoice from a webhook endpoint on an API version before basil: the plan is synced and a receipt sent", async () => {
    const { browser, id, email } = await subscribe();
    const subId = (await findSubscriber(app.services.db, id))!.stripeSubscriptionId!;
    // The endpoint was made before 2025-03-31: its invoices name the subscription at their top level.
    stripe.setWebhook(`${app.url}/webhooks/stripe`, WEBHOOK_SECRET, { apiVersion: "2025-02-24.acacia" });
    try {
      expect((await browser.postJson("/api/subscription/upgrade", { userId: id })).status).toBe(200);
      await stripe.flush();
      const paid = [...stripe.events]
        .reverse()
        .find((e) => e.type === "invoice.paid" && e.data.object.customer === stripe.subscriptions.get(subId)!.customer)!;
      expect(paid.data.object.amount_paid).toBeGreaterThan(0);
      await waitFor(async () => (await readOutbox(app.dataDir)).find((m) => m.to === email && m.subject === "Your Sakina receipt"), {
        what: "the receipt for the first month",
      });
      // The app's copy went stale (an event lost); an old-shape invoice.paid alone puts it right.
      await app.services.db.update(subscribers).set({ status: "past_due" }).where(eq(subscribers.id, id));
      const payload = JSON.stringify(inVersion({ ...paid, id: `${paid.id}_again` }, "2025-02-24.acacia"));
      const old = JSON.parse(payload).data.object;
      expect([old.subscription, "parent" in old]).toEqual([subId, false]);
      const response = await fetch(`${app.url}/webhooks/stripe`, {
        method: "POST",
        headers: {
          "Content-Type": "application/json",
          "Stripe-Signature": stripeApi.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
        },
        body: payload,
      });
      expect(response.status).toBe(200);
      expect((await findSubscriber(app.services.db, id))!.status).toBe("active");
    } finally {
      stripe.setWebhook(`${app.url}/webhooks/stripe`, WEBHOOK_SECRET);
    }
  });

  it("places a due scheduled call once, and moves the schedule on", async () => {
    const { id, phone } = await subscribe();
    const due = new Date(Date.now() - 60_000);
    await app.services.db.update(subscribers).set({ nextCallAt: due }).where(eq(subscribers.id, id));
    await scheduledCallsJob.handle({}, app.services);
    await scheduledCallsJob.handle({}, app.services);
    const rows = await app.services.db.select().from(supportCalls).where(eq(supportCalls.subscriberId, id));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ source: "scheduled" });
    expect(rows[0]!.scheduledFor!.getTime()).toBe(due.getTime());
    const moved = (await findSubscriber(app.services.db, id))!;
    expect(moved.nextCallAt!.getTime()).toBeGreaterThan(Date.now());
    await waitFor(async () => (await app.services.db.select().from(callsTable).where(eq(callsTable.toNumber, phone)))[0], {
      what: "the scheduled call",
    });
  });
});

describe("e-mails on a schedule", () => {
  it("reminds an hour before a scheduled call, once, and warns two days before the trial ends, once", async () => {
    const { id, email } = await subscribe();
    const soon = new Date(Date.now() + 30 * 60_000);
    await app.services.db
      .update(subscribers)
      .set({ nextCallAt: soon, trialEndsAt: new Date(Date.now() + 36 * 3_600_000) })
      .where(eq(subscribers.id, id));
    await scheduledCallsJob.handle({}, app.services);
    await scheduledCallsJob.handle({}, app.services);
    const mails = async (pattern: RegExp) => (await readOutbox(app.dataDir)).filter((m) => m.to === email && pattern.test(m.subject));
    await waitFor(async () => ((await mails(/call is in an hour/)).length === 1 ? true : undefined), { what: "one reminder" });
    await waitFor(async () => ((await mails(/trial ends in 2 days/)).length === 1 ? true : undefined), { what: "one trial-ending e-mail" });
    // Reminders off: the next scheduled call gets none.
    const later = new Date(Date.now() + 40 * 60_000);
    await app.services.db.update(subscribers).set({ nextCallAt: later, callReminders: false }).where(eq(subscribers.id, id));
    await scheduledCallsJob.handle({}, app.services);
    expect((await findSubscriber(app.services.db, id))!.remindedFor?.getTime()).toBe(soon.getTime());
  });
});

async function signInAs(email: string) {
  const browser = client();
  await browser.postForm("/sign-in", { email });
  const mail = await waitFor(
    async () => [...(await readOutbox(app.dataDir))].reverse().find((m) => m.to === email && /sign-in link/.test(m.subject)),
    { what: "a sign-in e-mail" },
  );
  const link = new URL(/https?:\/\/\S+\/sign-in\/confirm\?\S+/.exec(mail!.text)![0]);
  await browser.postForm(link.pathname + link.search, {}, { tokenFrom: link.pathname + link.search });
  return { browser };
}
