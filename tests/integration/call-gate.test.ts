import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBooking } from "#models/bookings";
import { bookings, businesses } from "#models/schema";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { connectBrowserVoice } from "../support/browser-voice";
import { zoneInCallingHours } from "../support/calling-hours";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { linkIn, waitForMail } from "../support/outbox";
import { waitFor } from "../support/wait";

// One gate for every call (app/calls/gate.server.ts): whatever path a call comes by, it counts
// where the request behind it counted. Here a visitor's address may cause two calls a day
// (CALLS_PER_IP_PER_DAY); each test is one visitor (X-Forwarded-For, one trusted hop).
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", CALLS_PER_IP_PER_DAY: "2", CALLS_PER_NUMBER_PER_DAY: "10" },
  }));
  await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours(), minimumNoticeMinutes: 0 });
});

afterAll(() => close?.());

const callsTo = (e164: string) => [...twilio.calls.values()].filter((call) => call.params.To === e164);

let haircutId = 0;
/** Free haircut times, day by day from `fromDay` days ahead, that no test took yet. */
const taken = new Set<string>();
async function freeTime(fromDay = 1) {
  if (!haircutId) {
    const offered = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
    haircutId = offered.find((s) => s.name === "Haircut")!.id;
  }
  for (let day = fromDay; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircutId}`);
    const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
    const free = slots.find((slot) => slot.available && !taken.has(`${date}T${slot.time}`));
    if (free) {
      taken.add(`${date}T${free.time}`);
      return { serviceId: haircutId, date, time: free.time };
    }
  }
  throw new Error("no free haircut left in the window");
}

/** A booking on the public API from `address`; its id. */
async function bookOnApi(address: string, phone: string, email?: string) {
  const { serviceId, date, time } = await freeTime();
  const response = await httpClient(app.url, { forwardedFor: address }).postJson("/api/booking/create", {
    businessLink: "demo-salon",
    serviceId,
    appointmentDate: `${date}T${time}`,
    customerInfo: { name: "Gate Test", phone, ...(email ? { email } : {}) },
  });
  expect(response.status).toBe(201);
  return (await response.json()).booking.id as number;
}

/** Waits until the booking's confirmation call was placed or refused (not queued, not scheduled). */
const settled = (id: number) =>
  waitFor(
    async () => {
      const row = await findBooking(app.services.db, id);
      return row && !["queued", "scheduled"].includes(row.callState) ? row : null;
    },
    { what: `booking ${id}'s confirmation call placed or refused`, timeoutMs: 30_000 },
  );

/** A browser conversation from `address` for `phone`, in live voice, where the model books the next free haircut. */
async function bookInBrowserVoice(address: string, phone: string) {
  const browser = httpClient(app.url, { forwardedFor: address });
  const created = await browser.postJson("/api/calls", { customerName: "Nora", phoneNumber: phone });
  expect(created.status).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const { serviceId, date, time } = await freeTime();
  const index = realtime.sessions.length;
  realtime.script(
    [
      { tool: "book_appointment", arguments: { business: "demo-salon", service_id: serviceId, date, time, customer_name: "Nora" } },
      { say: "تم." },
    ],
    index,
  );
  const url = `${app.url.replace(/^http/, "ws")}/web-call-stream/${token.split(".")[0]}`;
  const voice = await connectBrowserVoice(url, token, { forwardedFor: address });
  const session = await realtime.waitForSession(index, 10_000);
  const output = await waitFor(() => session.functionOutputs.find((o) => o.name === "book_appointment")?.output, {
    what: "the booking tool's answer",
    timeoutMs: 15_000,
  });
  voice.close();
  await voice.closed;
  return output;
}

const bookingsFor = (phone: string) => app.services.db.select().from(bookings).where(eq(bookings.customerPhone, phone));

describe("the agent's bookings in the browser's live voice", () => {
  it("count their confirmation calls against the visitor's address: the third of the day is not dialled", async () => {
    const address = "203.0.113.21";
    const phones = ["+12125550611", "+12125550612", "+12125550613"];
    for (const phone of phones) twilio.setOutcome(phone, "no-answer");
    for (const phone of phones) expect(await bookInBrowserVoice(address, phone)).toMatch(/^Booked:/);
    const made = await Promise.all(phones.map(async (phone) => (await bookingsFor(phone))[0]!));
    const rows = [];
    for (const booking of made) rows.push(await settled(booking.id));
    const refused = rows.filter((row) => row.callState === "not_called");
    expect(refused.map((row) => row.notCalledReason)).toEqual(["ip_cap"]);
    expect(phones.map((phone) => callsTo(phone).length).sort()).toEqual([0, 1, 1]);
    expect(callsTo(refused[0]!.customerPhone)).toHaveLength(0);
  });

  it("count against the visitor's bookings of the hour, as the booking page's do", async () => {
    const address = "203.0.113.22";
    // Twenty bookings an hour from one address (on the API, for four numbers: five each is that limit).
    for (let i = 0; i < 4; i++) twilio.setOutcome(`+1212555070${i}`, "no-answer");
    for (let i = 0; i < 20; i++) await bookOnApi(address, `+1212555070${i % 4}`);
    const phone = "+12125550711";
    expect(await bookInBrowserVoice(address, phone)).toMatch(/^Not booked: too many bookings from this number or address/);
    expect(await bookingsFor(phone)).toHaveLength(0);
  });
});

describe("a moved booking", () => {
  it("refused its call at the address's cap stays not called after a move on the manage page or by the owner", async () => {
    const address = "203.0.113.31";
    const phones = ["+12125550811", "+12125550812", "+12125550813"];
    for (const phone of phones) twilio.setOutcome(phone, "no-answer");
    const ids = [];
    for (const [index, phone] of phones.entries()) ids.push(await bookOnApi(address, phone, `gate-move-${index}@example.com`));
    const rows = [];
    for (const id of ids) rows.push(await settled(id));
    const refused = rows.filter((row) => row.callState === "not_called");
    expect(refused.map((row) => row.notCalledReason)).toEqual(["ip_cap"]);
    const capped = refused[0]!.id;
    const phone = refused[0]!.customerPhone;
    expect(callsTo(phone)).toHaveLength(0);

    // The customer moves it on their own page, from another address.
    const mail = await waitForMail(app.dataDir, refused[0]!.customerEmail!, /./);
    const manage = new URL(linkIn(mail, "/booking/")).pathname;
    const customer = httpClient(app.url, { forwardedFor: "198.51.100.40" });
    const onPage = await freeTime(20);
    expect((await customer.postForm(manage, { date: onPage.date, time: onPage.time }, { tokenFrom: manage })).status).toBe(302);
    const movedOnPage = await waitFor(
      async () => {
        const row = await findBooking(app.services.db, capped);
        return row && row.confirmationRound === 2 && row.callState === "not_called" ? row : null;
      },
      { what: "the moved booking's confirmation refused", timeoutMs: 30_000 },
    );
    expect(movedOnPage.notCalledReason).toBe("ip_cap");

    // The owner moves it from the dashboard.
    const owner = httpClient(app.url, { forwardedFor: "198.51.100.41" });
    const password = await demoOwnerPassword(app.url, app.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const byOwner = await freeTime(25);
    const moved = await owner.postForm(`/dashboard/bookings/${capped}?date=${byOwner.date}`, {
      intent: "reschedule-booking",
      bookingId: String(capped),
      date: byOwner.date,
      time: byOwner.time,
    });
    expect(moved.status).toBe(302);
    const movedByOwner = await waitFor(
      async () => {
        const row = await findBooking(app.services.db, capped);
        return row && row.confirmationRound === 3 && row.callState === "not_called" ? row : null;
      },
      { what: "the owner's move's confirmation refused", timeoutMs: 30_000 },
    );
    expect(movedByOwner.notCalledReason).toBe("ip_cap");
    expect(callsTo(phone)).toHaveLength(0);
  });
});
