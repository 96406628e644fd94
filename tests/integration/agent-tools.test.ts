import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REFERENCE_ALPHABET } from "#models/booking-reference";
import { bookings, businesses, webCalls } from "#models/schema";
import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { httpClient } from "../support/http-client";
import { waitForMail } from "../support/outbox";
import { waitFor } from "../support/wait";
import { zoneInCallingHours } from "../support/calling-hours";

// The web call's text chat with the agent's tools, end to end: the real openai SDK against the fake
// OpenAI server (scripted tool calls answered as the real API does), the booking made through the
// booking page's path, and its confirmation call placed through the real twilio SDK against the
// fake Twilio.
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({
    twilio: true,
    realtime: { audioSpeed: 10 },
    env: { TRUST_PROXY: "1", SEED_DEMO_DATA: "true" },
  }));
  await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours() }).where(eq(businesses.bookingLink, "demo-salon"));
});

afterAll(() => close?.());

const client = () => httpClient(app.url, { forwardedFor: "203.0.113.77" });

/** The first free haircut time from tomorrow on, as the booking page lists it. */
async function freeHaircut() {
  const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  const haircut = services.find((s) => s.name === "Haircut")!;
  for (let day = 1; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`);
    const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
    const free = slots.find((slot) => slot.available);
    if (free) return { serviceId: haircut.id, date, time: free.time };
  }
  throw new Error("no free haircut in the window");
}

/** The output the app gave the model for its tool call, from the next request's messages. */
function toolOutputs() {
  return realtime.chatRequests.flatMap((request) =>
    ((request.body?.messages ?? []) as { role: string; content: string; tool_call_id?: string }[]).filter((m) => m.role === "tool"),
  );
}

// First in the file: the call-me call's realtime session is the first this fake server opens (index 0).
describe("the phone agent's booking tools", () => {
  it("books during a call-me call, for the number that was called, through the bridge's tool call", async () => {
    const phone = "+12125550150";
    const { serviceId, date, time } = await freeHaircut();
    realtime.script(
      [
        { say: "هلا والله، معك المساعد الذكي من سكينة. كيف أقدر أخدمك؟" },
        { transcriptOfCaller: "أبغى أحجز قص شعر في صالون سكينة التجريبي" },
        { tool: "book_appointment", arguments: { business: "demo-salon", service_id: serviceId, date, time, customer_name: "Majed" } },
        { tool: "end_call", arguments: { reason: "done" }, say: "تم حجز موعدك، ومع السلامة." },
      ],
      0,
    );
    const response = await client().postJson("/api/calls/make-call", { to: phone });
    expect(response.status).toBe(202);
    const placed = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: `the call to ${phone}`,
      timeoutMs: 20_000,
    });
    await twilio.waitForStatus(placed.sid, "in-progress", 20_000);
    const stream = await twilio.stream(placed.sid);
    const session = await realtime.waitForSession(0, 10_000);
    expect((session.session.tools as { name: string }[]).map((t) => t.name)).toEqual([
      "lookup_booking",
      "find_business",
      "available_times",
      "book_appointment",
      "end_call",
    ]);
    await realtime.waitForServerEvent(0, "response.done");
    await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
    await stream.sendSpeech(700);
    await twilio.waitForStatus(placed.sid, "completed", 30_000);
    const output = session.functionOutputs.find((o) => o.name === "book_appointment")!.output;
    expect(output).toMatch(/^Booked: Haircut at Sakina Demo Salon on .*, for Majed on \+12125550150\./);
    expect(output).not.toContain("/booking/");
    const rows = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, phone));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ customerName: "Majed", status: "pending", language: "ar" });
    expect(session.problems).toEqual([]);
  });
});

describe("the text chat's booking tools", () => {
  it("books in a conversation: the model calls the tools, the booking exists, e-mails go out and the confirmation call rings", async () => {
    const phone = "+12125550147";
    const { serviceId, date, time } = await freeHaircut();
    const browser = client();
    const created = await browser.postJson("/api/calls", { customerName: "Fahad", phoneNumber: phone });
    expect(created.status).toBe(201);
    const { token } = (await created.json()) as { token: string };

    const before = realtime.chatRequests.length;
    realtime.scriptChat([
      { tool: "find_business", arguments: { name: "Demo Salon" } },
      {
        tool: "book_appointment",
        arguments: { business: "demo-salon", service_id: serviceId, date, time, customer_name: "Fahad", email: "fahad@example.com" },
      },
      { say: "تم حجز موعدك، وبيتصل عليك المساعد الذكي للمحل عشان يأكد الموعد." },
    ]);
    const reply = await browser.postJson("/api/conversation/process", { message: `أبغى أحجز قص شعر يوم ${date} الساعة ${time}`, token });
    expect(reply.status).toBe(200);
    expect(((await reply.json()) as { message: string }).message).toBe("تم حجز موعدك، وبيتصل عليك المساعد الذكي للمحل عشان يأكد الموعد.");

    // Three model requests: each with the four tools, the later ones carrying the tools' outputs.
    const requests = realtime.chatRequests.slice(before);
    expect(requests.map((r) => r.status)).toEqual([200, 200, 200]);
    expect(requests[0]!.response.choices[0].finish_reason).toBe("tool_calls");
    const toolNames = (requests[0]!.body!.tools as { function: { name: string } }[]).map((t) => t.function.name);
    expect(toolNames).toEqual(["lookup_booking", "find_business", "available_times", "book_appointment"]);
    const outputs = requests[2]!.body!.messages.filter((m: { role: string }) => m.role === "tool") as { content: string }[];
    expect(outputs[0]!.content).toContain("Sakina Demo Salon");
    expect(outputs[1]!.content).toMatch(/^Booked: Haircut at Sakina Demo Salon on .*, for Fahad on \+12125550147\./);

    // The booking is real, for the conversation's number, in Arabic.
    const rows = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, phone));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ customerName: "Fahad", customerEmail: "fahad@example.com", status: "pending", language: "ar" });

    // As after the booking page: the owner's and the customer's e-mails, and the confirmation call.
    await waitForMail(app.dataDir, "demo@sakina.app", /Haircut/);
    const mail = await waitForMail(app.dataDir, "fahad@example.com", /Sakina Demo Salon/);
    expect(mail.text).toContain("/booking/");
    const call = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: `the confirmation call to ${phone}`,
      timeoutMs: 20_000,
    });
    expect(call).toBeTruthy();
    await waitFor(
      async () => {
        const [row] = await app.services.db.select().from(bookings).where(eq(bookings.id, rows[0]!.id));
        return row && row.callState !== "queued" ? row : undefined;
      },
      { what: "the booking's call state to move on from queued" },
    );

    // Later in the conversation the customer asks about it with the link the tool gave.
    const link = /(https?:\/\/\S+\/booking\/[A-Za-z0-9_-]+)/.exec(outputs[1]!.content)![1]!;
    realtime.scriptChat([{ tool: "lookup_booking", arguments: { reference: link } }, { say: "حجزك مؤكد مبدئياً." }]);
    const lookup = await browser.postJson("/api/conversation/process", { message: `وش حالة حجزي؟ ${link}`, token });
    expect(lookup.status).toBe(200);
    expect(toolOutputs().at(-1)!.content).toMatch(
      /^Booking found at "Sakina Demo Salon": "Haircut" on .*, for "Fahad"\. Status: booked, waiting/,
    );
    // Or with the six-character reference the booking gave, as a caller would type it.
    const reference = /Booking reference: ([A-Z2-9]{3}-[A-Z2-9]{3})/.exec(outputs[1]!.content)![1]!;
    realtime.scriptChat([
      { tool: "lookup_booking", arguments: { reference: reference.toLowerCase().replace("-", " ") } },
      { say: "حجزك مؤكد مبدئياً." },
    ]);
    const byReference = await browser.postJson("/api/conversation/process", { message: `رقم حجزي ${reference}`, token });
    expect(byReference.status).toBe(200);
    expect(toolOutputs().at(-1)!.content).toMatch(
      new RegExp(`^Booking found at "Sakina Demo Salon": "Haircut" .*Booking reference: ${reference}\\.$`),
    );
    expect(realtime.restProblems).toEqual([]);
  });

  it("answers the model with a clear refusal for a taken time, and the reply still comes (no error page)", async () => {
    const { serviceId, date, time } = await freeHaircut();
    const first = await client().postJson("/api/calls", { customerName: "Sara", phoneNumber: "+12125550148" });
    const second = await client().postJson("/api/calls", { customerName: "Huda", phoneNumber: "+12125550149" });
    const book = { tool: "book_appointment", arguments: { business: "demo-salon", service_id: serviceId, date, time } };
    realtime.scriptChat([book, { say: "تم الحجز." }, book, { say: "للأسف الوقت انحجز، أعطيك أوقات ثانية؟" }]);
    for (const created of [first, second]) {
      const { token } = (await created.json()) as { token: string };
      const reply = await client().postJson("/api/conversation/process", { message: "احجز لي", token });
      expect(reply.status).toBe(200);
    }
    const outputs = toolOutputs().slice(-2);
    expect(outputs[0]!.content).toMatch(/^Booked:/);
    expect(outputs[1]!.content).toMatch(/^Not booked: that time was just taken by someone else/);
    const huda = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, "+12125550149"));
    expect(huda).toHaveLength(0);
    expect(realtime.restProblems).toEqual([]);
  });
});

describe("the agent's retry key and look-up limits", () => {
  it("keys a conversation's booking with a key no one outside it can write: two conversations' differ and carry no id", async () => {
    const conversations = [
      { name: "Reem", phone: "+12125550181" },
      { name: "Dana", phone: "+12125550182" },
    ];
    const made = [];
    for (const { name, phone } of conversations) {
      const { serviceId, date, time } = await freeHaircut();
      const created = await client().postJson("/api/calls", { customerName: name, phoneNumber: phone });
      const { token } = (await created.json()) as { token: string };
      realtime.scriptChat([
        { tool: "book_appointment", arguments: { business: "demo-salon", service_id: serviceId, date, time, customer_name: name } },
        { say: "تم الحجز." },
      ]);
      expect((await client().postJson("/api/conversation/process", { message: "احجز لي", token })).status).toBe(200);
      expect(toolOutputs().at(-1)!.content).toMatch(/^Booked:/);
      const [booking] = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, phone));
      const [call] = await app.services.db.select().from(webCalls).where(eq(webCalls.phone, phone));
      made.push({ booking: booking!, callId: call!.id, serviceId });
    }
    const keys = made.map(({ booking }) => booking.idempotencyKey!);
    expect(keys[0]).not.toBe(keys[1]);
    for (const key of keys) {
      // A keyed hash: nothing of the conversation's id, the service or the time shows in it.
      expect(key).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(key).not.toMatch(/web-call|agent|:/);
    }
    // The key a conversation's booking had before (its sequential id, service and time), sent to the
    // booking API with a stranger's details, finds nothing of the booking.
    for (const { booking, callId, serviceId } of made) {
      const response = await httpClient(app.url, { forwardedFor: "203.0.113.78" }).postJson("/api/booking/create", {
        businessLink: "demo-salon",
        serviceId,
        appointmentDate: booking.startsAt.toISOString(),
        customerInfo: { name: "Guesser", phone: "+12125550189" },
        idempotencyKey: `agent:web-call-${callId}:${serviceId}:${booking.startsAt.getTime()}`,
      });
      const text = await response.text();
      expect(response.status).toBe(409);
      expect(text).not.toContain(booking.customerPhone);
      expect(text).not.toContain(booking.reference.slice(0, 3));
    }
  });

  it("counts look-ups without a conversation per address: one address using its all up leaves another's", async () => {
    const lookup = async (address: string, n: number) => {
      realtime.scriptChat([
        {
          tool: "lookup_booking",
          arguments: { reference: `Q${REFERENCE_ALPHABET[n]}M-${REFERENCE_ALPHABET[n]}4P`, phone: `+1212555${7100 + n}` },
        },
        { say: "ما لقيت الحجز." },
      ]);
      const reply = await httpClient(app.url, { forwardedFor: address }).postJson("/api/conversation/process", {
        message: "وين حجزي؟",
        dialect: "saudi",
      });
      expect(reply.status).toBe(200);
      return toolOutputs().at(-1)!.content;
    };
    for (let n = 0; n < 10; n++) expect(await lookup("203.0.113.90", n)).toMatch(/^No booking matches/);
    expect(await lookup("203.0.113.90", 10)).toMatch(/^Too many booking look-ups just now/);
    // Another visitor, with no conversation either, still looks up.
    expect(await lookup("198.51.100.90", 11)).toMatch(/^No booking matches/);
    expect(realtime.restProblems).toEqual([]);
  });
});
