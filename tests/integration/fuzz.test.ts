import http from "node:http";
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
import {
  describeProbe,
  fieldNames,
  probe as fuzzProbe,
  seededRandom,
  send as sendProbe,
  STACK,
  type Probe as FuzzProbe,
} from "../support/fuzz-probes";
import { fuzzRoles } from "../support/fuzz-roles";
import { allowLog, expectLog } from "../support/console";
import { JSON_API_ROUTES } from "~/platform/http/csrf.server";

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

let app: InProcessApp;
let close: () => Promise<void>;
let stripe: FakeStripe;
let paths: string[];

beforeAll(async () => {
  ({ app, stripe, close } = await startAppWithFakes({
    stripe: { webhookSecret: "whsec_fuzz", webhooks: "app", stripeJs: true },
    twilio: true,
    realtime: true,
  }));
  paths = distinctPaths(routeConfig as RouteEntry[]);
});

afterAll(() => close?.());

// Calls the route fuzz places reach the fake model, which stays silent: 60 s later the app ends
// each one and says so, during whichever test of this file is running by then (it depends on the
// machine's speed), so every test allows that line.
beforeEach(() => allowLog("warn", /media stream for call \d+ closed: no audio for 60 s from the model's side/));

/** Each route's full URL pattern, from app/routes.ts (nested paths joined). */
function routePaths(routes: RouteEntry[], prefix = ""): string[] {
  return routes.flatMap((route) => {
    const own = [prefix, route.path ?? ""].filter(Boolean).join("/");
    return [...(route.path !== undefined || route.index ? [`/${own}`] : []), ...routePaths(route.children ?? [], own)];
  });
}

/** Each URL pattern once (a layout and its index share theirs). */
const distinctPaths = (routes: RouteEntry[]) => [...new Set(routePaths(routes))];

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
  "/dashboard/calls/:callId": ["bogus"],
  "/dashboard/plan": ["upgrade", "cancel", "keep", "bogus"],
  "/dashboard/analytics": ["bogus"],
  "/dashboard/analytics/events": ["bogus"],
  "/dashboard/settings": ["save-settings", "rotate-calendar-feed", "bogus"],
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

/**
 * Every route of app/routes.ts, with the intents its own forms send (every probe may also send
 * any intent of any page). A route missing here fails the completeness test below.
 */
const ROUTE_TABLE: Record<string, string[]> = {
  "/": ["checkout", "contact", "request_call"],
  "/old-landing": [],
  "/contact": ["contact"],
  "/language": [],
  "/privacy": [],
  "/terms": [],
  "/cookies": [],
  "/how-it-works": [],
  "/languages": [],
  "/faq": [],
  "/safety": [],
  "/accessibility": [],
  "/business": ["register"],
  "/get-started": ["register", "resend", "restart", "checkout", "continue_payment"],
  "/get-started/complete": [],
  "/verify-email": ["resend"],
  "/setup-complete": [],
  "/login": [],
  "/login/second-factor": [],
  "/logout": [],
  "/change-password": [],
  "/forgot-password": [],
  "/reset-password": [],
  "/dashboard": OWNER_INTENTS["/dashboard"]!.concat([
    "call_me",
    "delete_summary",
    "sign_out",
    "upgrade",
    "cancel",
    "resume",
    "request_call",
  ]),
  "/dashboard/bookings/:bookingId": OWNER_INTENTS["/dashboard/bookings/:bookingId"]!,
  "/dashboard/services": OWNER_INTENTS["/dashboard/services"]!,
  "/dashboard/hours": OWNER_INTENTS["/dashboard/hours"]!,
  "/dashboard/calls": OWNER_INTENTS["/dashboard/calls"]!,
  "/dashboard/calls/:callId": [],
  "/dashboard/plan": OWNER_INTENTS["/dashboard/plan"]!,
  "/dashboard/settings": OWNER_INTENTS["/dashboard/settings"]!,
  "/dashboard/analytics": [],
  "/dashboard/analytics/events": [],
  "/dashboard/support": ["request_call", "send"],
  "/api/business/register": [],
  "/api/verify-email-and-setup": [],
  "/api/create-subscription": [],
  "/api/activate-business": [],
  "/api/auth/login": [],
  "/api/auth/forgot-password": [],
  "/book/:bookingLink": ["confirm"],
  "/book/:bookingLink/calendar.ics": [],
  "/booking/:token": ["cancel", "reschedule"],
  "/calendar/:file": [],
  "/api/booking/business/:bookingLink": [],
  "/api/booking/services/:bookingLink": [],
  "/api/booking/availability/:bookingLink/:date/:serviceId": [],
  "/api/calls/demo": [],
  "/api/create-payment-intent": [],
  "/api/empathy/start-call": [],
  "/empathy/:token": [],
  "/api/voice/providers": [],
  "/providers": [],
  "/telephony": [],
  "/telephony/events": [],
  "/api/booking/create": [],
  "/webhooks/stripe": [],
  "/webhooks/twilio/status/:callId": [],
  "/webhooks/twilio/recording/:callId": [],
  "/twilio/voice/:callId": [],
  "/twilio/stream-ended/:callId": [],
  "/subscribe": ["checkout"],
  "/subscribe/complete": [],
  "/preferences": ["delete"],
  "/subscription/card": [],
  "/sign-in": [],
  "/sign-in/confirm": [],
  "/api/subscription/create": [],
  "/api/subscription/upgrade": [],
  "/api/subscription/cancel": [],
  "/api/user/:userId/dashboard": [],
  "/api/users/:id/profile": [],
  "/api/users/:id/preferences": [],
  "/call": ["start_chat", "send", "call_me", "hang_up"],
  "/voice-settings": [],
  "/api/speech/synthesize": [],
  "/api/voice/settings": [],
  "/voice": [],
  "/api/calls/make-call": [],
  "/api/calls": [],
  "/api/conversation/process": [],
  "/api/conversation/voice": [],
  "/admin": [],
  "/admin/businesses": ["suspend", "reactivate"],
  "/admin/consumers": [],
  "/admin/calls": [],
  "/admin/quality": [],
  "/admin/reviews": ["reviewed"],
  "/admin/payments": ["refund"],
  "/admin/refusals": [],
  "/admin/health": [],
  "/admin/jobs": [],
  "/admin/support": ["close"],
  "/admin/funnel": [],
  "/admin/audit": [],
  "/dev/outbox": [],
  "/styleguide": [],
  "/*": [],
};

/** Probes per route and role: 5 roles × 95 routes × 22 is over 10,000 requests (FUZZ_PROBES changes it for a quick look). */
const PROBES_PER_ROUTE_AND_ROLE = Number(process.env.FUZZ_PROBES ?? 22);
const SEED = Number(process.env.FUZZ_SEED ?? 20261126);

/** What ends the role's own session or account: sent after every other probe, so the rest run signed in. */
const endsSession = (probe: FuzzProbe) =>
  probe.method === "POST" &&
  (["/logout", "/change-password", "/preferences"].includes(probe.pattern) ||
    ["sign_out", "delete", "suspend"].includes(probe.intent ?? ""));

describe("the route table", () => {
  it("lists every route of app/routes.ts, so a new route is fuzzed too", () => {
    expect([...paths].sort()).toEqual(Object.keys(ROUTE_TABLE).sort());
  });
});

describe("the route fuzz, as every kind of visitor", () => {
  it(
    "answers 10,000 seeded hostile requests on every route and role without a 5xx or a stack trace, and stays responsive",
    { timeout: 900_000 },
    async () => {
      const { roles, subscriberId } = await fuzzRoles(app, stripe.url);
      const random = seededRandom(SEED);
      const base = new URL(app.url);
      const goodParams: Record<string, string> = {
        bookingLink: "demo-salon",
        bookingId: "1",
        userId: String(subscriberId),
        id: String(subscriberId),
        date: new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10),
        serviceId: "1",
        callId: "1",
      };
      const probes: FuzzProbe[] = [];
      for (const role of roles) {
        for (const pattern of paths) {
          const target = { pattern, intents: ROUTE_TABLE[pattern] ?? [], goodParams, jsonApi: JSON_API_ROUTES.includes(pattern) };
          for (let i = 0; i < PROBES_PER_ROUTE_AND_ROLE; i += 1) probes.push(fuzzProbe(random, target, role));
        }
      }
      const queue = [...probes.filter((p) => !endsSession(p)), ...probes.filter(endsSession)];
      const agents = new Map(
        roles.map((role) => [role.name, new http.Agent({ keepAlive: true, maxSockets: 2, localAddress: role.localAddress })]),
      );

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
      const perRole = new Map<string, number>();
      const fiveHundreds: string[] = [];
      const timings: [number, string][] = [];
      const failures = new Map<string, { count: number; example: string }>();
      let next = 0;
      const worker = async () => {
        while (next < queue.length) {
          const one = queue[next++]!;
          const outcome = await sendProbe(base, agents.get(one.role)!, one);
          perRole.set(one.role, (perRole.get(one.role) ?? 0) + 1);
          timings.push([outcome.ms, `${describeProbe(one).slice(0, 160)} → ${outcome.status}`]);
          const problem =
            outcome.error && !outcome.error.startsWith("client refused")
              ? outcome.error
              : outcome.status >= 500
                ? `${outcome.status}`
                : STACK.test(outcome.body)
                  ? `stack trace (${outcome.status})`
                  : outcome.status === 429 && !outcome.retryAfter
                    ? "429 without Retry-After"
                    : null;
          if (outcome.status >= 500) fiveHundreds.push(describeProbe(one));
          if (!problem) continue;
          // One example of each kind of failure (the answer, its error, and the Host if one was sent), with a count.
          const error = /\b\w*Error\b:? [^<\n]{0,80}/.exec(outcome.body)?.[0] ?? outcome.body.slice(0, 80);
          const kind = `${problem} ${error} ${one.headers.Host === undefined ? "" : `Host ${one.headers.Host.slice(0, 20)}`}`;
          const seen = failures.get(kind);
          if (seen) seen.count += 1;
          else failures.set(kind, { count: 1, example: `${describeProbe(one)} → ${outcome.body.slice(0, 400)}` });
        }
      };
      await Promise.all(Array.from({ length: 4 }, worker));
      running = false;
      await monitor;
      for (const agent of agents.values()) agent.destroy();
      const seconds = ((performance.now() - started) / 1000).toFixed(1);
      console.log(
        `fuzz summary: seed ${SEED}; ${queue.length} requests; ${paths.length} routes; ${roles.length} roles ` +
          `(${[...perRole].map(([role, n]) => `${role} ${n}`).join(", ")}); ${fiveHundreds.length} x 5xx; ` +
          `${failures.size} failure kinds; ${seconds} s; slowest of ${healthChecks} health checks ${Math.round(slowestHealth)} ms`,
      );
      console.log(
        `fuzz slowest requests:\n${timings
          .sort((a, b) => b[0] - a[0])
          .slice(0, 8)
          .map(([ms, what]) => `  ${Math.round(ms)} ms ${what}`)
          .join("\n")}`,
      );
      if (failures.size > 0) {
        console.log(
          `fuzz failures (FUZZ_SEED=${SEED} reproduces them):\n${[...failures]
            .map(([kind, { count, example }]) => `${count} x ${kind}\n  e.g. ${example}`)
            .join("\n")}`,
        );
      }
      expect(queue.length).toBeGreaterThanOrEqual(10_000);
      expect(new Set(queue.map((p) => p.role)).size).toBe(5);
      expect([...failures.keys()]).toEqual([]);
      expect(fiveHundreds).toHaveLength(0);
      expect(healthChecks).toBeGreaterThan(0);
      expect(slowestHealth).toBeLessThan(1000);
    },
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
