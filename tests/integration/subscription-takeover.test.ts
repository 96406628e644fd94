import { eq } from "drizzle-orm";
import type Stripe from "stripe";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { subscribers } from "#models/schema";
import { findSubscriber } from "#models/subscribers";
import en from "~/locales/en";
import type { FakeStripe } from "../fakes/stripe";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { readOutbox } from "../support/outbox";
import { waitFor } from "../support/wait";

/**
 * Issue 23: knowing someone's e-mail and phone number must not give a session on their account
 * (ADR 0018). The attacker signs up first with the victim's details; the victim then signs up and
 * pays; the attacker's browser must not reach the victim's account anywhere.
 */

const WEBHOOK_SECRET = "whsec_test_takeover";
let stripe: FakeStripe;
let stripeApi: Stripe;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, stripe, stripeApi, close } = await startAppWithFakes({
    stripe: { webhookSecret: WEBHOOK_SECRET, webhooks: "app" },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "false" },
  }));
});

afterAll(() => close?.());

let visitor = 0;
let seq = 0;
const client = () => httpClient(app.url, { forwardedFor: `203.0.113.${++visitor}` });
const detailsOf = (name: string) => {
  seq++;
  return { fullName: name, email: `victim${seq}@example.com`, phone: `+1212555${String(7000 + seq)}`, callFrequency: "weekly" };
};
type Browser = ReturnType<typeof client>;
const text = async (response: Response) => (await response.text()).replace(/<[^>]+>/g, "");

/** The newest sign-in link e-mailed to `email`, as a path. */
async function linkMailedTo(email: string, after = 0) {
  const mail = await waitFor(
    async () => (await readOutbox(app.dataDir)).filter((m) => m.to === email && /sign-in link/.test(m.subject))[after],
    {
      what: `the link e-mailed to ${email}`,
    },
  );
  const link = new URL(/https?:\/\/\S+\/sign-in\/confirm\?\S+/.exec(mail.text)![0]);
  return link.pathname + link.search;
}

/** The card step in the page, as Stripe.js does it: the SetupIntent confirmed with a card, then the return page. */
async function payInPage(browser: Browser, details: ReturnType<typeof detailsOf>) {
  const created = await browser.postJson("/api/subscription/create", details);
  expect(created.status, await created.clone().text()).toBe(200);
  const { clientSecret, userId } = (await created.json()) as { clientSecret: string; userId: number };
  const setupIntentId = clientSecret.split("_secret_")[0]!;
  await stripeApi.setupIntents.confirm(setupIntentId, { payment_method: "pm_card_visa" });
  const done = await browser.get(`/subscribe/complete?setup=${setupIntentId}`);
  expect(done.status).toBe(200);
  expect(await text(done)).toContain(en.subscribe.successTitle);
  await stripe.flush();
  return userId;
}

const hasMemberCookie = (response: Response) =>
  response.headers.getSetCookie().some((line) => /member/i.test(line) && !/max-age=0/i.test(line));

describe("a signup with someone else's e-mail and phone", () => {
  it("gives the attacker no way into the account the victim then pays for, on any subscriber page or API", async () => {
    const victimDetails = detailsOf("Victim Person");

    // The attacker signs up first with the victim's e-mail and phone, and starts the card step.
    const attacker = client();
    const squat = await attacker.postForm("/subscribe", { ...victimDetails, fullName: "Attacker" });
    expect(squat.status).toBe(302);
    expect(squat.headers.get("Location")).toBe("/subscribe?step=payment");
    const attackerTrial = await attacker.postJson("/api/subscription/create", victimDetails);
    expect(attackerTrial.status).toBe(200);
    const rowId = ((await attackerTrial.json()) as { userId: number }).userId;

    // The victim signs up with the same details: "check your e-mail", and no session.
    const victim = client();
    const second = await victim.postForm("/subscribe", victimDetails);
    expect(second.status).toBe(200);
    expect(hasMemberCookie(second)).toBe(false);
    const page = await text(second);
    expect(page).toContain(en.subscribe.checkEmail.title);
    expect(page).toContain(victimDetails.email);
    expect(page).not.toContain("Attacker");
    // The JSON API answers the same for another browser, without a session or the row's id.
    const apiSecond = await client().postJson("/api/subscription/create", victimDetails);
    expect(apiSecond.status).toBe(409);
    expect(hasMemberCookie(apiSecond)).toBe(false);
    const apiBody = (await apiSecond.json()) as Record<string, unknown>;
    expect(apiBody).toEqual({
      error: en.subscribe.checkEmail.body.replace("{{email}}", victimDetails.email),
      title: en.subscribe.checkEmail.title,
      action: "check_email",
    });

    // The link goes to the victim's inbox and takes the signup back: the attacker is signed out of it.
    // Each of the two signups mailed one; only the newer works (a new link revokes the older).
    const older = await linkMailedTo(victimDetails.email);
    const link = await linkMailedTo(victimDetails.email, 1);
    const stale = await victim.postForm(older, {}, { tokenFrom: older });
    expect(stale.headers.get("Location")).not.toBe("/subscribe?step=payment");
    const used = await victim.postForm(link, {}, { tokenFrom: link });
    expect(used.status).toBe(302);
    expect(used.headers.get("Location")).toBe("/subscribe?step=payment");
    const attackerPayment = await attacker.get("/subscribe?step=payment");
    expect(attackerPayment.status).toBe(302);
    expect(attackerPayment.headers.get("Location")).toBe("/subscribe");

    // The victim corrects the name and pays.
    const resumed = await victim.postForm("/subscribe", victimDetails);
    expect(resumed.headers.get("Location")).toBe("/subscribe?step=payment");
    expect(await payInPage(victim, victimDetails)).toBe(rowId);
    const account = (await findSubscriber(app.services.db, rowId))!;
    expect(account.status).toBe("trialing");
    expect(account.fullName).toBe("Victim Person");
    expect((await victim.get(`/api/user/${rowId}/dashboard`)).status).toBe(200);

    // Every subscriber page and API refuses the attacker's browser, and shows nothing of the victim.
    const secrets = [victimDetails.email, victimDetails.phone, "Victim Person"];
    const expectRefused = async (what: string, response: Response) => {
      const body = await response.text();
      expect([302, 303, 400, 401, 403, 404], what).toContain(response.status);
      if (response.status >= 300 && response.status < 400)
        expect(response.headers.get("Location"), what).toMatch(/^\/(sign-in|subscribe)\b/);
      for (const secret of secrets) expect(body, what).not.toContain(secret);
    };
    const id = String(rowId);
    for (const path of [
      `/dashboard?userId=${id}`,
      `/preferences?userId=${id}`,
      `/subscription/card?userId=${id}`,
      `/api/user/${id}/dashboard`,
      `/api/users/${id}/profile`,
      "/subscribe?step=payment",
      "/subscribe/complete",
      `/subscribe/complete?setup=seti_x`,
    ]) {
      await expectRefused(`GET ${path}`, await attacker.get(path));
    }
    const preferences = {
      preferredLanguage: "fr",
      callScheduleType: "daily",
      preferredCallTime: "10:00",
      timezone: "Europe/Paris",
      callReminders: false,
    };
    await expectRefused("POST preferences API", await attacker.postJson(`/api/users/${id}/preferences`, preferences));
    await expectRefused("POST upgrade API", await attacker.postJson("/api/subscription/upgrade", { userId: rowId }));
    await expectRefused("POST cancel API", await attacker.postJson("/api/subscription/cancel", { userId: rowId }));
    for (const intent of ["request_call", "upgrade", "cancel", "resume", "sign_out"]) {
      await expectRefused(
        `POST dashboard ${intent}`,
        await attacker.postForm(`/dashboard?userId=${id}`, { intent, feeling: "ok", urgency: "low" }, { tokenFrom: "/contact" }),
      );
    }
    await expectRefused(
      "POST preferences page",
      await attacker.postForm(
        `/preferences?userId=${id}`,
        { preferredLanguage: "fr", callScheduleType: "daily", preferredCallTime: "10:00", timeZone: "Europe/Paris" },
        { tokenFrom: "/contact" },
      ),
    );
    await expectRefused(
      "POST delete account",
      await attacker.postForm(`/preferences?userId=${id}`, { intent: "delete", confirm: "on" }, { tokenFrom: "/contact" }),
    );
    await expectRefused("POST card page", await attacker.postForm(`/subscription/card?userId=${id}`, {}, { tokenFrom: "/contact" }));
    await expectRefused("POST checkout", await attacker.postForm("/subscribe", { intent: "checkout" }, { tokenFrom: "/contact" }));
    // Signing up again from the attacker's browser gets no further than anyone else's.
    const again = await attacker.postJson("/api/subscription/create", victimDetails);
    expect(again.status).toBe(409);
    expect(hasMemberCookie(again)).toBe(false);

    // Nothing the attacker sent changed the account.
    const after = (await findSubscriber(app.services.db, rowId))!;
    expect(after).toMatchObject({
      status: "trialing",
      preferredLanguage: "en",
      cancelAtPeriodEnd: false,
      callScheduleType: account.callScheduleType,
    });
    expect((await victim.get(`/api/user/${rowId}/dashboard`)).status).toBe(200);
  });

  it("still lets the browser that started an unfinished signup resume it, and the magic link resume it in another browser", async () => {
    const details = detailsOf("Sam Owner");
    const browser = client();
    expect((await browser.postForm("/subscribe", details)).headers.get("Location")).toBe("/subscribe?step=payment");
    // Back to the details and on again, then the card step in the page: all the same row.
    const again = await browser.postForm("/subscribe", { ...details, callFrequency: "twice_weekly" });
    expect(again.headers.get("Location")).toBe("/subscribe?step=payment");
    expect(await text(await browser.get("/subscribe?step=payment"))).toContain(details.email);
    const [row] = await app.services.db.select().from(subscribers).where(eq(subscribers.email, details.email));
    expect(row!.callFrequency).toBe("twice_weekly");

    // On the phone later: /sign-in e-mails a link that resumes the unfinished signup there.
    const phone = client();
    expect((await phone.postForm("/sign-in", { email: details.email })).status).toBe(200);
    const link = await linkMailedTo(details.email);
    const used = await phone.postForm(link, {}, { tokenFrom: link });
    expect(used.headers.get("Location")).toBe("/subscribe?step=payment");
    expect(await payInPage(phone, details)).toBe(row!.id);
    expect((await phone.get(`/api/user/${row!.id}/dashboard`)).status).toBe(200);
    // The first browser's session on the unfinished signup ended when the link was used.
    expect((await browser.get(`/api/user/${row!.id}/dashboard`)).status).toBe(404);
  });
});

describe("the payments provider failing on the card step", () => {
  it("answers a JSON error, not a 500, when Stripe gives the trial no SetupIntent to collect the card", async () => {
    const details = detailsOf("No Setup");
    const browser = client();
    await browser.postForm("/subscribe", details);
    const first = await browser.postJson("/api/subscription/create", details);
    expect(first.status).toBe(200);
    // A customer with a default card already: Stripe starts the trial without a pending SetupIntent.
    const [row] = await app.services.db.select().from(subscribers).where(eq(subscribers.email, details.email));
    const card = await stripeApi.paymentMethods.attach("pm_card_visa", { customer: row!.stripeCustomerId! });
    await stripeApi.customers.update(row!.stripeCustomerId!, { invoice_settings: { default_payment_method: card.id } });

    const response = await browser.postJson("/api/subscription/create", details);
    expect(response.status).toBe(502);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ error: en.subscribe.initFailed });
    // The attempt without a card step was withdrawn at Stripe, not left running as a trial.
    const theirs = [...stripe.subscriptions.values()].filter((s) => s.customer === row!.stripeCustomerId);
    expect(theirs.filter((s) => s.status !== "canceled")).toEqual([]);
    await stripe.flush();
    // Once Stripe's events about both withdrawn attempts have arrived, the signup is still
    // unfinished and free to try again: neither cancellation ends it.
    expect((await findSubscriber(app.services.db, row!.id))!.status).toBe("incomplete");
  });

  it("shows a page with a retry link, not the error page, when Stripe fails as the browser returns from Checkout", async () => {
    const details = detailsOf("Checkout Return");
    const browser = client();
    await browser.postForm("/subscribe", details);
    const toCheckout = await browser.postForm("/subscribe", { intent: "checkout" }, { tokenFrom: "/subscribe?step=payment" });
    const paid = await fetch(toCheckout.headers.get("Location")!, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ email: details.email, card_number: "4242 4242 4242 4242" }),
    });
    const back = new URL(paid.headers.get("Location")!);
    const returnPath = back.pathname + back.search;

    // The first try and the SDK's two retries.
    stripe.failNext(
      { method: "GET", pathPrefix: "/v1/checkout/sessions/" },
      500,
      { type: "api_error", message: "An unknown error occurred" },
      3,
    );
    const failed = await browser.get(returnPath);
    expect(failed.status).toBe(503);
    const html = await failed.text();
    expect(html).toContain(en.subscribe.unreachable.title);
    expect(html).toContain(en.subscribe.unreachable.body);
    expect(html).toContain(`href="${returnPath.replace(/&/g, "&amp;")}"`);
    expect(html).toContain(en.subscribe.unreachable.retry);

    // Stripe answering again, the same link finishes the signup.
    const retried = await browser.get(returnPath);
    expect(retried.status).toBe(200);
    expect(await text(retried)).toContain(en.subscribe.successTitle);
    await stripe.flush();
  });

  it("shows the card page's retry, not the error page, when Stripe fails as the browser returns from updating the card", async () => {
    const details = detailsOf("Card Return");
    const browser = client();
    await browser.postForm("/subscribe", details);
    const id = await payInPage(browser, details);
    stripe.failNext(
      { method: "GET", pathPrefix: "/v1/checkout/sessions/" },
      500,
      { type: "api_error", message: "An unknown error occurred" },
      3,
    );
    const response = await browser.get(`/subscription/card?userId=${id}&checkout=cs_test_unreachable`);
    expect(response.status).toBe(503);
    const page = await text(response);
    expect(page).toContain(en.subscribe.card.failed);
    expect(page).toContain(en.subscribe.card.button);
  });
});
