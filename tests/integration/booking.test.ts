import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { httpClient } from "../support/http-client";
import { linkIn, waitForMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";

let server: RunningServer;
let services: { id: number; name: string; duration: number }[];
let visitor = 0;

beforeAll(async () => {
  // Visitors reach the app through an internal proxy (10.0.x.1) and this machine: both are trusted.
  server = await startServer({ SEED_DEMO_DATA: "true", TRUST_PROXY: "loopback,10.0.0.0/8" });
  services = await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json();
});
afterAll(() => server?.stop());

/** Each request from a visitor of its own, so per-visitor limits don't mask the behaviour. */
function freshVisitor() {
  visitor += 1;
  return {
    client: httpClient(server.url, { forwardedFor: `198.51.100.${visitor % 250}, 10.0.${Math.floor(visitor / 250)}.1` }),
    phone: `+1212555${String(1000 + visitor).slice(-4)}`,
  };
}

const serviceNamed = (name: string) => services.find((s) => s.name === name)!;

async function windowDates() {
  const dates: string[] = [];
  const today = new Date();
  for (let i = 0; i <= 31; i++) dates.push(new Date(today.getTime() + i * 86_400_000).toISOString().slice(0, 10));
  return dates;
}

async function freeSlots(serviceId: number) {
  const out: { date: string; time: string }[] = [];
  for (const date of await windowDates()) {
    const response = await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${serviceId}`);
    if (response.status !== 200) continue;
    for (const slot of (await response.json()) as { time: string; available: boolean }[]) {
      if (slot.available) out.push({ date, time: slot.time });
    }
  }
  return out;
}

function book(serviceId: number, appointmentDate: string, extra: Record<string, unknown> = {}) {
  const { client, phone } = freshVisitor();
  return client.postJson("/api/booking/create", {
    businessLink: "demo-salon",
    serviceId,
    appointmentDate,
    customerInfo: { name: "Race Tester", phone },
    requestCall: true,
    ...extra,
  });
}

describe("availability", () => {
  it("lists times with their availability for a day in the window", async () => {
    const haircut = serviceNamed("Haircut");
    const slots = await freeSlots(haircut.id);
    expect(slots.length).toBeGreaterThan(20);
    expect(slots.every((s) => /^\d{2}:\d{2}$/.test(s.time))).toBe(true);
    // On weekdays the lunch break (12:00-13:00 New York time) never offers a start.
    const weekday = (date: string) => new Date(`${date}T12:00:00Z`).getUTCDay();
    const weekdaySlots = slots.filter((s) => weekday(s.date) >= 1 && weekday(s.date) <= 5);
    expect(weekdaySlots.some((s) => s.time >= "12:00" && s.time < "13:00")).toBe(false);
    expect(weekdaySlots.some((s) => s.time === "13:00")).toBe(true);
    // Sundays are closed.
    expect(slots.some((s) => weekday(s.date) === 0)).toBe(false);
  });

  it.each([
    ["2026-02-30", "The date must be a real date written YYYY-MM-DD."],
    ["tomorrow", "The date must be a real date written YYYY-MM-DD."],
    ["2099-01-01", "Bookings are open from today to 60 days ahead; that date is outside."],
    ["2020-01-01", "Bookings are open from today to 60 days ahead; that date is outside."],
  ])("answers %s with a 400 and a clear message", async (date, message) => {
    const response = await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${serviceNamed("Haircut").id}`);
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(message);
  });

  it("answers an unknown service with a 400 and an unknown business with a 404", async () => {
    const date = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
    expect((await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/99999`)).status).toBe(400);
    expect((await fetch(`${server.url}/api/booking/availability/nobody-here/${date}/1`)).status).toBe(404);
    const unknown = await fetch(`${server.url}/api/booking/services/nobody-here`);
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error).toEqual(expect.any(String));
  });
});

describe("no double booking", () => {
  it("lets exactly one of 100 simultaneous requests for one slot, and overlapping ones, through", async () => {
    const colour = serviceNamed("Colour"); // 90 minutes
    const haircut = serviceNamed("Haircut"); // 30 minutes
    const slots = await freeSlots(haircut.id);
    // A morning with the whole 09:00-12:00 stretch free, so 30- and 90-minute starts overlap.
    const date = slots.find((s) => s.time === "09:00" && slots.some((o) => o.date === s.date && o.time === "10:30"))!.date;
    const requests = [
      ...Array.from({ length: 70 }, () => book(haircut.id, `${date}T10:00`)),
      ...Array.from({ length: 15 }, () => book(colour.id, `${date}T09:00`)),
      ...Array.from({ length: 15 }, () => book(haircut.id, `${date}T10:15`)),
    ];
    const responses = await Promise.all(requests);
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    const losers = responses.filter((r) => r.status !== 201);
    for (const loser of losers) {
      expect([409, 400]).toContain(loser.status);
    }
    const bodies = await Promise.all(losers.map((r) => r.json()));
    expect(bodies.filter((b) => b.code === "slot_taken").length).toBeGreaterThan(80);
    for (const body of bodies) expect(body.error).toMatch(/just taken|not available/);
    // Afterwards the day shows the winner's time as taken.
    const day = (await (await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json()) as {
      time: string;
      available: boolean;
    }[];
    const taken = day.filter((s) => ["09:00", "09:30", "10:00"].includes(s.time) && !s.available);
    expect(taken.length).toBeGreaterThan(0);
  });

  it("returns the same booking for a repeated idempotency key", async () => {
    const haircut = serviceNamed("Haircut");
    const [slot] = (await freeSlots(haircut.id)).slice(-1);
    const { client, phone } = freshVisitor();
    const body = {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${slot!.date}T${slot!.time}`,
      customerInfo: { name: "Double Clicker", phone },
      requestCall: true,
      idempotencyKey: "double-click-1",
    };
    const [first, second] = await Promise.all([client.postJson("/api/booking/create", body), client.postJson("/api/booking/create", body)]);
    const ids = [(await first.json()).booking.id, (await second.json()).booking.id];
    expect(ids[0]).toBe(ids[1]);
    expect([first.status, second.status].sort()).toEqual([200, 201]);
  });

  it("answers a key sent again with another request 409, with nothing of the booking it made", async () => {
    const haircut = serviceNamed("Haircut");
    const slots = await freeSlots(haircut.id);
    const [slot, other] = slots.slice(-4, -2);
    const owner = freshVisitor();
    const request = {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${slot!.date}T${slot!.time}`,
      customerInfo: { name: "Key Owner", phone: owner.phone, email: "key.owner@example.com", notes: "Window seat" },
      requestCall: true,
      idempotencyKey: "replayed-key-1",
    };
    const first = await owner.client.postJson("/api/booking/create", request);
    expect(first.status).toBe(201);
    const made = (await first.json()).booking;

    // A stranger with the key, their own details or another time: never the owner's booking.
    const stranger = freshVisitor();
    const customer = request.customerInfo;
    const replays = [
      { ...request, customerInfo: { ...customer, phone: stranger.phone } },
      { ...request, customerInfo: { name: "Someone Else", phone: stranger.phone } },
      { ...request, customerInfo: { ...customer, name: "Key Owner Jr", email: "other@example.com" } },
      { ...request, appointmentDate: `${other!.date}T${other!.time}` },
    ];
    for (const replay of replays) {
      const response = await stranger.client.postJson("/api/booking/create", replay);
      const text = await response.text();
      expect(response.status).toBe(409);
      const body = JSON.parse(text);
      expect(body).toMatchObject({ code: "idempotency_key_reused", error: expect.stringMatching(/already sent with other details/) });
      expect(body.booking).toBeUndefined();
      for (const secret of [made.reference, made.reference.replace("-", ""), owner.phone, String(made.id)])
        expect(text).not.toContain(secret);
    }
    // The header is the same key as the body's.
    const byHeader = await fetch(`${server.url}/api/booking/create`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "Idempotency-Key": "replayed-key-1", "X-Forwarded-For": "198.51.100.251, 10.0.9.1" },
      body: JSON.stringify({ ...replays[1], idempotencyKey: undefined }),
    });
    expect(byHeader.status).toBe(409);

    // The owner's own retry, with the same request written with other spacing and case, still gets it.
    const retry = await owner.client.postJson("/api/booking/create", {
      ...request,
      customerInfo: { ...customer, name: " Key  Owner ", email: "Key.Owner@Example.com" },
    });
    expect(retry.status).toBe(200);
    expect((await retry.json()).booking).toMatchObject({ id: made.id, reference: made.reference });
  });

  it("answers a retry of a booking's key with that booking amid a burst of others for its time, who hear it is taken", async () => {
    const haircut = serviceNamed("Haircut");
    const [slot] = (await freeSlots(haircut.id)).slice(-2);
    const at = `${slot!.date}T${slot!.time}`;
    const retried = freshVisitor();
    const request = {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: at,
      customerInfo: { name: "Race Tester", phone: retried.phone },
      requestCall: true,
      idempotencyKey: "burst-retry-1",
    };
    const first = await retried.client.postJson("/api/booking/create", request);
    expect(first.status).toBe(201);
    const { id } = (await first.json()).booking;
    const burst = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => book(haircut.id, at, { idempotencyKey: `burst-other-${i}` })),
      retried.client.postJson("/api/booking/create", request),
      ...Array.from({ length: 10 }, () => book(haircut.id, at)),
    ]);
    const retry = burst[10]!;
    expect(retry.status).toBe(200);
    expect((await retry.json()).booking.id).toBe(id);
    const others = burst.filter((response) => response !== retry);
    expect(others.map((response) => response.status)).toEqual(others.map(() => 409));
    for (const body of await Promise.all(others.map((response) => response.json()))) expect(body.code).toBe("slot_taken");
  });

  it("frees the slot when the customer cancels from the e-mailed link", async () => {
    const haircut = serviceNamed("Haircut");
    const slots = await freeSlots(haircut.id);
    const slot = slots[Math.floor(slots.length / 2)]!;
    const { client, phone } = freshVisitor();
    const response = await client.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${slot.date}T${slot.time}`,
      customerInfo: { name: "Cancel Me", phone, email: "cancel.me@example.com" },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    expect((await book(haircut.id, `${slot.date}T${slot.time}`)).status).toBe(409);

    const mail = await waitForMail(server.dataDir, "cancel.me@example.com", /Your booking request/);
    const ics = /filename=booking\.ics[\s\S]*?\r?\n\r?\n([\s\S]*?)\r?\n--/.exec(mail.raw)?.[1] ?? "";
    const calendar = /^[A-Za-z0-9+/=\s]+$/.test(ics) ? Buffer.from(ics.replace(/\s/g, ""), "base64").toString("utf8") : ics;
    expect(calendar).toContain("BEGIN:VCALENDAR");
    expect(calendar).toMatch(/DTSTART:\d{8}T\d{6}Z/);
    const manage = new URL(linkIn(mail, "/booking/"));
    const cancel = await client.postForm(manage.pathname, { intent: "cancel" });
    expect(cancel.status).toBe(302);
    expect((await book(haircut.id, `${slot.date}T${slot.time}`)).status).toBe(201);
  });

  it("stores the phone in E.164 and refuses times that are not slots, even one that overlaps a booking", async () => {
    const haircut = serviceNamed("Haircut");
    // The window's last morning with 09:00 free: booked here, so 09:07 overlaps that booking.
    const slot = (await freeSlots(haircut.id)).filter((s) => s.time === "09:00").at(-1)!;
    const { client } = freshVisitor();
    const ok = await client.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${slot.date}T${slot.time}`,
      customerInfo: { name: "Local Number", phone: "(212) 555-0177" },
      requestCall: true,
    });
    expect(ok.status).toBe(201);
    expect((await ok.json()).booking.customerPhone).toBe("+12125550177");
    expect((await book(haircut.id, `${slot.date}T03:00`)).status).toBe(400);
    // Off the grid and inside the 09:00 booking: "not a slot", not "just taken".
    const offGrid = await book(haircut.id, `${slot.date}T09:07`);
    expect(offGrid.status).toBe(400);
    expect((await offGrid.json()).code).toBe("not_a_slot");
  });

  it.each([
    [{ businessLink: "demo-salon" }, "Missing booking information"],
    [
      { businessLink: "demo-salon", serviceId: 1, appointmentDate: "2026-13-45T10:00", customerInfo: { name: "A", phone: "+12125550100" } },
      "The date must be a real date written YYYY-MM-DD.",
    ],
  ])("answers %j with %s", async (body, message) => {
    const response = await freshVisitor().client.postJson("/api/booking/create", body);
    expect(response.status).toBe(400);
    expect((await response.json()).error).toBe(message);
  });

  it("requires the customer's name and phone", async () => {
    const haircut = serviceNamed("Haircut");
    const slot = (await freeSlots(haircut.id)).at(-4)!;
    const response = await freshVisitor().client.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${slot.date}T${slot.time}`,
      customerInfo: { name: "", phone: "" },
    });
    expect(response.status).toBe(400);
    expect(Object.keys((await response.json()).fields).sort()).toEqual(["name", "phone"]);
  });
});
