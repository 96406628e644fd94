import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerBusiness } from "#models/businesses";
import { bookings, businessServices } from "#models/schema";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import routeConfig from "~/routes";
import en from "~/locales/en";
import { startAppInProcess } from "../support/app-in-process";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";

/**
 * Every route and method of the route table, sent what a careless client or an attacker sends,
 * first anonymously, then the owner's app again with a signed-in owner's session and CSRF token.
 * The rule: never a 5xx, never a stack trace, the server keeps answering /healthz in under a
 * second while it happens, and an owner never reaches another business's bookings or services.
 */

interface RouteEntry {
  path?: string;
  index?: boolean;
  children?: RouteEntry[];
}

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let stripe: FakeStripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let paths: string[];

beforeAll(async () => {
  [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime()]);
  app = await startAppInProcess({
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
    STRIPE_WEBHOOK_SECRET: "whsec_fuzz",
    STRIPE_API_URL: stripe.url,
    STRIPE_JS_URL: stripe.jsUrl,
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    OPENAI_API_KEY: realtime.apiKey,
    OPENAI_BASE_URL: realtime.url,
  });
  paths = routePaths(routeConfig as RouteEntry[]);
});

afterAll(async () => {
  // Calls the fuzz placed (demo and test calls to its numbers) are hung up first.
  for (const [sid, call] of twilio?.calls ?? []) {
    if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
  }
  await app?.stop();
  await Promise.all([stripe?.close(), twilio?.close(), realtime?.close()]);
});

/** Each route's full URL pattern, from app/routes.ts (nested paths joined). */
function routePaths(routes: RouteEntry[], prefix = ""): string[] {
  return routes.flatMap((route) => {
    const own = [prefix, route.path ?? ""].filter(Boolean).join("/");
    return [...(route.path !== undefined || route.index ? [`/${own}`] : []), ...routePaths(route.children ?? [], own)];
  });
}

const RTL = "\u202E";
const NUL = "\u0000";
const hostile = ["", "2147483648", "-1", "abc", "2026-02-31", "😀🇸🇦", `${RTL}gnp.exe`, `a${NUL}b`, "x".repeat(5000)];
const pathValues = ["1", "2147483648", "-1", "abc", "😀", RTL, "%00", "x".repeat(3000)];

/** Field names the app's forms and APIs read; unknown names are harmless extras. */
const fieldNames = [
  "email",
  "password",
  "current",
  "confirm",
  "name",
  "businessName",
  "phone",
  "to",
  "message",
  "subject",
  "urgency",
  "industry",
  "service",
  "serviceId",
  "bookingId",
  "businessId",
  "dayOffId",
  "date",
  "time",
  "note",
  "price",
  "currency",
  "durationMinutes",
  "description",
  "address",
  "timeZone",
  "language",
  "voice",
  "token",
  "code",
  "paymentIntentId",
  "idempotencyKey",
  "active",
  "lng",
  "redirectTo",
  "adult",
  "recording",
];
const intents = [
  "confirm-booking",
  "cancel-booking",
  "reschedule-booking",
  "add-service",
  "edit-service",
  "toggle-service",
  "save-hours",
  "add-day-off",
  "remove-day-off",
  "save-settings",
  "cancel",
  "reschedule",
  "resend",
  "bogus",
];

/** Pages whose forms carry several actions, told apart by a hidden `intent` field. */
const INTENT_ROUTES = ["/dashboard", "/booking/:token"];

/**
 * The owner's app, fuzzed again with a signed-in owner: each page with the intents of its own
 * forms (they all post to one action, which the probes of every intent on every page reach too).
 */
const OWNER_INTENTS: Record<string, string[]> = {
  "/dashboard": ["confirm-booking", "cancel-booking", "reschedule-booking", "no-show-booking", "bogus"],
  "/dashboard/bookings/:bookingId": ["confirm-booking", "cancel-booking", "reschedule-booking", "no-show-booking", "bogus"],
  "/dashboard/services": ["add-service", "edit-service", "toggle-service", "bogus"],
  "/dashboard/hours": ["save-hours", "add-day-off", "remove-day-off", "bogus"],
  "/dashboard/calls": ["bogus"],
  "/dashboard/plan": ["upgrade", "cancel", "keep", "bogus"],
  "/dashboard/analytics": ["bogus"],
  "/dashboard/analytics/events": ["bogus"],
  "/dashboard/settings": ["save-settings", "bogus"],
  "/dashboard/support": ["bogus"],
};
const OWNER_ROUTES = Object.keys(OWNER_INTENTS);

async function firstChunkThenCancel(response: Response) {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const { value } = await reader.read();
  await reader.cancel();
  return new TextDecoder().decode(value ?? new Uint8Array());
}

function fill(pattern: string, value: string) {
  return pattern
    .split("/")
    .map((segment) =>
      segment.startsWith(":") ? encodeURIComponent(value).replace("%2500", "%00") : segment === "*" ? "no-such-page" : segment,
    )
    .join("/");
}

interface Probe {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | FormData;
  what: string;
}

function probesFor(
  pattern: string,
  csrf: string,
  {
    pageIntents = INTENT_ROUTES.includes(pattern) ? intents : [],
    extraPathValues = [],
  }: { pageIntents?: string[]; extraPathValues?: string[] } = {},
): Probe[] {
  const path = fill(pattern, pattern.includes("bookingLink") ? "demo-salon" : "1");
  const probes: Probe[] = [];
  for (const value of pattern.includes(":") ? [...pathValues, ...extraPathValues] : ["1"])
    probes.push({ method: "GET", path: fill(pattern, value), what: `path param ${value.slice(0, 12)}` });
  if (pattern.includes(":")) {
    for (const value of ["2147483648", "-1", "%00"]) {
      probes.push({
        method: "POST",
        path: fill(pattern, value),
        headers: { "Content-Type": "application/json" },
        body: "{}",
        what: "POST path param",
      });
    }
  }
  for (const method of ["HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"]) probes.push({ method, path, what: method });
  const form = (fields: [string, string][]) => ({
    method: "POST",
    path,
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams([["csrf", csrf], ...fields]).toString(),
  });
  const json = (value: unknown) => ({ method: "POST", path, headers: { "Content-Type": "application/json" }, body: JSON.stringify(value) });
  probes.push({ method: "POST", path, what: "no body" });
  probes.push({ ...form([]), what: "empty form" });
  probes.push({ ...json({}), what: "empty JSON" });
  for (const value of hostile) {
    probes.push({ ...form(fieldNames.map((n) => [n, value])), what: `form ${JSON.stringify(value.slice(0, 12))}` });
    for (const intent of pageIntents) {
      probes.push({ ...form([["intent", intent], ...fieldNames.map((n): [string, string] => [n, value])]), what: `form ${intent}` });
    }
    probes.push({ ...json(Object.fromEntries(fieldNames.map((n) => [n, value]))), what: `JSON ${JSON.stringify(value.slice(0, 12))}` });
  }
  for (const wrong of [2147483648, true, null, [1, 2], { nested: { deep: 1 } }]) {
    probes.push({ ...json(Object.fromEntries(fieldNames.map((n) => [n, wrong]))), what: `JSON wrong type ${JSON.stringify(wrong)}` });
  }
  probes.push({
    ...form(
      fieldNames.flatMap(
        (n) =>
          [
            [n, "a"],
            [n, "b"],
          ] as [string, string][],
      ),
    ),
    what: "duplicated fields",
  });
  probes.push({ ...json([1, 2, 3]), what: "JSON array" });
  probes.push({ method: "POST", path, headers: { "Content-Type": "application/json" }, body: '{"email":', what: "broken JSON" });
  probes.push({ method: "POST", path, headers: { "Content-Type": "text/plain" }, body: "hello", what: "text/plain" });
  const multipart = new FormData();
  multipart.set("csrf", csrf);
  for (const n of fieldNames) multipart.set(n, "😀");
  probes.push({ method: "POST", path, body: multipart, what: "multipart" });
  probes.push({
    method: "POST",
    path,
    headers: { "Content-Type": "multipart/form-data; boundary=x" },
    body: "--x\r\nbroken",
    what: "broken multipart",
  });
  probes.push({ ...form([]), body: OVERSIZED_FORM, what: "oversized form" });
  probes.push({ ...json(null), body: OVERSIZED_JSON, what: "oversized JSON" });
  return probes;
}

const OVERSIZED_FORM = `a=${"x".repeat(2 * 1024 * 1024)}`;
const OVERSIZED_JSON = JSON.stringify({ a: "x".repeat(2 * 1024 * 1024) });

const STACK = /\n\s+at \S|\(\/work\/|\/app\/(routes|features|platform)\/|node_modules\//;

/** Sends the probes, three at a time; returns what failed the rule, and each request's time. */
async function send(queue: Probe[], cookie: string) {
  const failures: string[] = [];
  const timings: [number, string][] = [];
  let sent = 0;
  const worker = async () => {
    for (let probe = queue.shift(); probe; probe = queue.shift()) {
      sent += 1;
      const probeStarted = performance.now();
      const response = await fetch(app.url + probe.path, {
        method: probe.method,
        redirect: "manual",
        headers: { Cookie: cookie, ...probe.headers },
        body: probe.body,
      }).catch((error: Error) => error);
      if (response instanceof Error) {
        failures.push(`${probe.method} ${probe.path.slice(0, 80)} (${probe.what}): ${response.message}`);
        continue;
      }
      // An event stream (the owner's live analytics) stays open: its first event is read, then it is closed.
      const text = response.headers.get("content-type")?.startsWith("text/event-stream")
        ? await firstChunkThenCancel(response)
        : await response.text();
      timings.push([performance.now() - probeStarted, `${probe.method} ${probe.path.slice(0, 60)} (${probe.what}) → ${response.status}`]);
      if (response.status >= 500 || STACK.test(text) || (response.status === 429 && !response.headers.get("Retry-After"))) {
        failures.push(`${probe.method} ${probe.path.slice(0, 80)} (${probe.what}) → ${response.status} ${text.slice(0, 200)}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 3 }, worker));
  return { failures, timings, sent };
}

describe("the route fuzz", () => {
  it("answers every route and method without a 5xx or a stack trace, and stays responsive", { timeout: 240_000 }, async () => {
    const client = httpClient(app.url);
    const html = await (await client.get("/contact")).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const cookie = [...client.jar].map(([k, v]) => `${k}=${v}`).join("; ");

    const queue = paths.flatMap((pattern) => probesFor(pattern, csrf));
    let slowestHealth = 0;
    let healthChecks = 0;
    let running = true;
    const monitor = (async () => {
      while (running) {
        const started = performance.now();
        const response = await fetch(`${app.url}/healthz`).catch(() => null);
        await response?.arrayBuffer();
        slowestHealth = Math.max(slowestHealth, performance.now() - started);
        healthChecks += 1;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();

    const started = performance.now();
    const { failures, timings, sent } = await send(queue, cookie);
    running = false;
    await monitor;
    console.log(
      `fuzz: ${sent} requests on ${paths.length} routes in ${Math.round(performance.now() - started)} ms; ` +
        `slowest of ${healthChecks} health checks ${Math.round(slowestHealth)} ms; slowest requests:\n` +
        timings
          .sort((a, b) => b[0] - a[0])
          .slice(0, 8)
          .map(([ms, what]) => `  ${Math.round(ms)} ms ${what}`)
          .join("\n"),
    );
    expect(failures).toEqual([]);
    expect(healthChecks).toBeGreaterThan(0);
    expect(slowestHealth).toBeLessThan(1000);
  });
});

describe("the owner's app, fuzzed with a signed-in owner", () => {
  it(
    "answers every hostile form and path without a 5xx or a stack trace, and leaves another business's rows alone",
    { timeout: 120_000 },
    async () => {
      // A new page of the owner's app is fuzzed too, once it is listed with its intents.
      expect(paths.filter((path) => path.startsWith("/dashboard")).sort()).toEqual([...OWNER_ROUTES].sort());
      // Another business, with a service and a booking the demo owner must never reach.
      const db = app.services.db;
      const registered = await registerBusiness(db, {
        name: "Fuzz Other Studio",
        ownerName: "Other Owner",
        email: "fuzz-other@example.com",
        phone: "+442079460958",
        industry: "beauty",
      });
      const other = "created" in registered ? registered.created : registered.existing;
      const [service] = await db
        .insert(businessServices)
        .values({ businessId: other.id, name: "Other cut", priceCents: 2500, durationMinutes: 30 })
        .returning();
      const startsAt = new Date(Date.now() + 3 * 86_400_000);
      const [booking] = await db
        .insert(bookings)
        .values({
          businessId: other.id,
          serviceId: service!.id,
          startsAt,
          endsAt: new Date(startsAt.getTime() + 30 * 60_000),
          customerName: "Not Yours",
          customerPhone: "+442079460959",
          manageTokenHash: "fuzz-foreign-booking",
        })
        .returning();
      const foreign = { booking: booking!, service: service! };

      // The demo owner, signed in from an address of its own (the anonymous fuzz spent 127.0.0.1's login attempts).
      const password = await demoOwnerPassword(app.url, app.dataDir);
      const owner = httpClient(app.url, { localAddress: "127.0.0.251" });
      expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
      const signedIn = async () => (await (await owner.get("/dashboard")).text()).includes(`aria-label="${en.owner.shell.nav}"`);
      expect(await signedIn()).toBe(true);
      const csrf = /name="csrf" value="([^"]+)"/.exec(await (await owner.get("/dashboard")).text())![1]!;
      const cookie = [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ");
      const foreignForm = (path: string, intent: string): Probe => ({
        method: "POST",
        path,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          csrf,
          intent,
          bookingId: String(foreign.booking.id),
          serviceId: String(foreign.service.id),
          businessId: String(other.id),
          date: startsAt.toISOString().slice(0, 10),
          time: "10:00",
          name: "Taken over",
          price: "1",
          durationMinutes: "30",
          active: "false",
        }).toString(),
        what: `${intent} on another business's rows`,
      });

      // Another business's booking is not found, by its address or by any of the booking actions.
      const foreignPage = `/dashboard/bookings/${foreign.booking.id}`;
      expect((await owner.get(foreignPage)).status).toBe(404);
      for (const path of ["/dashboard", foreignPage]) {
        for (const intent of ["confirm-booking", "cancel-booking", "reschedule-booking"]) {
          const probe = foreignForm(path, intent);
          const response = await fetch(app.url + path, {
            method: "POST",
            redirect: "manual",
            headers: { Cookie: cookie, ...probe.headers },
            body: probe.body,
          });
          expect(`${intent} on ${path}: ${response.status}`).toBe(`${intent} on ${path}: 404`);
        }
      }

      // The hostile inputs of the anonymous pass, now with the owner's session and CSRF token, and
      // every intent of every page pointed at the other business's booking and service.
      const queue = OWNER_ROUTES.flatMap((pattern) => [
        ...probesFor(pattern, csrf, { pageIntents: OWNER_INTENTS[pattern], extraPathValues: [String(foreign.booking.id)] }),
        ...intents.map((intent) => foreignForm(fill(pattern, String(foreign.booking.id)), intent)),
      ]);
      const started = performance.now();
      const { failures, timings, sent } = await send(queue, cookie);
      const statuses = new Map<string, number>();
      for (const [, what] of timings) {
        const status = what.slice(what.lastIndexOf("→ ") + 2);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
      console.log(
        `owner fuzz: ${sent} requests on ${OWNER_ROUTES.length} routes in ${Math.round(performance.now() - started)} ms; ` +
          `statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
      expect(failures).toEqual([]);
      // The probes ran as the owner: the session outlived them.
      expect(await signedIn()).toBe(true);
      const [bookingAfter] = await db.select().from(bookings).where(eq(bookings.id, foreign.booking.id));
      const [serviceAfter] = await db.select().from(businessServices).where(eq(businessServices.id, foreign.service.id));
      expect(bookingAfter).toEqual(foreign.booking);
      expect(serviceAfter).toEqual(foreign.service);
    },
  );
});

describe("bounded work per request", () => {
  it("answers a 1 MB form of one repeated field at once, with 413 and the limit", async () => {
    const client = httpClient(app.url);
    const html = await (await client.get("/contact")).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const body = `csrf=${csrf}&` + "name=a&".repeat((1024 * 1024) / 7);
    for (const chunked of [false, true]) {
      const started = performance.now();
      const response = await fetch(`${app.url}/contact`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        // A stream is sent chunked, with no Content-Length to refuse it by.
        body: chunked ? new Blob([body]).stream() : body,
        ...(chunked ? { duplex: "half" } : {}),
      } as RequestInit);
      const text = await response.text();
      const elapsed = performance.now() - started;
      console.log(
        `1 MB repeated-field form (${chunked ? "chunked" : "with Content-Length"}): ${response.status} in ${Math.round(elapsed)} ms`,
      );
      expect(response.status).toBe(413);
      expect(text).toContain("64 KB");
      expect(elapsed).toBeLessThan(2000);
    }
  });

  it("refuses a form within the size limit but with too many repeats of one field", async () => {
    const client = httpClient(app.url);
    const response = await client.postForm("/contact", { name: "a" }, {});
    expect(response.status).not.toBe(413);
    const html = await (await client.get("/contact")).text();
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    const started = performance.now();
    const repeated = await fetch(`${app.url}/contact`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `csrf=${csrf}&` + "a=1&".repeat(15_000),
    });
    expect(repeated.status).toBe(413);
    expect(await repeated.text()).toMatch(/too many fields.*200 fields.*20 values/);
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it("answers JSON sent to a page's form with 415, and JSON APIs still take JSON", async () => {
    const page = await fetch(`${app.url}/contact`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(page.status).toBe(415);
    expect(await page.text()).toContain("application/json");
    const api = await fetch(`${app.url}/api/auth/login`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    expect(api.status).toBe(400);
    expect(await api.json()).toHaveProperty("error");
  });

  it("answers a large JSON body on an API with 413 and a JSON error naming the limit", async () => {
    const response = await fetch(`${app.url}/api/auth/login`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "x".repeat(2 * 1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: expect.stringContaining("1 MB") });
  });

  it("answers 404 to every method on an unknown address", async () => {
    for (const method of ["GET", "POST", "PUT", "DELETE", "PATCH"]) {
      const response = await fetch(`${app.url}/no/such/page`, { method, redirect: "manual" });
      expect(`${method} ${response.status}`).toBe(`${method} 404`);
    }
  });
});
