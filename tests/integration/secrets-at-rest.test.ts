import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSubscriber, updateSubscriber } from "#models/subscribers";
import { createAdminWithLink } from "~/features/admin/admins.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { unseal } from "~/platform/security/secret.server";
import type { FakeStripe } from "../fakes/stripe";
import { startAppInProcess } from "../support/app-in-process";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { linkIn, waitForMail, type OutboxMail } from "../support/outbox";
import { waitFor } from "../support/wait";

type App = InProcessApp;
let close: () => Promise<void>;

const DEMO_EMAIL = "demo@sakina.app";
const ADMIN_EMAIL = "new.admin@example.com";
const SUBSCRIBER_EMAIL = "maya.secret@example.com";
const CUSTOMER_EMAIL = "booking.customer@example.com";
const OWNER_EMAIL = "studio.owner@example.com";

let stripe: FakeStripe;
let app: App;

beforeAll(async () => {
  ({ app, stripe, close } = await startAppWithFakes({ stripe: true }));
});

afterAll(() => close?.());

/** Every row of every table (the app's, pg-boss's, Drizzle's), as text: what a plain SELECT shows. */
async function dumpDatabase(target: App) {
  const { rows } = await target.services.database.executeSql(
    `SELECT table_schema, table_name FROM information_schema.tables
     WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`,
  );
  const parts: string[] = [];
  for (const { table_schema, table_name } of rows as { table_schema: string; table_name: string }[]) {
    const result = await target.services.database.executeSql(`SELECT t::text AS row FROM "${table_schema}"."${table_name}" t`);
    for (const { row } of result.rows as { row: string }[]) parts.push(`${table_schema}.${table_name}: ${row}`);
  }
  return parts.join("\n");
}

/** The e-mail jobs as pg-boss keeps them (waiting, done, given up). */
async function emailJobs(target: App) {
  const { rows } = await target.services.database.executeSql(`SELECT state::text AS state, data FROM pgboss.job WHERE name = 'email-send'`);
  return rows as { state: string; data: { sealed?: string } | null }[];
}

/** The addresses of the e-mails waiting in the queue, opened with the app's own key (as its worker does). */
async function waitingRecipients(target: App) {
  return (await emailJobs(target))
    .filter((job) => ["created", "retry"].includes(job.state) && job.data?.sealed)
    .map((job) => (JSON.parse(unseal(target.services.signingSecret, "job data", job.data!.sealed!)!) as { to: string }).to);
}

/** A trialing subscriber with a customer at Stripe (what a finished signup leaves). */
async function subscriberWithCustomer(email: string, phone: string) {
  const subscriber = (await createSubscriber(app.services.db, {
    fullName: "Maya Haddad",
    email,
    phone,
    callFrequency: "weekly",
    callScheduleType: "weekly",
    preferredLanguage: "en",
    timeZone: "America/New_York",
  }))!;
  const customerId = await app.services.billing!.createCustomer(
    { email, name: "Maya Haddad", phone, metadata: { subscriberId: String(subscriber.id) } },
    `test-customer-${subscriber.id}`,
  );
  await updateSubscriber(app.services.db, subscriber.id, { status: "trialing", stripeCustomerId: customerId });
  return { id: subscriber.id, customerId };
}

async function bookDemoSalon(email: string) {
  const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number }[];
  for (let day = 1; day <= 14; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${services[0]!.id}`);
    if (response.status !== 200) continue;
    const slot = ((await response.json()) as { time: string; available: boolean }[]).find((s) => s.available);
    if (!slot) continue;
    const booked = await httpClient(app.url).postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: services[0]!.id,
      appointmentDate: `${date}T${slot.time}`,
      customerInfo: { name: "Sam Customer", phone: "+12125550188", email },
      requestCall: false,
    });
    expect(booked.status, await booked.clone().text()).toBe(201);
    return;
  }
  throw new Error("no free slot at demo-salon in two weeks");
}

const tokenOf = (mail: OutboxMail, path: string) => {
  const link = new URL(linkIn(mail, path));
  return link.searchParams.get("token") ?? decodeURIComponent(link.pathname.split("/").at(-1)!);
};

describe("secrets at rest", () => {
  it("keeps no usable link in the database while the e-mails wait or after they went, and erases each sent message", async () => {
    // The e-mails stay in the queue until the worker comes back.
    await app.services.jobs.boss.offWork(sendEmailJob.name);
    const visitor = httpClient(app.url);
    expect((await visitor.postJson("/api/auth/forgot-password", { email: DEMO_EMAIL })).status).toBe(200);
    const invite = await createAdminWithLink(app.services, ADMIN_EMAIL);
    expect(invite.ok).toBe(true);
    await subscriberWithCustomer(SUBSCRIBER_EMAIL, "+12125550177");
    expect((await visitor.postForm("/sign-in", { email: SUBSCRIBER_EMAIL })).status).toBe(200);
    await bookDemoSalon(CUSTOMER_EMAIL);
    const registered = await httpClient(app.url).postJson("/api/business/register", {
      name: "Secret Studio",
      ownerName: "Studio Owner",
      email: OWNER_EMAIL,
      phone: "+44 20 7946 0958",
    });
    expect(registered.status).toBe(201);

    const waiting = await waitingRecipients(app);
    for (const to of [DEMO_EMAIL, ADMIN_EMAIL, SUBSCRIBER_EMAIL, CUSTOMER_EMAIL, OWNER_EMAIL]) expect(waiting).toContain(to);
    const whileWaiting = await dumpDatabase(app);

    await app.services.jobs.startWorkers([sendEmailJob], app.services);
    const tokens = {
      reset: tokenOf(await waitForMail(app.dataDir, DEMO_EMAIL, /Reset your Sakina password/), "/reset-password"),
      invite: tokenOf(await waitForMail(app.dataDir, ADMIN_EMAIL, /Set your Sakina admin password/), "/reset-password"),
      signIn: tokenOf(await waitForMail(app.dataDir, SUBSCRIBER_EMAIL, /sign-in link/), "/sign-in/confirm"),
      booking: tokenOf(await waitForMail(app.dataDir, CUSTOMER_EMAIL, /Your booking request/), "/booking/"),
      verify: tokenOf(await waitForMail(app.dataDir, OWNER_EMAIL, /Confirm your e-mail/), "/verify-email"),
    };
    // Every sent message is erased from its job, which pg-boss keeps for a day.
    const jobs = await waitFor(
      async () => {
        const all = await emailJobs(app);
        return all.every((job) => job.state === "completed") ? all : null;
      },
      { what: "every e-mail job completed" },
    );
    expect(jobs.length).toBeGreaterThanOrEqual(6);
    expect(jobs.filter((job) => job.data !== null)).toEqual([]);
    const afterSending = await dumpDatabase(app);

    for (const [kind, token] of Object.entries(tokens)) {
      expect(token.length, kind).toBeGreaterThanOrEqual(32);
      expect(whileWaiting, `${kind} token while the e-mail waits`).not.toContain(token);
      expect(afterSending, `${kind} token after the e-mail went`).not.toContain(token);
    }
    for (const address of [ADMIN_EMAIL, CUSTOMER_EMAIL]) {
      expect(whileWaiting.split("\n").filter((row) => row.startsWith("pgboss.") && row.includes(address))).toEqual([]);
    }

    // The attacker tries every token-looking string of the dump as a link: none opens anything.
    const candidates = [...new Set(`${whileWaiting}\n${afterSending}`.match(/[A-Za-z0-9_-]{32,}/g) ?? [])];
    expect(candidates.length).toBeGreaterThan(0);
    const attacker = httpClient(app.url);
    for (const candidate of candidates) {
      const q = encodeURIComponent(candidate);
      const reset = await (await attacker.get(`/reset-password?token=${q}&email=${encodeURIComponent(DEMO_EMAIL)}`)).text();
      expect(reset, candidate).not.toContain('name="password"');
      const adminReset = await (await attacker.get(`/reset-password?token=${q}&email=${encodeURIComponent(ADMIN_EMAIL)}`)).text();
      expect(adminReset, candidate).not.toContain('name="password"');
      const signIn = await attacker.get(`/sign-in/confirm?token=${q}&email=${encodeURIComponent(SUBSCRIBER_EMAIL)}`);
      expect(await signIn.text(), candidate).toContain("This sign-in link does not work");
      expect((await attacker.get(`/booking/${q}`)).status, candidate).toBe(404);
    }

    // The e-mailed links themselves still work.
    const owner = httpClient(app.url);
    const resetPage = await owner.get(`/reset-password?token=${encodeURIComponent(tokens.reset)}&email=${encodeURIComponent(DEMO_EMAIL)}`);
    expect(await resetPage.text()).toContain('name="password"');
    const invitePage = await owner.get(
      `/reset-password?token=${encodeURIComponent(tokens.invite)}&email=${encodeURIComponent(ADMIN_EMAIL)}`,
    );
    expect(await invitePage.text()).toContain('name="password"');
    expect((await owner.get(`/booking/${tokens.booking}`)).status).toBe(200);
    const signInPath = `/sign-in/confirm?token=${encodeURIComponent(tokens.signIn)}&email=${encodeURIComponent(SUBSCRIBER_EMAIL)}`;
    const signInPage = await (await owner.get(signInPath)).text();
    expect(signInPage).toContain("Sign in to Sakina");
    expect(signInPage).not.toContain("This sign-in link does not work");
    // Some sixty token-looking strings, each tried as four links, on a busy machine.
  }, 240_000);

  it("deletes an account's waiting e-mails and its customer at Stripe with the account", async () => {
    const email = "leaving.subscriber@example.com";
    const subscriber = await subscriberWithCustomer(email, "+12125550178");
    expect(stripe.customers.get(subscriber.customerId)?.email).toBe(email);
    const browser = httpClient(app.url);
    expect((await browser.postForm("/sign-in", { email })).status).toBe(200);
    const link = new URL(linkIn(await waitForMail(app.dataDir, email, /sign-in link/), "/sign-in/confirm"));
    const confirm = `${link.pathname}${link.search}`;
    expect((await browser.postForm(confirm, {}, { tokenFrom: confirm })).status).toBe(302);

    // A second link is asked for while the e-mail worker is away: it waits in the queue.
    await app.services.jobs.boss.offWork(sendEmailJob.name);
    expect((await httpClient(app.url).postForm("/sign-in", { email })).status).toBe(200);
    expect(await waitingRecipients(app)).toContain(email);

    const preferences = `/preferences?userId=${subscriber.id}`;
    const deleted = await browser.postForm(preferences, { intent: "delete", confirm: "on" }, { tokenFrom: preferences });
    expect(deleted.status).toBe(302);
    expect(await waitingRecipients(app)).not.toContain(email);
    expect((await dumpDatabase(app)).includes(email)).toBe(false);
    expect(stripe.customers.get(subscriber.customerId)?.deleted).toBe(true);
    const atStripe = await fetch(`${stripe.url}/v1/customers/${subscriber.customerId}`, {
      headers: { Authorization: `Bearer ${stripe.secretKey}` },
    });
    expect(await atStripe.json()).toEqual({ id: subscriber.customerId, object: "customer", deleted: true });
    await app.services.jobs.startWorkers([sendEmailJob], app.services);
  });
});

/** A raw GET, so the test sends exactly the headers it means to. */
function get(url: string, path: string, headers: Record<string, string> = {}) {
  const target = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request({ host: target.hostname, port: target.port, path, headers }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("the development outbox", () => {
  it("is shown to this machine in development, and to no forwarded request", async () => {
    await httpClient(app.url).postJson("/api/auth/forgot-password", { email: DEMO_EMAIL });
    await waitForMail(app.dataDir, DEMO_EMAIL, /Reset your Sakina password/);
    const local = await get(app.url, "/dev/outbox");
    expect(local.status).toBe(200);
    expect(local.body).toContain("/reset-password?token=");
    const forwardings: Record<string, string>[] = [
      { "X-Forwarded-For": "203.0.113.9" },
      { Forwarded: "for=203.0.113.9" },
      { "X-Real-IP": "203.0.113.9" },
      { "X-Forwarded-For": "127.0.0.1" },
    ];
    for (const headers of forwardings) {
      const forwarded = await get(app.url, "/dev/outbox", headers);
      expect(forwarded.status, JSON.stringify(headers)).toBe(404);
      expect(forwarded.body).not.toContain("reset-password");
    }
  });

  it("is not shown behind a trusted proxy, even to a visitor whose proxy says nothing", async () => {
    const proxied = await startAppInProcess({ TRUST_PROXY: "1" });
    try {
      await httpClient(proxied.url).postJson("/api/auth/forgot-password", { email: DEMO_EMAIL });
      await waitForMail(proxied.dataDir, DEMO_EMAIL, /Reset your Sakina password/);
      const remote = await get(proxied.url, "/dev/outbox", { "X-Forwarded-For": "203.0.113.9" });
      expect(remote.status).toBe(404);
      expect(remote.body).not.toContain("reset-password");
      expect((await get(proxied.url, "/dev/outbox")).status).toBe(404);
    } finally {
      await proxied.stop();
    }
  });

  it("does not exist in production, even for this machine", async () => {
    const production = await startAppInProcess({ NODE_ENV: "production" });
    try {
      expect((await get(production.url, "/dev/outbox")).status).toBe(404);
    } finally {
      await production.stop();
    }
  });
});
