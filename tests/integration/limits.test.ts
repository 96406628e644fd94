import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { findBooking } from "#models/bookings";
import { businesses, calls, supportTickets } from "#models/schema";
import { translatorFor } from "~/platform/i18n.server";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { expectLog } from "../support/console";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";
import { zoneInCallingHours } from "../support/calling-hours";

// What a toll fraudster or a greedy neighbour asks for, and what the app answers. The app trusts
// one proxy hop (the test), so each request's X-Forwarded-For is the visitor's address.
type App = Awaited<ReturnType<typeof startAppInProcess>>;
let twilio: FakeTwilio;
let app: App;

const SESSION_SECRET = "limits-test-session-secret-0123456789abcdef";

function appEnv(): Record<string, string> {
  return {
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    TRUST_PROXY: "1",
    SESSION_SECRET,
    CALL_COUNTRIES: "US,GB,FR,DE,ES,IT,SA",
    DEMO_CALL_COUNTRIES: "US,GB,FR,DE,ES,IT,SA",
  };
}

beforeAll(async () => {
  // Calls are created at the fake but never rung: what counts here is whether the app places them.
  twilio = await startFakeTwilio({ autoDial: false });
  app = await startAppInProcess(appEnv());
  await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours(), minimumNoticeMinutes: 0 });
});

afterAll(async () => {
  await app?.stop();
  await twilio?.close();
});

let visitor = 0;
/** A visitor of its own (an IPv4 address of the documentation range). */
const stranger = () => httpClient(app.url, { forwardedFor: `198.51.100.${++visitor}` });

const leasesOf = async (target: App, kind: string) => {
  const result = (await target.services.db.execute(
    sql`SELECT count(*)::int AS n FROM live_leases WHERE kind = ${kind} AND expires_at > now()`,
  )) as unknown as { rows: { n: number }[] };
  return result.rows[0]!.n;
};

/** Ranges a toll fraudster asks the app to ring, each typed by the full metadata, not a prefix list. */
const TOLL_FRAUD = {
  "UK personal number (070)": "+447012345678",
  "US personal communication (500)": "+15002001234",
  "US personal communication (533)": "+15332001234",
  "UK premium rate (09)": "+449098790000",
  "FR premium rate (0892)": "+33892700000",
  "DE premium rate (0900)": "+499001234567",
  "DE shared cost (0180)": "+4918012345678",
  "ES premium rate (806)": "+34806123456",
  "ES shared cost (902)": "+34902123456",
  "IT premium rate (899)": "+39899123456",
  "IT shared cost (848)": "+39848123456",
  "SA shared cost (920)": "+966920012345",
};

describe("numbers that must never be dialled", () => {
  it("refuses every personal-number, premium and shared-cost range on the demo call, call me now and the booking confirmation", async () => {
    const en = await translatorFor("en");
    const ar = await translatorFor("ar");
    const bookingIds: number[] = [];
    let day = 1;
    for (const [kind, number] of Object.entries(TOLL_FRAUD)) {
      const demo = await stranger().postJson("/api/calls/demo", { to: number });
      expect(demo.status, `demo call to a ${kind}`).toBe(400);
      expect((await demo.json()).error).toBe(en("demo.premiumRefused"));

      const callMe = await stranger().postJson("/api/calls/make-call", { to: number });
      expect(callMe.status, `call me now to a ${kind}`).toBe(400);
      expect((await callMe.json()).error).toBe(ar("dialling.premium"));

      // A booking with such a number stands, but its confirmation call is never placed.
      const guest = stranger();
      const services = await (await guest.get("/api/booking/services/demo-salon")).json();
      const haircut = services.find((s: { name: string }) => s.name === "Haircut");
      for (let booked = false; !booked; day++) {
        expect(day, "a free slot within 30 days").toBeLessThan(30);
        const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
        const slots = await (await guest.get(`/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
        const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
        if (!slot) continue;
        const response = await guest.postJson("/api/booking/create", {
          businessLink: "demo-salon",
          serviceId: haircut.id,
          appointmentDate: `${date}T${slot.time}`,
          customerInfo: { name: "Fraud Test", phone: number },
          requestCall: true,
        });
        expect(response.status, `booking for a ${kind}`).toBe(201);
        bookingIds.push((await response.json()).booking.id);
        booked = true;
      }
    }
    const bookings = await waitFor(
      async () => {
        const rows = await Promise.all(bookingIds.map((id) => findBooking(app.services.db, id)));
        return rows.every((b) => b?.callState === "not_called") ? rows : null;
      },
      { what: "every confirmation call refused", timeoutMs: 30_000 },
    );
    for (const booking of bookings) expect(booking!.notCalledReason).toBe("premium");
    const dialled = new Set([...twilio.calls.values()].map((call) => call.params.To));
    for (const number of Object.values(TOLL_FRAUD)) expect(dialled.has(number)).toBe(false);
    const placed = (await app.services.db.select().from(calls)).map((call) => call.toNumber);
    for (const number of Object.values(TOLL_FRAUD)) expect(placed).not.toContain(number);
  });
});

describe("limits a neighbour cannot walk around", () => {
  /** Eight "call me now" requests for eight numbers, from the addresses given; the statuses. */
  async function callMeFrom(addresses: string[], firstNumber: number) {
    const statuses: number[] = [];
    for (const [index, address] of addresses.entries()) {
      const response = await httpClient(app.url, { forwardedFor: address }).postJson("/api/calls/make-call", {
        to: `+9665012345${String(firstNumber + index).padStart(2, "0")}`,
      });
      statuses.push(response.status);
      if (response.status === 429) expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
    }
    return statuses;
  }

  it("counts eight addresses of one IPv6 /64 as one visitor: call me now is refused after the same three as from one IPv4 address", async () => {
    const before = (await app.services.db.select().from(calls)).length;
    const ipv4 = await callMeFrom(Array<string>(8).fill("203.0.113.77"), 10);
    const ipv6 = await callMeFrom(
      Array.from({ length: 8 }, (_, i) => `2001:db8:4:7:${(i + 1).toString(16)}::${i + 9}`),
      30,
    );
    const threeThenRefused = [202, 202, 202, 429, 429, 429, 429, 429];
    expect(ipv4).toEqual(threeThenRefused);
    expect(ipv6).toEqual(threeThenRefused);
    // Another /64 is another visitor.
    expect(await callMeFrom(["2001:db8:4:8::1"], 50)).toEqual([202]);
    expect((await app.services.db.select().from(calls)).length - before).toBe(3 + 3 + 1);
  });
});

/** Opens a browser voice socket from `address`; resolves with how it closed, or "open" once the server took it. */
function voiceSocket(target: App, address: string) {
  const socket = new WebSocket(`${target.url.replace(/^http/, "ws")}/web-call-stream/1`, { headers: { "X-Forwarded-For": address } });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once("close", (code, reason) => resolve({ code, reason: String(reason) })),
  );
  const opened = new Promise<void>((resolve) => socket.once("open", () => resolve()));
  return { socket, closed, opened };
}

describe("live voice sessions per address", () => {
  it("lets one IPv6 /64 hold two voice sockets at once, closes a third with code 4429, and frees the place when one ends", async () => {
    const held = [voiceSocket(app, "2001:db8:9:1::1"), voiceSocket(app, "2001:db8:9:1::2")];
    await Promise.all(held.map((s) => s.opened));
    await waitFor(async () => (await leasesOf(app, "voice:address")) === 2, { what: "two voice places held in the database" });

    const third = voiceSocket(app, "2001:db8:9:1:ffff::3");
    expect(await third.closed).toEqual({ code: 4429, reason: "too many voice sessions from this address" });
    // Another address is not affected; it is admitted (and then refused for its bad token, not the cap).
    expectLog("warn", /voice stream for web call 1 refused: bad token/);
    const other = voiceSocket(app, "2001:db8:9:2::1");
    await other.opened;
    other.socket.send(JSON.stringify({ event: "start", start: { customParameters: { token: "1.forged" } } }));
    expect((await other.closed).code).toBe(4403);

    held[0]!.socket.close();
    await waitFor(async () => (await leasesOf(app, "voice:address")) === 1, { what: "the ended socket's place to be released" });
    const next = voiceSocket(app, "2001:db8:9:1::4");
    await next.opened;
    next.socket.send(JSON.stringify({ event: "start", start: { customParameters: { token: "1.forged" } } }));
    expect((await next.closed).code).toBe(4403);
    held[1]!.socket.close();
    await held[1]!.closed;
    await waitFor(async () => (await leasesOf(app, "voice:address")) === 0, { what: "every voice place released" });
  });
});

/** Signs in the demo owner as a browser of its own; the client and its cookie header. */
async function signedInOwner(target: App, address: string) {
  const owner = httpClient(target.url, { forwardedFor: address });
  const password = await demoOwnerPassword(target.url, target.dataDir);
  expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
  return { owner, cookie: () => [...owner.jar].map(([k, v]) => `${k}=${v}`).join("; ") };
}

/** Opens an event stream with `cookie`; resolves once its first event arrived, or with the refusal. close() is the page going away. */
async function openStream(target: App, path: string, cookie: string) {
  const abort = new AbortController();
  const response = await fetch(target.url + path, { headers: { Cookie: cookie }, signal: abort.signal });
  if (response.status !== 200) return { response, close() {} };
  const reader = response.body!.getReader();
  const first = new TextDecoder().decode((await reader.read()).value);
  expect(first).toContain("event: ready");
  return {
    response,
    close() {
      void reader.cancel().catch(() => {});
      abort.abort();
    },
  };
}

describe("event streams per session", () => {
  for (const [kind, path] of [
    ["events:telephony", "/telephony/events"],
    ["events:analytics", "/dashboard/analytics/events"],
  ] as const) {
    it(`keeps three ${path} streams of one session open, answers a fourth 429 with Retry-After, and takes one again when one ends`, async () => {
      const { cookie } = await signedInOwner(app, `198.51.100.${200 + (kind === "events:telephony" ? 1 : 2)}`);
      const open = [];
      for (let i = 0; i < 3; i++) open.push(await openStream(app, path, cookie()));
      expect(await leasesOf(app, kind)).toBe(3);

      const fourth = await openStream(app, path, cookie());
      expect(fourth.response.status).toBe(429);
      expect(Number(fourth.response.headers.get("Retry-After"))).toBeGreaterThan(0);
      expect((await fourth.response.json()).error).toBe((await translatorFor("en"))("common.tooManyStreams"));

      // Another session of the same owner has places of its own.
      const elsewhere = await signedInOwner(app, "198.51.100.210");
      const theirs = await openStream(app, path, elsewhere.cookie());
      expect(theirs.response.status).toBe(200);
      theirs.close();

      open[0]!.close();
      await waitFor(async () => (await leasesOf(app, kind)) <= 2, { what: "the ended stream's place to be released" });
      const again = await openStream(app, path, cookie());
      expect(again.response.status).toBe(200);
      for (const stream of [...open.slice(1), again]) stream.close();
      await waitFor(async () => (await leasesOf(app, kind)) === 0, { what: "every stream's place released", timeoutMs: 30_000 });
    });
  }
});

describe("support tickets per owner", () => {
  it("takes five tickets an hour from one owner and refuses the sixth, counted in the database, without e-mailing anyone", async () => {
    const { owner } = await signedInOwner(app, "198.51.100.220");
    const [business] = await app.services.db.select().from(businesses);
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const response = await owner.postForm("/dashboard/support", { subject: `Ticket ${i}`, message: "Please help." });
      statuses.push(response.status);
      if (response.status === 429) {
        expect(Number(response.headers.get("Retry-After"))).toBeGreaterThan(0);
        expect(await response.text()).toContain("Too many attempts.");
      }
    }
    expect(statuses).toEqual([302, 302, 302, 302, 302, 429, 429]);
    expect(await app.services.db.select().from(supportTickets).where(eq(supportTickets.businessId, business!.id))).toHaveLength(5);
  });
});

describe.runIf(process.env.DATABASE_URL)("two app processes on one database", () => {
  let second: App;
  beforeAll(async () => {
    second = await startAppInProcess({ ...appEnv(), DATABASE_URL: app.databaseUrl!, SEED_DEMO_DATA: "false" });
  });
  afterAll(async () => {
    await second?.stop();
  });

  it("share the voice cap: two sockets on one app leave none for the same /64 on the other", async () => {
    const held = [voiceSocket(app, "2001:db8:77::1"), voiceSocket(app, "2001:db8:77::2")];
    await Promise.all(held.map((s) => s.opened));
    await waitFor(async () => (await leasesOf(second, "voice:address")) === 2, { what: "two voice places held" });
    expect((await voiceSocket(second, "2001:db8:77::3").closed).code).toBe(4429);
    for (const s of held) s.socket.close();
    await waitFor(async () => (await leasesOf(second, "voice:address")) === 0, { what: "the places released" });
  });

  it("share the event-stream cap of a session", async () => {
    const { cookie } = await signedInOwner(app, "198.51.100.230");
    const open = [await openStream(app, "/telephony/events", cookie()), await openStream(second, "/telephony/events", cookie())];
    open.push(await openStream(app, "/telephony/events", cookie()));
    expect(open.map((s) => s.response.status)).toEqual([200, 200, 200]);
    expect((await openStream(second, "/telephony/events", cookie())).response.status).toBe(429);
    for (const stream of open) stream.close();
    await waitFor(async () => (await leasesOf(app, "events:telephony")) === 0, { what: "every stream's place released" });
  });
});
