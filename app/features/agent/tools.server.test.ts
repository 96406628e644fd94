import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBooking } from "#models/bookings";
import { customerServiceAgent } from "./customer-service-agent.server";
import type { ChatTool } from "~/providers/ai.server";
import { expectLog } from "../../../tests/support/console";
import { createTestServices } from "../../../tests/support/services";
import {
  AVAILABLE_TIMES,
  BOOK_APPOINTMENT,
  customerServiceTools,
  FIND_BUSINESS,
  LOOKUP_BOOKING,
  NO_MATCHING_BOOKING,
  referenceToken,
  TOOL_FAILED,
  type AgentSession,
} from "./tools.server";

// The tools with the app's real services on a database of their own, with the demo business
// (Sakina Demo Salon, /book/demo-salon, New York). Workers do not run: a queued job stays queued.
let services: Awaited<ReturnType<typeof createTestServices>>;

beforeAll(async () => {
  services = await createTestServices({ SEED_DEMO_DATA: "true", APP_URL: "https://sakina.test" }, { runWorkers: false });
});
afterAll(() => services?.close());

let visitor = 0;
/** A conversation of its own (its own number, so the booking page's per-number limit never mixes tests). */
function session(overrides: Partial<AgentSession> = {}): AgentSession {
  visitor += 1;
  return {
    phone: `+1212555${String(2000 + visitor)}`,
    customerName: "Fahad",
    sessionKey: `test-${visitor}`,
    channel: "text",
    ...overrides,
  };
}

function tool(s: AgentSession, name: string): ChatTool {
  return customerServiceTools(services, s).find((t) => t.name === name)!;
}

async function haircutId() {
  const out = await tool(session(), FIND_BUSINESS).run({ name: "demo salon" });
  return Number(/service_id (\d+): Haircut/.exec(out)![1]);
}

/** A free time of the haircut, as the agent would find it: the next free days without a date. */
async function freeTime(s: AgentSession, serviceId: number, skip = 0) {
  const out = await tool(s, AVAILABLE_TIMES).run({ business: "demo-salon", service_id: serviceId });
  // Every free time the tool listed, day by day (the first day may have a single one left, late in the day).
  const free = [...out.matchAll(/(\d{4}-\d{2}-\d{2}): ([\d:, ]+)/g)].flatMap(([, date, times]) =>
    times!
      .split(",")
      .map((time) => time.trim())
      .filter(Boolean)
      .map((time) => ({ date: date!, time })),
  );
  return free[skip]!;
}

const bookingsQueued = async () =>
  (
    (await services.db.execute(sql`select data from pgboss.job where name = 'booking-confirmation-call'`)) as unknown as {
      rows: { data: { bookingId: number } }[];
    }
  ).rows.map((row) => row.data.bookingId);

describe("find_business", () => {
  it("finds an active business by part of its name and lists its services with their ids", async () => {
    const out = await tool(session(), FIND_BUSINESS).run({ name: "Demo Salon" });
    expect(out).toContain("Sakina Demo Salon");
    expect(out).toContain('business: "demo-salon"');
    expect(out).toMatch(/service_id \d+: Haircut, 30 min, \$35\.00/);
    expect(out).toContain("America/New_York");
  });

  it("finds it by its booking page link too", async () => {
    expect(await tool(session(), FIND_BUSINESS).run({ name: "https://sakina.test/book/demo-salon" })).toContain("Sakina Demo Salon");
  });

  it("says plainly when no business taking bookings has that name", async () => {
    const out = await tool(session(), FIND_BUSINESS).run({ name: "Barber of Jeddah" });
    expect(out).toMatch(/^No business taking bookings is called 'Barber of Jeddah'/);
  });
});

describe("available_times", () => {
  it("lists a day's free times in the business's time zone, and refuses a date outside the window", async () => {
    const id = await haircutId();
    const { date, time } = await freeTime(session(), id);
    const day = await tool(session(), AVAILABLE_TIMES).run({ business: "demo-salon", service_id: id, date });
    expect(day).toContain(`on ${new Date(`${date}T12:00:00Z`).toLocaleDateString("en-GB", { weekday: "long", timeZone: "UTC" })} ${date}`);
    expect(day).toContain(time);
    expect(await tool(session(), AVAILABLE_TIMES).run({ business: "demo-salon", service_id: id, date: "2099-01-01" })).toMatch(
      /outside the booking window/,
    );
    expect(await tool(session(), AVAILABLE_TIMES).run({ business: "nowhere", service_id: id })).toMatch(/^Unknown business/);
  });
});

describe("book_appointment", () => {
  it("books through the booking page's path for the conversation's number: the booking exists, the confirmation call is queued", async () => {
    const id = await haircutId();
    const s = session({ ip: "203.0.113.7" });
    const { date, time } = await freeTime(s, id);
    const out = await tool(s, BOOK_APPOINTMENT).run({
      business: "demo-salon",
      service_id: id,
      date,
      time,
      customer_name: "Fahad Alharbi",
      phone: "+15550000000", // not a parameter: the booking is for the conversation's number
    });
    expect(out).toMatch(/^Booked: Haircut at Sakina Demo Salon on .* \(America\/New_York time\), for Fahad Alharbi/);
    expect(out).toContain("AI assistant will phone this number");
    const token = /https:\/\/sakina\.test\/booking\/([A-Za-z0-9_-]+)/.exec(out)![1]!;
    const bookingId = (await bookingsQueued()).at(-1)!;
    const booking = (await findBooking(services.db, bookingId))!;
    expect(booking).toMatchObject({ customerName: "Fahad Alharbi", customerPhone: s.phone, status: "pending", language: "ar" });
    expect(booking.startsAt.toLocaleString("en-GB", { timeZone: "America/New_York", hourCycle: "h23" })).toContain(`${time}:00`);
    // The same request again in the same conversation makes no second booking.
    const again = await tool(s, BOOK_APPOINTMENT).run({
      business: "demo-salon",
      service_id: id,
      date,
      time,
      customer_name: "Fahad Alharbi",
    });
    expect(again).toMatch(/^Already booked in this conversation/);
    expect((await bookingsQueued()).filter((b) => b === bookingId)).toHaveLength(1);
    // On the phone no link is read out.
    const { date: date2, time: time2 } = await freeTime(s, id);
    const spoken = await tool({ ...s, channel: "voice", sessionKey: "voice-1" }, BOOK_APPOINTMENT).run({
      business: "demo-salon",
      service_id: id,
      date: date2,
      time: time2,
    });
    expect(spoken).toMatch(/^Booked: .* for Fahad on/);
    expect(spoken).not.toContain("/booking/");
    expect(referenceToken(`Here it is: https://sakina.test/booking/${token}`)).toBe(token);
  });

  it("refuses a time another booking took, with a clear output, and books nothing", async () => {
    const id = await haircutId();
    const { date, time } = await freeTime(session(), id);
    expect(await tool(session(), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time })).toMatch(/^Booked:/);
    const before = (await bookingsQueued()).length;
    const second = await tool(session(), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time });
    expect(second).toMatch(/^Not booked: that time was just taken by someone else\. Use available_times again/);
    expect((await bookingsQueued()).length).toBe(before);
  });

  it("refuses a time that is not a slot, an unknown business or service, and a conversation without a phone number", async () => {
    const id = await haircutId();
    const { date } = await freeTime(session(), id);
    expect(await tool(session(), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time: "03:07" })).toMatch(
      /^Not booked: that is not a bookable time/,
    );
    expect(await tool(session(), BOOK_APPOINTMENT).run({ business: "no-such-shop", service_id: id, date, time: "10:00" })).toMatch(
      /^Unknown business/,
    );
    expect(await tool(session(), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: 999_999, date, time: "10:00" })).toMatch(
      /^Unknown service_id/,
    );
    expect(
      await tool(session({ phone: null }), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time: "10:00" }),
    ).toMatch(/^Cannot book here: this conversation has no phone number/);
    expect(
      await tool(session({ customerName: null }), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time: "10:00" }),
    ).toMatch(/^Not booked: name: /);
  });

  it("does not book at a business that is no longer active", async () => {
    const id = await haircutId();
    const { date, time } = await freeTime(session(), id);
    await services.db.execute(sql`update businesses set status = 'suspended' where booking_link = 'demo-salon'`);
    try {
      expect(await tool(session(), BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time })).toMatch(
        /^Unknown business/,
      );
      expect(await tool(session(), FIND_BUSINESS).run({ name: "Demo Salon" })).toMatch(/^No business/);
    } finally {
      await services.db.execute(sql`update businesses set status = 'active' where booking_link = 'demo-salon'`);
    }
  });
});

describe("lookup_booking", () => {
  async function booked() {
    const id = await haircutId();
    const s = session();
    const { date, time } = await freeTime(s, id);
    const out = await tool(s, BOOK_APPOINTMENT).run({ business: "demo-salon", service_id: id, date, time, customer_name: "Noura" });
    return { s, link: /(https:\/\/sakina\.test\/booking\/[A-Za-z0-9_-]+)/.exec(out)![1]!, date, time };
  }

  it("answers the business, service, local time and status when the reference and the phone number both match", async () => {
    const { s, link, time } = await booked();
    const local = s.phone!.replace("+1", "").replace(/^(\d{3})(\d{3})(\d{4})$/, "($1) $2-$3");
    const out = await tool(session({ phone: null }), LOOKUP_BOOKING).run({ reference: link, phone: local });
    expect(out).toMatch(
      /^Booking found at "Sakina Demo Salon": "Haircut" on .* \(America\/New_York time\), for "Noura"\. Status: booked, waiting/,
    );
    expect(out).toContain(time);
    // The number the caller is on is the default.
    expect(await tool(s, LOOKUP_BOOKING).run({ reference: link.split("/booking/")[1] })).toMatch(/^Booking found/);
  });

  it("gives one and the same answer for a wrong phone number and a wrong reference, and nothing of the booking", async () => {
    const { link } = await booked();
    const wrongPhone = await tool(session(), LOOKUP_BOOKING).run({ reference: link, phone: "+12125559999" });
    const wrongReference = await tool(session(), LOOKUP_BOOKING).run({ reference: `${link.slice(0, -4)}AAAA`, phone: "+12125559999" });
    const nonsense = await tool(session({ phone: null }), LOOKUP_BOOKING).run({ reference: "123" });
    expect(wrongPhone).toBe(NO_MATCHING_BOOKING);
    expect(wrongReference).toBe(NO_MATCHING_BOOKING);
    expect(nonsense).toBe(NO_MATCHING_BOOKING);
    expect(wrongPhone).not.toMatch(/Haircut|Noura|Demo Salon/);
  });

  it("tells the status as the business or the confirmation call left it", async () => {
    const { s, link } = await booked();
    await services.db.execute(sql`update bookings set status = 'cancelled' where customer_phone = ${s.phone} and status <> 'cancelled'`);
    expect(await tool(s, LOOKUP_BOOKING).run({ reference: link })).toMatch(/Status: cancelled\./);
  });
});

describe("a tool that breaks", () => {
  it("gives the model a short apology, never the failed query with its values, and logs the reason", async () => {
    const failing = {
      ...services,
      db: new Proxy(services.db, {
        get(target, key) {
          if (key === "select" || key === "execute") {
            return () => {
              throw new Error("Failed query: select * from bookings where customer_phone = $1\nparams: +12125550199", {
                cause: new Error("connection terminated"),
              });
            };
          }
          return Reflect.get(target, key);
        },
      }),
    };
    expectLog("error", /Agent tool lookup_booking failed: connection terminated/);
    const out = await customerServiceTools(failing, session())
      .find((t) => t.name === LOOKUP_BOOKING)!
      .run({ reference: "https://sakina.test/booking/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" });
    expect(out).toBe(TOOL_FAILED);
    expect(out).not.toContain("+1212");
  });
});

describe("the phone agent", () => {
  it("has the booking tools and end_call, and is told when to use them", async () => {
    const agent = customerServiceAgent(services, { voice: "ash", phone: "+966501234567" });
    expect(agent.voice).toBe("ash");
    expect(agent.tools.map((t) => t.name)).toEqual([LOOKUP_BOOKING, FIND_BUSINESS, AVAILABLE_TIMES, BOOK_APPOINTMENT, "end_call"]);
    for (const name of [LOOKUP_BOOKING, FIND_BUSINESS, AVAILABLE_TIMES, BOOK_APPOINTMENT]) expect(agent.instructions).toContain(name);
    expect(agent.instructions).toContain("اللهجة السعودية");
  });

  it("books for the number on the line, whatever number the model names", async () => {
    const id = await haircutId();
    const agent = customerServiceAgent(services, { voice: "ash", phone: "+12125553131", sessionKey: "call-test" });
    const { date, time } = await freeTime(session(), id, 1);
    const out = await agent.tools
      .find((t) => t.name === BOOK_APPOINTMENT)!
      .run({
        business: "demo-salon",
        service_id: id,
        date,
        time,
        customer_name: "Saad",
      });
    expect(out).toMatch(/^Booked: .* for Saad on \+12125553131\./);
  });
});
