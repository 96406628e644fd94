import { eq } from "drizzle-orm";
import { WebSocket } from "ws";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { registerBusiness } from "#models/businesses";
import { bookings, businessServices } from "#models/schema";
import type { FakeStripe } from "../fakes/stripe";
import routeConfig from "~/routes";
import en from "~/locales/en";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { fetchFrom } from "../support/fetch-from";
import { fieldNames, replayedBooking, seededRandom, STACK, type BookingBody } from "../support/fuzz-probes";
import {
  distinctPaths,
  FUZZ_APP,
  SILENT_MODEL_WARNING,
  OWNER_INTENTS,
  ROUTE_FUZZ_SHARES,
  ROUTE_TABLE,
  routeFuzzShare,
  type RouteEntry,
} from "../support/route-fuzz";
import { allowLog, expectLog } from "../support/console";

/**
 * Every route and method of the route table, sent what a careless client or an attacker sends,
 * first anonymously, then the owner's app again with a signed-in owner's session and CSRF token.
 * The rule: never a 5xx, never a stack trace, the server keeps answering /healthz in under a
 * second while it happens, and an owner never reaches another business's bookings or services.
 * The anonymous route fuzz is dealt into shares (tests/support/route-fuzz.ts): this file runs the
 * first, fuzz-routes.test.ts the second, side by side.
 */

let app: InProcessApp;
let close: () => Promise<void>;
let stripe: FakeStripe;
let paths: string[];

beforeAll(async () => {
  ({ app, stripe, close } = await startAppWithFakes(FUZZ_APP));
  paths = distinctPaths(routeConfig as RouteEntry[]);
});

afterAll(() => close?.());

// The silent fake model's calls end 60 s after the fuzz places them, during any test (see route-fuzz.ts).
beforeEach(() => allowLog("warn", SILENT_MODEL_WARNING));

const RTL = "\u202E";
const NUL = "\u0000";
const hostile = ["", "2147483648", "-1", "abc", "2026-02-31", "😀🇸🇦", `${RTL}gnp.exe`, `a${NUL}b`, "x".repeat(5000)];
const pathValues = ["1", "2147483648", "-1", "abc", "😀", RTL, "%00", "x".repeat(3000)];

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

describe("the route table", () => {
  it("lists every route of app/routes.ts, so a new route is fuzzed too", () => {
    expect([...paths].sort()).toEqual(Object.keys(ROUTE_TABLE).sort());
  });
});

// Before the owner's fuzz below, which may close the demo salon's days (its hours are fuzzed): this
// needs the salon's free times.
describe("replayed retry keys", () => {
  it("never answer another request with a key's booking: seeded bodies changed from the first get no 2xx and nothing of it", async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 20261201);
    const random = seededRandom(seed);
    const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number }[];
    const serviceIds = services.map((s) => s.id);
    const times: string[] = [];
    for (let day = 20; day <= 29 && times.length < 12; day++) {
      const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${serviceIds[0]}`);
      const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
      times.push(...slots.filter((slot) => slot.available).map((slot) => `${date}T${slot.time}`));
    }
    expect(times.length, "the demo salon's free times 20 to 29 days ahead").toBeGreaterThanOrEqual(12);
    // Each request from an address of its own (the socket's), so the booking limits per address never answer for the rule.
    let visitor = 0;
    const post = (body: BookingBody, headers: Record<string, string> = { "Content-Type": "application/json" }) =>
      fetchFrom(`127.0.44.${(visitor++ % 250) + 1}`)(`${app.url}/api/booking/create`, {
        method: "POST",
        headers,
        body: JSON.stringify(body),
      });
    const failures: string[] = [];
    let refused = 0;
    for (let k = 0; k < 4; k++) {
      const first = {
        businessLink: "demo-salon",
        serviceId: serviceIds[0]!,
        appointmentDate: times[k * 3]!,
        customerInfo: {
          name: `Key Owner ${k}`,
          phone: `+1646555${String(3100 + k)}`,
          email: `key.owner${k}@example.com`,
          notes: "Window seat",
        },
        idempotencyKey: `fuzz-replay-${seed}-${k}`,
      };
      const made = await post(first);
      expect(made.status, await made.clone().text()).toBe(201);
      const { booking } = (await made.json()) as { booking: { id: number; reference: string; customerPhone: string } };
      // The first request itself, sent again, gets its booking.
      const again = await post(first);
      expect(again.status).toBe(200);
      expect(((await again.json()) as { booking: { id: number } }).booking.id).toBe(booking.id);
      const secrets = [booking.reference, booking.reference.replace("-", ""), booking.customerPhone, first.customerInfo.name];
      for (let n = 0; n < 8; n++) {
        const replay = replayedBooking(random, first, { times, serviceIds });
        const response = await post(replay.body, replay.headers);
        const text = await response.text();
        if (response.status === 409 && JSON.parse(text).code === "idempotency_key_reused") refused += 1;
        if (response.status < 300 || secrets.some((secret) => text.includes(secret)) || STACK.test(text)) {
          failures.push(`${replay.what} → ${response.status} ${text.slice(0, 200)}`);
        }
      }
    }
    expect(failures, `replay failures (FUZZ_SEED=${seed} reproduces them)`).toEqual([]);
    // Most replays reach the key's check (the rest are refused earlier: a hostile value is a field error).
    expect(refused).toBeGreaterThan(16);
  });
});

describe("the route fuzz, as every kind of visitor", () => {
  it(
    `answers its share (1 of ${ROUTE_FUZZ_SHARES.length}) of 10,000 seeded hostile requests on every route and role without a 5xx or a stack trace, and stays responsive`,
    { timeout: 900_000 },
    () => routeFuzzShare(app, stripe.url, paths, 0),
  );
});

describe("the call streams, sent what an attacker sends", () => {
  it(
    "refuse or close every forged, garbage or oversized WebSocket without a 5xx, and the server keeps answering",
    { timeout: 60_000 },
    async () => {
      expectLog("warn", /voice stream for web call \d+ refused: bad token/);
      const ws = app.url.replace(/^http/, "ws");
      const forgedStart = (token: string) =>
        JSON.stringify({ event: "start", start: { streamSid: "MZ1", callSid: "CA1", customParameters: { token } } });
      const frames: (string | Buffer)[] = [
        "not json",
        "{}",
        forgedStart("forged"),
        forgedStart(""),
        JSON.stringify({ event: "media", media: { payload: "%%%not base64" } }),
        JSON.stringify({ event: "stop" }),
        Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x00]),
        "x".repeat(2 * 1024 * 1024),
      ];
      const paths = [
        "/media-stream/1",
        "/media-stream/abc",
        `/media-stream/${2 ** 53}`,
        "/web-call-stream/1",
        "/web-call-stream/9999999999",
        "/web-call-stream/%FF",
        "/web-call-stream/",
        "/no-such-stream",
      ];
      const headerSets: Record<string, string>[] = [
        {},
        { "X-Twilio-Signature": "forged" },
        { Host: "x:99999", Origin: "https://evil.example" },
      ];
      const results: string[] = [];
      for (const path of paths) {
        for (const headers of headerSets) {
          for (const frame of frames) {
            const outcome = await new Promise<string>((resolve) => {
              const socket = new WebSocket(ws + path, { headers });
              const timer = setTimeout(() => {
                socket.terminate();
                resolve("still open after 5 s");
              }, 5000);
              const end = (what: string) => {
                clearTimeout(timer);
                resolve(what);
              };
              socket.on("unexpected-response", (_request, response) => {
                end(`refused ${response.statusCode}`);
                socket.terminate();
              });
              socket.on("error", (error) => end(`error ${error.message}`));
              socket.on("open", () => {
                socket.send(frame);
                // A forged start is answered by closing; anything else gets a well-formed stop so the socket ends.
                socket.send(JSON.stringify({ event: "stop" }));
                socket.close();
              });
              socket.on("close", (code) => end(`closed ${code}`));
            });
            results.push(`${path} ${JSON.stringify(headers)} ${String(frame).slice(0, 20)}: ${outcome}`);
          }
        }
      }
      const health = await fetch(`${app.url}/healthz`);
      console.log(
        `call stream fuzz: ${results.length} connections; ${results.filter((r) => /refused 5|still open/.test(r)).length} x 5xx or hung`,
      );
      expect(results.filter((r) => /refused 5\d\d|still open/.test(r))).toEqual([]);
      expect(health.status).toBe(200);
    },
  );
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
