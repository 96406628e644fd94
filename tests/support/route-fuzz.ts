import http from "node:http";
import { expect } from "vitest";
import { JSON_API_ROUTES } from "~/platform/http/csrf.server";
import type { AppWithFakesOptions, InProcessApp } from "./app-with-fakes";
import {
  DEEP_JSON,
  deepJsonProbes,
  describeProbe,
  probe as fuzzProbe,
  seededRandom,
  send as sendProbe,
  STACK,
  type Probe as FuzzProbe,
} from "./fuzz-probes";
import { fuzzRoles } from "./fuzz-roles";

/**
 * The route fuzz (tests/integration/fuzz.test.ts): every route of the route table, as every kind
 * of visitor, sent seeded hostile requests. The probes are drawn once, the same in every file that
 * runs them, and dealt into shares: each share runs in a test file (and a process, an app) of its
 * own, so the 10,000 requests are sent on as many cores as there are shares.
 */

/** The app every fuzz file starts: Stripe (its webhooks signed to the app), Twilio and the model, all fakes. */
export const FUZZ_APP = {
  stripe: { webhookSecret: "whsec_fuzz", webhooks: "app", stripeJs: true },
  twilio: true,
  realtime: true,
} as const satisfies AppWithFakesOptions;

/**
 * Calls the route fuzz places reach the fake model, which stays silent: 60 s later the app ends
 * each one and says so, during whichever test is running by then (it depends on the machine's
 * speed), so every test of a fuzz file allows that line.
 */
export const SILENT_MODEL_WARNING = /media stream for call \d+ closed: no audio for 60 s from the model's side/;

export interface RouteEntry {
  path?: string;
  index?: boolean;
  children?: RouteEntry[];
}

/** Each route's full URL pattern, from app/routes.ts (nested paths joined). */
export function routePaths(routes: RouteEntry[], prefix = ""): string[] {
  return routes.flatMap((route) => {
    const own = [prefix, route.path ?? ""].filter(Boolean).join("/");
    return [...(route.path !== undefined || route.index ? [`/${own}`] : []), ...routePaths(route.children ?? [], own)];
  });
}

/** Each URL pattern once (a layout and its index share theirs). */
export const distinctPaths = (routes: RouteEntry[]) => [...new Set(routePaths(routes))];

/**
 * The owner's app, fuzzed again with a signed-in owner: each page with the intents of its own
 * forms (they all post to one action, which the probes of every intent on every page reach too).
 */
export const OWNER_INTENTS: Record<string, string[]> = {
  "/dashboard": ["confirm-booking", "cancel-booking", "reschedule-booking", "no-show-booking", "bogus"],
  "/dashboard/bookings/:bookingId": ["confirm-booking", "cancel-booking", "reschedule-booking", "no-show-booking", "bogus"],
  "/dashboard/services": ["add-service", "edit-service", "toggle-service", "bogus"],
  "/dashboard/hours": ["save-hours", "add-day-off", "remove-day-off", "bogus"],
  "/dashboard/calls": ["bogus"],
  "/dashboard/calls/:callId": ["bogus"],
  "/dashboard/plan": ["upgrade", "cancel", "keep", "bogus"],
  "/dashboard/analytics": ["bogus"],
  "/dashboard/analytics/events": ["bogus"],
  "/dashboard/settings": ["save-settings", "save-reminders", "rotate-calendar-feed", "connect-calendar", "disconnect-calendar", "bogus"],
  "/dashboard/phone": ["connect-number", "save-number-settings", "disconnect-number", "bogus"],
  "/dashboard/schedule": ["bogus"],
  "/dashboard/support": ["bogus"],
};

/**
 * Every route of app/routes.ts, with the intents its own forms send (every probe may also send
 * any intent of any page). A route missing here fails the completeness test below.
 */
export const ROUTE_TABLE: Record<string, string[]> = {
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
  "/dashboard/schedule": [],
  "/dashboard/services": OWNER_INTENTS["/dashboard/services"]!,
  "/dashboard/hours": OWNER_INTENTS["/dashboard/hours"]!,
  "/dashboard/calls": OWNER_INTENTS["/dashboard/calls"]!,
  "/dashboard/calls/:callId": [],
  "/dashboard/plan": OWNER_INTENTS["/dashboard/plan"]!,
  "/dashboard/settings": OWNER_INTENTS["/dashboard/settings"]!,
  "/dashboard/phone": OWNER_INTENTS["/dashboard/phone"]!,
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
  "/booking/:token": ["cancel", "reschedule", "new-link"],
  "/booking/:token/calendar.ics": [],
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
  "/webhooks/twilio/messages": [],
  "/webhooks/twilio/voice/inbound": [],
  "/webhooks/twilio/voice/inbound/:step": [],
  "/webhooks/twilio/message-status/:textId": [],
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

/**
 * The shares the route fuzz is dealt into, one test file each, in fifths: fuzz.test.ts takes two
 * (it also runs the rest of the fuzz), fuzz-routes.test.ts three, so the two end together.
 */
export const ROUTE_FUZZ_SHARES = [2, 3];

/**
 * Sends share `share` (0-based, of ROUTE_FUZZ_SHARES) of the route fuzz's probes to the app and
 * fails on a 5xx, a stack trace, a 429 without Retry-After, or /healthz slower than a second.
 */
export async function routeFuzzShare(app: InProcessApp, stripeUrl: string, paths: string[], share: number) {
  const { roles, subscriberId } = await fuzzRoles(app, stripeUrl);
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
  // Every route that reads JSON (the Stripe webhook too) gets each shape of JSON whose parse stalls a server.
  const deep = [...JSON_API_ROUTES, "/webhooks/stripe"]
    .filter((pattern) => paths.includes(pattern))
    .flatMap((pattern, i) => deepJsonProbes({ pattern, intents: [], goodParams, jsonApi: true }, roles, i));
  // Dealt like cards: each share gets every role and route in the same proportions.
  const deck = ROUTE_FUZZ_SHARES.flatMap((size, owner) => Array<number>(size).fill(owner));
  const deal = (all: FuzzProbe[]) => all.filter((_, i) => deck[i % deck.length] === share);
  const mine = deal(probes);
  const myDeep = deal(deep);
  // The deep bodies arrive spread among the other requests, as an attacker's would, not as one burst at the end.
  const every = Math.max(1, Math.floor(mine.length / (myDeep.length + 1)));
  const ordinary = mine
    .filter((p) => !endsSession(p))
    .flatMap((p, i) => ((i + 1) % every === 0 && myDeep[(i + 1) / every - 1] ? [p, myDeep[(i + 1) / every - 1]!] : [p]));
  const sent = new Set(ordinary);
  const queue = [...ordinary, ...myDeep.filter((p) => !sent.has(p)), ...mine.filter(endsSession)];
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
                : one.what.startsWith(DEEP_JSON) && (outcome.status !== 413 || outcome.ms > 1000)
                  ? `deep JSON answered ${outcome.status} in ${Math.round(outcome.ms)} ms, not 413 at once`
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
    `fuzz summary: seed ${SEED}; share ${share + 1} of ${ROUTE_FUZZ_SHARES.length}: ${queue.length} of ${probes.length + deep.length} requests (${myDeep.length} of deep JSON); ${paths.length} routes; ${roles.length} roles ` +
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
  expect(probes.length).toBeGreaterThanOrEqual(10_000);
  const fifths = ROUTE_FUZZ_SHARES.reduce((sum, size) => sum + size, 0);
  expect(queue.length).toBeGreaterThanOrEqual(Math.floor((probes.length * ROUTE_FUZZ_SHARES[share]!) / fifths));
  expect(new Set(queue.map((p) => p.role)).size).toBe(5);
  expect([...failures.keys()]).toEqual([]);
  expect(fiveHundreds).toHaveLength(0);
  expect(healthChecks).toBeGreaterThan(0);
  expect(slowestHealth).toBeLessThan(1000);
}
