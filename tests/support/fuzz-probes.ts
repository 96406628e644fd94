import http from "node:http";

/**
 * What an attacker sends, generated from a seed so that a failure is reproduced by running the
 * suite again with FUZZ_SEED set to the seed it printed.
 */

/** mulberry32: small, fast and the same sequence on every machine for a given seed. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const chance = (p: number) => next() < p;
  return { next, pick, chance };
}
export type Random = ReturnType<typeof seededRandom>;

/** Bytes that are not UTF-8 (a lone 0xFF, and 0xC3 followed by a byte that cannot continue it). */
const BAD_BYTES = { "\u{F0000}FF": Buffer.from([0xff]), "\u{F0000}C328": Buffer.from([0xc3, 0x28]) };
const BAD_FF = "\u{F0000}FF";
const BAD_C3 = "\u{F0000}C328";

export const hostileValues = [
  "",
  "1",
  "0",
  "-1",
  "1.5",
  "2147483648",
  String(2 ** 53),
  String(2 ** 53 + 2),
  "1e300",
  "-1e300",
  "NaN",
  "Infinity",
  "abc",
  "2026-02-31",
  "25:61",
  "😀🇸🇦",
  "\u202Egnp.exe",
  "a\r\nb",
  "a\tb",
  "\r\nSet-Cookie: owned=1",
  " ",
  "x".repeat(5000),
  "//evil.example",
  "https://evil.example/",
  "/\\evil.example",
  "/%0d%0aLocation:%20https://evil.example",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "' OR 1=1--",
  "../../etc/passwd",
  "+447700900123",
  "demo@sakina.app",
  "a\u0000b",
  `a${BAD_FF}b`,
  `${BAD_C3}`,
];

const jsonOddities: unknown[] = [2 ** 53, 2 ** 53 + 2, 1e300, -1e300, -0, 2147483648, true, null, [1, 2], { nested: { deep: 1 } }, ""];

export const pathValues = [
  "0",
  "-1",
  "2147483648",
  String(2 ** 53),
  "1e300",
  "abc",
  "%FF",
  "%C3%28",
  "a%0D%0Ab",
  "%09",
  "%F0%9F%98%80",
  "x".repeat(300),
  "%2e%2e",
  "%00",
];

const queryNames = [
  "userId",
  "redirectTo",
  "chat",
  "step",
  "token",
  "email",
  "id",
  "lng",
  "date",
  "page",
  "q",
  "status",
  "supportCallId",
  "intent",
];

const hostHeaders = ["x:99999", "evil.example", "127.0.0.1:1", "[::1]", "a".repeat(300), "localhost:0"];
const forwardedFor = ["203.0.113.9", "garbage", "::1, 10.0.0.1", "999.999.999.999", "1.1.1.1, ".repeat(100), ""];
const contentTypes = [
  "text/plain; application/json",
  "application/json",
  "multipart/form-data",
  "multipart/form-data; boundary=",
  "application/x-www-form-urlencoded; charset=latin1",
  "application/x-www-form-urlencoded; application/json",
  "",
];

/** Form fields the app's forms and APIs read; unknown names are harmless extras. */
export const fieldNames = [
  "email",
  "password",
  "current",
  "confirm",
  "name",
  "fullName",
  "ownerName",
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
  "id",
  "supportCallId",
  "userId",
  "date",
  "time",
  "note",
  "notes",
  "price",
  "currency",
  "durationMinutes",
  "description",
  "address",
  "timeZone",
  "language",
  "preferredLanguage",
  "voice",
  "voiceGender",
  "speed",
  "creativity",
  "callFrequency",
  "callScheduleType",
  "preferredCallTime",
  "nextCallAt",
  "feeling",
  "token",
  "code",
  "paymentIntentId",
  "idempotencyKey",
  "active",
  "lng",
  "redirectTo",
  "adult",
  "recording",
  "text",
  "useTest",
];

/** Every action the app's forms tell apart by `intent`, tried on every page. */
export const allIntents = [
  "confirm-booking",
  "cancel-booking",
  "reschedule-booking",
  "no-show-booking",
  "add-service",
  "edit-service",
  "toggle-service",
  "save-hours",
  "add-day-off",
  "remove-day-off",
  "save-settings",
  "rotate-calendar-feed",
  "upgrade",
  "cancel",
  "keep",
  "resume",
  "reschedule",
  "resend",
  "confirm",
  "delete",
  "restart",
  "register",
  "contact",
  "request_call",
  "call_me",
  "hang_up",
  "start_chat",
  "send",
  "sign_out",
  "delete_summary",
  "checkout",
  "suspend",
  "reactivate",
  "refund",
  "reviewed",
  "close",
  "bogus",
];

export interface Probe {
  role: string;
  pattern: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  intent?: string;
  what: string;
}

/** `value` percent-encoded, with the non-UTF-8 markers as their raw (invalid) bytes. */
function urlEncode(value: string) {
  return value
    .split(/(\u{F0000}(?:FF|C328))/u)
    .map((part) => (part === BAD_FF ? "%FF" : part === BAD_C3 ? "%C3%28" : encodeURIComponent(part)))
    .join("");
}

function rawBytes(value: string) {
  return Buffer.concat(
    value.split(/(\u{F0000}(?:FF|C328))/u).map((part) => BAD_BYTES[part as keyof typeof BAD_BYTES] ?? Buffer.from(part, "utf8")),
  );
}

export interface Target {
  pattern: string;
  intents: string[];
  /** Values that reach a real row for the route's parameters (the role's own booking, subscriber…). */
  goodParams: Record<string, string>;
  jsonApi: boolean;
}

export interface Role {
  name: string;
  cookie: string;
  csrf: string;
  localAddress: string;
}

/** One request an attacker might send to `target` as `role`. */
export function probe(random: Random, target: Target, role: Role): Probe {
  const { pick, chance } = random;
  const what: string[] = [];
  const path = target.pattern
    .split("/")
    .map((segment) => {
      if (segment === "*") return "no-such-page";
      if (!segment.startsWith(":")) return segment;
      const good = target.goodParams[segment.slice(1)];
      if (good && chance(0.5)) return good;
      const value = pick(pathValues);
      what.push(`${segment}=${value.slice(0, 20)}`);
      return value;
    })
    .join("/");
  // Half the time the data request a client-side navigation or fetcher sends (`/path.data`):
  // the same middleware, loaders and actions, without the HTML render, so more probes fit the time.
  // (Not the event streams: their data request stays open without a byte, as the stream itself does.)
  const dataRequest = !/^\/api\/|^\/\*$|\/events$/.test(target.pattern) && chance(0.5);
  const address = dataRequest ? (path === "/" ? "/_root.data" : `${path}.data`) : path;
  if (dataRequest) what.push(".data");
  const query = chance(0.5)
    ? "?" +
      Array.from({ length: 1 + Math.floor(random.next() * 3) }, () => `${pick(queryNames)}=${urlEncode(pick(hostileValues))}`).join("&")
    : "";
  if (query) what.push(`query ${query.slice(0, 60)}`);
  const headers: Record<string, string> = { Cookie: role.cookie };
  if (chance(0.15)) {
    headers.Host = pick(hostHeaders);
    what.push(`Host ${headers.Host.slice(0, 20)}`);
  }
  if (chance(0.15)) {
    headers["X-Forwarded-For"] = pick(forwardedFor);
    what.push("X-Forwarded-For");
  }
  if (chance(0.05)) headers["Accept-Language"] = pick(["*", "xx-ZZ;q=2", ",,,;q=", "ar;q=1e300"]);
  if (chance(0.05)) headers.Cookie = `${role.cookie}; lng=%FF; csrf=%C3%28; session=${"x".repeat(43)}`;

  const roll = random.next();
  if (roll < 0.35) {
    const method = chance(0.85) ? "GET" : "HEAD";
    return { role: role.name, pattern: target.pattern, method, path: address + query, headers, what: what.join(", ") || method };
  }
  if (roll < 0.42) {
    const method = pick(["PUT", "DELETE", "PATCH", "OPTIONS", "TRACE"]);
    return { role: role.name, pattern: target.pattern, method, path: address + query, headers, what: [method, ...what].join(", ") };
  }

  const intents = chance(0.7) && target.intents.length > 0 ? target.intents : allIntents;
  const fields: [string, string][] = [];
  if (chance(0.9)) fields.push(["csrf", role.csrf]);
  const intent = chance(0.8) ? pick(intents) : undefined;
  if (intent) fields.push(["intent", intent]);
  const value = pick(hostileValues);
  for (const name of fieldNames) if (chance(0.5)) fields.push([name, chance(0.7) ? value : pick(hostileValues)]);
  what.push(`fields ${intent ?? "-"} ${JSON.stringify(value.slice(0, 20))}`);

  let body: Buffer;
  const kind = target.jsonApi && chance(0.6) ? "json" : pick(["form", "form", "form", "multipart", "json", "bytes"]);
  if (kind === "json") {
    headers["Content-Type"] = "application/json";
    const object = Object.fromEntries(fields.map(([name, v]) => [name, chance(0.3) ? pick(jsonOddities) : v]));
    // The JSON text with the non-UTF-8 markers written as raw bytes, inside its strings.
    body = rawBytes(chance(0.05) ? '{"email":' : JSON.stringify(chance(0.05) ? [object] : object));
  } else if (kind === "multipart") {
    const boundary = "fuzzboundary";
    headers["Content-Type"] = `multipart/form-data; boundary=${boundary}`;
    body = Buffer.concat([
      ...fields.map(([name, v]) =>
        Buffer.concat([
          Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n`),
          rawBytes(v),
          Buffer.from("\r\n"),
        ]),
      ),
      Buffer.from(chance(0.1) ? "--broken" : `--${boundary}--\r\n`),
    ]);
  } else if (kind === "bytes") {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = Buffer.concat([Buffer.from(`csrf=${role.csrf}&email=`), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0x0d, 0x0a, 0x09])]);
  } else {
    headers["Content-Type"] = "application/x-www-form-urlencoded";
    body = Buffer.from(fields.map(([name, v]) => `${name}=${urlEncode(v)}`).join("&"));
  }
  if (chance(0.08)) {
    headers["Content-Type"] = pick(contentTypes);
    what.push(`Content-Type ${JSON.stringify(headers["Content-Type"])}`);
  }
  return {
    role: role.name,
    pattern: target.pattern,
    method: "POST",
    path: address + query,
    headers,
    body,
    intent,
    what: `${kind} ${what.join(", ")}`,
  };
}

/** What POST /api/booking/create takes, as a replay probe changes it. */
export interface BookingBody {
  businessLink: string;
  serviceId: number;
  appointmentDate: string;
  customerInfo: { name: string; phone: string; email?: string; notes?: string };
  idempotencyKey?: string;
}

/**
 * Another request with a booking's retry key: the body the key was first sent with, one to three
 * of its parts changed (another person's name, phone or e-mail, other notes, another time or
 * service, a hostile value now and then), the key in the body or the Idempotency-Key header. Such
 * a request must never answer 2xx, nor carry anything of the booking the key made.
 */
export function replayedBooking(
  random: Random,
  first: BookingBody & { idempotencyKey: string },
  choices: { times: string[]; serviceIds: number[] },
): { body: BookingBody; headers: Record<string, string>; what: string } {
  const body: BookingBody = { ...first, customerInfo: { ...first.customerInfo } };
  const odd = () => random.pick(hostileValues);
  const changes: Record<string, () => void> = {
    name: () =>
      (body.customerInfo.name = random.chance(0.2)
        ? odd()
        : `${random.pick(["Mallory", "Eve", "Trudy"])} ${Math.floor(random.next() * 1000)}`),
    phone: () =>
      (body.customerInfo.phone = random.chance(0.2) ? odd() : `+1212555${String(Math.floor(random.next() * 10_000)).padStart(4, "0")}`),
    email: () => (body.customerInfo.email = random.chance(0.2) ? odd() : `guess${Math.floor(random.next() * 1000)}@example.com`),
    notes: () => (body.customerInfo.notes = random.chance(0.2) ? odd() : random.pick(["", "Any chair", "Call me first"])),
    time: () => (body.appointmentDate = random.pick(choices.times.filter((time) => time !== first.appointmentDate))),
    service: () => (body.serviceId = random.pick(choices.serviceIds.filter((id) => id !== first.serviceId))),
  };
  const changed = new Set<string>();
  const count = 1 + Math.floor(random.next() * 3);
  while (changed.size < count) changed.add(random.pick(Object.keys(changes)));
  for (const part of changed) changes[part]!();
  const inHeader = random.chance(0.3);
  if (inHeader) delete body.idempotencyKey;
  return {
    body,
    headers: { "Content-Type": "application/json", ...(inHeader ? { "Idempotency-Key": first.idempotencyKey } : {}) },
    what: `key ${first.idempotencyKey}${inHeader ? " (header)" : ""} with another ${[...changed].join(", ")}`,
  };
}

/** What a deep-JSON probe's `what` begins with: the route fuzz wants each refused with 413, at once. */
export const DEEP_JSON = "deep JSON";

/**
 * JSON whose parse cost grows with its size (issue 44: ~300 ms per megabyte) even within the 1 MB
 * limit: arrays in arrays, objects in objects, and empty objects one after another. 128 KB each
 * here, so the fuzz checks every JSON route's refusal; the megabyte and the server's CPU time
 * are measured in redirects-and-odd-input.test.ts.
 */
const deepJsonBodies: Record<string, () => string> = {
  "nested arrays": () => "[".repeat(64 * 1024) + "]".repeat(64 * 1024),
  "nested objects": () => '{"a":'.repeat(22_000) + "1" + "}".repeat(22_000),
  "many values": () => `[${"{},".repeat(43_000)}{}]`,
};

/**
 * One probe of each deep-JSON shape for a route that reads JSON, each from another role, in
 * addition to the seeded ones (so they leave the seeded sequence as it was).
 */
export function deepJsonProbes(target: Target, roles: Role[], first: number): Probe[] {
  const path = target.pattern
    .split("/")
    .map((segment) => (segment.startsWith(":") ? (target.goodParams[segment.slice(1)] ?? "1") : segment))
    .join("/");
  return Object.entries(deepJsonBodies).map(([shape, body], i) => {
    const role = roles[(first + i) % roles.length]!;
    return {
      role: role.name,
      pattern: target.pattern,
      method: "POST",
      path,
      headers: { Cookie: role.cookie, "Content-Type": "application/json" },
      body: Buffer.from(body()),
      what: `${DEEP_JSON}: ${shape}`,
    };
  });
}

export interface Outcome {
  status: number;
  retryAfter?: string;
  body: string;
  ms: number;
  error?: string;
}

/** Sends one probe over `agent` (keep-alive, from the role's own address) and reads its answer. */
export function send(base: URL, agent: http.Agent, probe: Probe, timeoutMs = 15_000): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const done = (outcome: Omit<Outcome, "ms">) => {
      if (settled) return;
      settled = true;
      resolve({ ...outcome, ms: performance.now() - started });
    };
    let request: http.ClientRequest;
    try {
      request = http.request(
        {
          host: base.hostname,
          port: base.port,
          method: probe.method,
          path: probe.path,
          agent,
          headers: { ...probe.headers, ...(probe.body ? { "Content-Length": String(probe.body.length) } : {}) },
          setHost: probe.headers.Host === undefined,
        },
        (response) => {
          const chunks: Buffer[] = [];
          const stream = response.headers["content-type"]?.startsWith("text/event-stream");
          response.on("data", (chunk: Buffer) => {
            chunks.push(chunk);
            // An event stream (the owner's live analytics) stays open: its first event is enough.
            if (stream) response.destroy();
          });
          const finish = () =>
            done({
              status: response.statusCode ?? 0,
              retryAfter: response.headers["retry-after"],
              body: Buffer.concat(chunks).toString("utf8"),
            });
          response.on("end", finish);
          response.on("close", finish);
          response.on("error", finish);
        },
      );
    } catch (error) {
      // The client itself refuses what no HTTP server could receive (a raw control byte in a header).
      done({ status: 0, body: "", error: `client refused: ${(error as Error).message}` });
      return;
    }
    request.setTimeout(timeoutMs, () => {
      request.destroy(new Error(`no answer in ${timeoutMs} ms`));
    });
    request.on("error", (error) => done({ status: 0, body: "", error: error.message }));
    request.end(probe.body);
  });
}

export const STACK = /\n\s+at \S|\(\/work\/|\/app\/(routes|features|platform)\/|node_modules\//;

/** A probe written so that it can be sent again by hand. */
export function describeProbe(probe: Probe) {
  const body = probe.body ? ` body ${JSON.stringify(probe.body.toString("latin1").slice(0, 300))}` : "";
  const headers = Object.entries(probe.headers)
    .filter(([name]) => name !== "Cookie")
    .map(([name, value]) => `${name}: ${JSON.stringify(value.slice(0, 80))}`)
    .join("; ");
  return `[${probe.role}] ${probe.method} ${probe.path.slice(0, 200)} {${headers}}${body} (${probe.what})`;
}
