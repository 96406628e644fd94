// The booking page promises only the confirmation call the server will place: now, at the start
// of the next calling hours (a stated time in the business's zone), or none when the plan cannot
// place it. The page, the customer's e-mail and the job that asks for the call give one answer.
// Through the real twilio SDK against the fake Twilio (which creates calls but rings none).
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookings, businesses } from "#models/schema";
import en from "~/locales/en";
import type { FakeTwilio } from "../fakes/twilio";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { bookThroughPage, callPromiseIn } from "../support/book-through-page";
import { httpClient } from "../support/http-client";
import { linkIn, readOutbox, waitForMail } from "../support/outbox";
import { waitFor } from "../support/wait";

let twilio: FakeTwilio;
let app: InProcessApp;
let close: () => Promise<void>;
const business = "Sakina Demo Salon";

beforeAll(async () => {
  ({ app, twilio, close } = await startAppWithFakes({ twilio: { autoDial: false }, env: { SEED_DEMO_DATA: "true" } }));
});
afterAll(() => close?.());

const fill = (text: string, values: Record<string, string>) => text.replace(/\{\{(\w+)\}\}/g, (_, key: string) => values[key] ?? "");

/** A fixed-offset zone (Etc/GMT±N) whose local hour is now one of `hours` (every hour is some offset's), so the test does not depend on when it runs. */
function zoneAtLocalHour(hours: number[]) {
  const now = new Date();
  for (let offset = -12; offset <= 14; offset++) {
    const local = (now.getUTCHours() + offset + 24) % 24;
    if (hours.includes(local)) {
      return offset === 0 ? "Etc/UTC" : offset > 0 ? `Etc/GMT-${offset}` : `Etc/GMT+${-offset}`;
    }
  }
  throw new Error("no zone at those hours");
}

async function setDemo(values: Partial<typeof businesses.$inferInsert>) {
  await app.services.db.update(businesses).set(values).where(eq(businesses.bookingLink, "demo-salon"));
}

async function bookingFor(email: string) {
  const [row] = await app.services.db.select().from(bookings).where(eq(bookings.customerEmail, email));
  return row!;
}

/** The owner's new-booking e-mail for the customer with this address (its text, bidi marks and line breaks evened out). */
async function ownerMailFor(customerEmail: string) {
  const mail = await waitFor(
    async () => (await readOutbox(app.dataDir)).find((m) => m.to.includes("demo@sakina.app") && m.text.includes(customerEmail)),
    { what: `the owner's e-mail about ${customerEmail}` },
  );
  return mail.text.replace(/[\u2068\u2069]/g, "").replace(/\s+/g, " ");
}

describe("the confirmation call the booking page promises", () => {
  it("inside calling hours: a call within minutes, and the call is placed", async () => {
    await setDemo({ timeZone: zoneAtLocalHour([10, 11, 12, 13, 14, 15, 16, 17, 18]) });
    const email = "call-now@example.com";
    const booked = await bookThroughPage(httpClient(app.url), "demo-salon", { serviceName: "Haircut", phone: "(212) 555-0171", email });
    expect(callPromiseIn(booked.confirmHtml)).toBe(fill(en.book.promiseNow, { business }));
    expect(callPromiseIn(booked.doneHtml)).toBe(fill(en.book.promiseNow, { business }));
    const mail = await waitForMail(app.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text.replace(/[\u2068\u2069]/g, "")).toContain(fill(en.book.promiseNow, { business }));
    await waitFor(() => [...twilio.calls.values()].some((call) => call.params.To === "+12125550171"), {
      what: "the call at the fake Twilio",
    });
    expect(await ownerMailFor(email)).toContain(en.bookingEmail.ownerCall);
  });

  it("outside calling hours: a call at 08:00 the next morning in the business's zone, and the call waits for that time", async () => {
    // 22:xx: outside calling hours, and far from both 08:00 and midnight (so "tomorrow" stays true).
    const zone = zoneAtLocalHour([22]);
    await setDemo({ timeZone: zone });
    const email = "call-later@example.com";
    const booked = await bookThroughPage(httpClient(app.url), "demo-salon", { serviceName: "Haircut", phone: "(212) 555-0172", email });
    const promise = callPromiseIn(booked.confirmHtml);
    expect(promise).toContain("at 8:00 AM tomorrow");
    expect(promise).toMatch(/calls are placed only between 08:00 and 21:00/);
    expect(promise).not.toMatch(/within minutes/);
    expect(callPromiseIn(booked.doneHtml)).toBe(promise);
    const mail = await waitForMail(app.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text.replace(/[\u2068\u2069]/g, "").replace(/\s+/g, " ")).toContain(promise);
    // The job asked for the call at the promised time, not now.
    const booking = await waitFor(async () => {
      const row = await bookingFor(email);
      return row.callState === "scheduled" ? row : null;
    });
    const startAfter = await waitFor(async () => {
      const result = await app.services.db.execute(
        sql`select j.start_after from pgboss.job j join calls c on (j.data->>'callId')::int = c.id where j.name = 'call-place' and c.booking_id = ${booking.id}`,
      );
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { start_after: string | Date }[];
      return rows[0]?.start_after;
    });
    const at = new Date(startAfter);
    const local = at.toLocaleTimeString("en-GB", { timeZone: zone, hour: "2-digit", minute: "2-digit" });
    expect(local).toBe("08:00");
    // The owner is told the same: the call at 8:00 tomorrow, not "calling now".
    const owner = await ownerMailFor(email);
    expect(owner).toContain("will call the customer to confirm at 8:00 AM tomorrow");
    expect(owner).not.toContain(en.bookingEmail.ownerCall);
    expect(at.getTime() - Date.now()).toBeGreaterThan(8 * 3_600_000);
    expect([...twilio.calls.values()].some((call) => call.params.To === "+12125550172")).toBe(false);
  });

  it("when the plan cannot place it: no call is promised, the e-mail is the confirmation, and none is placed", async () => {
    await setDemo({ timeZone: zoneAtLocalHour([10, 11, 12, 13, 14, 15, 16, 17, 18]), starterEndsAt: new Date(Date.now() - 60_000) });
    const email = "no-call-plan@example.com";
    const booked = await bookThroughPage(httpClient(app.url), "demo-salon", { serviceName: "Haircut", phone: "(212) 555-0173", email });
    expect(callPromiseIn(booked.confirmHtml)).toBe(fill(en.book.promiseNoneEmailed, { business }));
    expect(callPromiseIn(booked.doneHtml)).toBe(fill(en.book.promiseNoneEmailed, { business }));
    const mail = await waitForMail(app.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text).not.toMatch(/within minutes/);
    // The engine's gate reaches the same answer and tells the owner why nobody called.
    await waitFor(async () => (await bookingFor(email)).notCalledReason === "plan_starter_ended", { what: "the plan's refusal" });
    expect([...twilio.calls.values()].some((call) => call.params.To === "+12125550173")).toBe(false);
    // The owner is told no call will be placed and to confirm it themselves.
    expect(await ownerMailFor(email)).toContain(en.bookingEmail.ownerNoCall);

    // A new time chosen on the manage page promises no call either.
    const manage = new URL(linkIn(mail, "/booking/")).pathname;
    const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
    const haircut = services.find((service) => service.name === "Haircut")!;
    let date = "";
    let time = "";
    for (let day = 3; day < 30 && !time; day++) {
      date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`);
      const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
      time = slots.find((slot) => slot.available)?.time ?? "";
    }
    const customer = httpClient(app.url);
    const moved = await customer.postForm(manage, { date, time }, { tokenFrom: `${manage}?reschedule=1` });
    expect(moved.status).toBe(302);
    const page = (await (await customer.get(manage)).text()).replace(/[\u2068\u2069]/g, "");
    expect(page).toContain(en.manage.moved);
    expect(page).toContain(fill(en.book.promiseNoneEmailed, { business }));
    expect(page).not.toMatch(/We'll call to confirm/);
  });
});
