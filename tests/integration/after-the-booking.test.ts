import { eq } from "drizzle-orm";
import ICAL from "ical.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, bookings, businesses, calls } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { bookingAgent } from "~/features/booking/agent.server";
import en from "~/locales/en";
import { CANCEL_BOOKING, CONFIRM_BOOKING, REQUEST_RESCHEDULE } from "~/voice/agents.server";
import { startAppInProcess } from "../support/app-in-process";
import { bookThroughPage } from "../support/book-through-page";
import { httpClient } from "../support/http-client";
import { linkIn, readOutbox, waitForMail, type OutboxMail } from "../support/outbox";

// Issue 47: after the booking. One link for the booking's whole life, both sides told of every
// change with a calendar file that updates calendars, and the zone the customer booked in.
let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
const OWNER_EMAIL = "after-owner@example.com";
let businessEmail = "";

beforeAll(async () => {
  app = await startAppInProcess({});
  const db = app.services.db;
  const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
  businessEmail = demo!.email;
  const passwordHash = await hashPassword("after the booking password");
  await db
    .insert(accounts)
    .values({ businessId: demo!.id, name: "Salon Owner", email: OWNER_EMAIL, passwordHash, mustChangePassword: false });
  owner = httpClient(app.url);
  expect((await owner.postJson("/api/auth/login", { email: OWNER_EMAIL, password: "after the booking password" })).status).toBe(200);
});

afterAll(async () => {
  await app?.stop();
});

const bookingRow = async (id: number) => (await app.services.db.select().from(bookings).where(eq(bookings.id, id)))[0]!;
const mailsTo = async (to: string, subject: RegExp) =>
  (await readOutbox(app.dataDir)).filter((m) => m.to.includes(to) && subject.test(m.subject));

/** The .ics attached to an e-mail, parsed by ical.js as a calendar app would. */
function calendarOf(mail: OutboxMail) {
  const part = mail.raw.split(/\r?\n--/).find((p) => /filename="?booking\.ics/i.test(p));
  if (!part) throw new Error(`no .ics in "${mail.subject}"`);
  const [headers = "", ...body] = part.split(/\r?\n\r?\n/);
  const text = /base64/i.test(headers) ? Buffer.from(body.join("").replace(/\s/g, ""), "base64").toString("utf8") : body.join("\n\n");
  return parseIcs(text);
}

function parseIcs(text: string) {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const event = calendar.getFirstSubcomponent("vevent")!;
  return {
    method: String(calendar.getFirstPropertyValue("method")),
    uid: String(event.getFirstPropertyValue("uid")),
    sequence: Number(event.getFirstPropertyValue("sequence")),
    status: event.getFirstPropertyValue("status") as string | null,
    start: (event.getFirstPropertyValue("dtstart") as ICAL.Time).toJSDate().getTime(),
  };
}

let phones = 0;
async function customerBooksInLosAngeles(email: string) {
  phones += 1;
  const guest = httpClient(app.url, { localAddress: `127.0.2.${phones}` });
  await bookThroughPage(guest, "demo-salon", {
    serviceName: "Haircut",
    phone: `+1212555${String(3000 + phones)}`,
    email,
    name: `Casey ${phones}`,
    tz: "America/Los_Angeles",
  });
  const [row] = await app.services.db.select().from(bookings).where(eq(bookings.customerEmail, email));
  const first = await waitForMail(app.dataDir, email, /^Your booking request at/);
  return { id: row!.id, first, manage: linkIn(first, "/booking/") };
}

/** A free time for the booking in the owner's reschedule form: its date and first free time. */
async function ownerFreeTime(id: number) {
  const page = await (await owner.get(`/dashboard/bookings/${id}`)).text();
  const date = /<option value="(\d{4}-\d{2}-\d{2})"/.exec(page)?.[1];
  const times = await (await owner.get(`/dashboard/bookings/${id}?date=${date}`)).text();
  const time = /name="time" value="(\d{2}:\d{2})"/.exec(times)?.[1];
  expect(date && time, "a free time to move to").toBeTruthy();
  return { date: date!, time: time! };
}

/** The manage page's first free time on its first day with one (the customer's side). */
async function customerFreeStart(manage: string, query = "") {
  const dates = await (await fetch(`${manage}?reschedule=1${query}`)).text();
  const date = /value="(\d{4}-\d{2}-\d{2})"[^>]*name="date"/.exec(dates)?.[1];
  const times = await (await fetch(`${manage}?reschedule=1&date=${date}${query}`)).text();
  const start = /name="start" value="(\d+)"/.exec(times)?.[1];
  expect(start, "a free time on the manage page").toBeTruthy();
  return { date: date!, start: start!, html: times };
}

async function customerPosts(manage: string, fields: Record<string, string>) {
  const guest = httpClient(app.url);
  const path = new URL(manage).pathname;
  return guest.postForm(path, fields, { tokenFrom: path });
}

describe("the customer's link", () => {
  it("still opens the booking after the owner confirms and moves it, in the zone the customer booked in", async () => {
    const email = "casey-la@example.com";
    const { id, first, manage } = await customerBooksInLosAngeles(email);
    expect((await bookingRow(id)).customerTimeZone).toBe("America/Los_Angeles");
    // The first e-mail speaks the customer's zone, not the business's (New York).
    expect(first.text).toContain("Pacific Time");
    expect(first.text).not.toContain("Eastern Time");
    expect(calendarOf(first)).toMatchObject({ sequence: 0, method: "PUBLISH" });

    expect((await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(id) })).status).toBe(302);
    const { date, time } = await ownerFreeTime(id);
    expect(
      (await owner.postForm(`/dashboard/bookings/${id}`, { intent: "reschedule-booking", bookingId: String(id), date, time })).status,
    ).toBe(302);
    const moved = await waitForMail(app.dataDir, email, /has a new time$/);

    // The same link in every e-mail, and it still opens the booking at its new time, in Pacific Time.
    expect(linkIn(moved, "/booking/")).toBe(manage);
    const page = await fetch(manage);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain("Pacific Time");
    const row = await bookingRow(id);
    const ics = calendarOf(moved);
    expect(ics.uid).toBe(calendarOf(first).uid);
    expect(ics.sequence).toBe(row.calendarSequence);
    expect(ics.sequence).toBeGreaterThan(0);
    expect(ics.start).toBe(row.startsAt.getTime());
    expect(moved.text).toContain("Pacific Time");
    // The owner's list marks who changed it.
    expect(await (await owner.get(`/dashboard/bookings/${id}`)).text()).toContain("Moved by you");
  });

  it("is replaced only when the customer asks; the old link then says so in the business's frame", async () => {
    const email = "casey-newlink@example.com";
    const { manage } = await customerBooksInLosAngeles(email);
    const asked = await customerPosts(manage, { intent: "new-link" });
    expect(asked.status).toBe(302);
    const fresh = new URL(asked.headers.get("location")!, app.url);
    expect(fresh.pathname).not.toBe(new URL(manage).pathname);
    const mail = await waitForMail(app.dataDir, email, /^Your new link for your booking at/);
    expect(linkIn(mail, "/booking/")).toBe(`${app.url}${fresh.pathname}`);
    expect((await fetch(`${app.url}${fresh.pathname}`)).status).toBe(200);
    const old = await fetch(manage);
    expect(old.status).toBe(410);
    const oldHtml = await old.text();
    expect(oldHtml).toContain("This link was replaced");
    expect(oldHtml).toContain("Demo Salon");
    expect(oldHtml).toContain('href="/book/demo-salon"');

    // Each new link e-mails the customer: a holder of the link cannot flood them (five a day).
    let current = `${app.url}${fresh.pathname}`;
    for (let more = 2; more <= 5; more++) {
      const again = await customerPosts(current, { intent: "new-link" });
      current = new URL(again.headers.get("location")!, app.url).href.replace(/\?.*$/, "");
    }
    const refused = await customerPosts(current, { intent: "new-link" });
    expect(refused.status).toBe(302);
    expect(new URL(refused.headers.get("location")!, app.url).pathname).toBe(new URL(current).pathname);
    expect((await fetch(current)).status).toBe(200);
    // The fifth link's e-mail came, and it carries the link that still works.
    await waitForMail(app.dataDir, email, /^Your new link/, { after: 4 });
    expect((await mailsTo(email, /^Your new link/)).map((mail) => linkIn(mail, "/booking/"))).toContain(current);
  });

  it("answers an unknown link with a page saying how to reach the business, not Sakina's home", async () => {
    const response = await fetch(`${app.url}/booking/not-a-real-token-at-all-0000`);
    expect(response.status).toBe(404);
    const html = await response.text();
    expect(html).toContain("We could not find this booking");
    expect(html).toContain("The business&#x27;s phone number is in the e-mail");
  });
});

describe("a change the customer makes", () => {
  it("moves the booking: both sides are e-mailed, the calendar file updates, the old time's call is withdrawn", async () => {
    const email = "casey-moves@example.com";
    const { id, first, manage } = await customerBooksInLosAngeles(email);
    const before = await bookingRow(id);
    // A confirmation call still waiting for the old time.
    const [queued] = await app.services.db
      .insert(calls)
      .values({
        purpose: "booking_confirmation",
        language: "en",
        voice: "alloy",
        toNumber: before.customerPhone,
        businessId: before.businessId,
        bookingId: id,
        confirmationRound: before.confirmationRound,
        timeLimitSeconds: 300,
      })
      .returning();
    const { start } = await customerFreeStart(manage);
    const moved = await customerPosts(manage, { intent: "reschedule", start });
    expect(moved.status).toBe(302);
    const after = await bookingRow(id);
    expect(after.startsAt.getTime()).toBe(Number(start));
    expect(after.lastChangeBy).toBe("customer");

    const customerMail = await waitForMail(app.dataDir, email, /^You moved your booking at/);
    expect(customerMail.text).toContain("Pacific Time");
    expect(linkIn(customerMail, "/booking/")).toBe(manage);
    const ics = calendarOf(customerMail);
    expect(ics).toMatchObject({ uid: calendarOf(first).uid, sequence: after.calendarSequence, start: Number(start), method: "PUBLISH" });
    expect(ics.sequence).toBeGreaterThan(0);
    const ownerMail = await waitForMail(app.dataDir, businessEmail, /moved their booking to/);
    expect(ownerMail.text).toContain(`/dashboard/bookings/${id}`);

    const [call] = await app.services.db.select().from(calls).where(eq(calls.id, queued!.id));
    expect(call!.status).toBe("canceled");
    expect(await (await owner.get(`/dashboard/bookings/${id}`)).text()).toContain("Moved by the customer");
  });

  it("cancels the booking: METHOD:CANCEL to the customer, an e-mail to the owner, and the owner's list says by whom", async () => {
    const email = "casey-cancels@example.com";
    const { id, first, manage } = await customerBooksInLosAngeles(email);
    const cancelled = await customerPosts(manage, { intent: "cancel" });
    expect(cancelled.status).toBe(302);
    expect((await bookingRow(id)).status).toBe("cancelled");
    const mail = await waitForMail(app.dataDir, email, /^You cancelled your booking at/);
    const ics = calendarOf(mail);
    expect(ics).toMatchObject({ method: "CANCEL", status: "CANCELLED", uid: calendarOf(first).uid });
    expect(ics.sequence).toBe((await bookingRow(id)).calendarSequence);
    await waitForMail(app.dataDir, businessEmail, /cancelled their booking/);
    expect(await (await owner.get(`/dashboard/bookings/${id}`)).text()).toContain("Cancelled by the customer");
    // Sent again, nothing more happens and nobody is e-mailed twice.
    expect((await customerPosts(manage, { intent: "cancel" })).status).toBe(302);
    expect(await mailsTo(email, /^You cancelled/)).toHaveLength(1);
  });
});

/** The confirmation call's agent for a booking, on a call in progress. */
async function agentOnTheCall(id: number) {
  const booking = await bookingRow(id);
  const [call] = await app.services.db
    .insert(calls)
    .values({
      purpose: "booking_confirmation",
      status: "in-progress",
      language: "en",
      voice: "alloy",
      toNumber: booking.customerPhone,
      businessId: booking.businessId,
      bookingId: id,
      confirmationRound: booking.confirmationRound,
      timeLimitSeconds: 300,
    })
    .returning();
  return bookingAgent(app.services, call!);
}

describe("the customer's answer on the confirmation call", () => {
  it("a cancel is the customer's change too: both e-mailed, METHOD:CANCEL, and the owner's list says by whom", async () => {
    const email = "casey-on-the-phone@example.com";
    const { id, first } = await customerBooksInLosAngeles(email);
    const agent = await agentOnTheCall(id);
    await agent.tools.find((tool) => tool.name === CANCEL_BOOKING)!.run({ reason: "cannot come" });
    expect((await bookingRow(id)).status).toBe("cancelled");
    const mail = await waitForMail(app.dataDir, email, /^You cancelled your booking at/);
    expect(calendarOf(mail)).toMatchObject({ method: "CANCEL", uid: calendarOf(first).uid });
    await waitForMail(app.dataDir, businessEmail, /^Casey \d+ cancelled their booking/);
    expect(await (await owner.get(`/dashboard/bookings/${id}`)).text()).toContain("Cancelled by the customer");
  });

  it("a confirmation goes through the same change: the customer's e-mail with the updated calendar file, the owner's list says by whom", async () => {
    const email = "casey-confirms-by-phone@example.com";
    const { id, first } = await customerBooksInLosAngeles(email);
    const agent = await agentOnTheCall(id);
    await agent.tools.find((tool) => tool.name === CONFIRM_BOOKING)!.run({});
    const row = await bookingRow(id);
    expect(row.status).toBe("confirmed");
    expect(row.callOutcome).toBe("confirmed");
    const mail = await waitForMail(app.dataDir, email, /^You confirmed your booking at/);
    expect(calendarOf(mail)).toMatchObject({ method: "PUBLISH", uid: calendarOf(first).uid, sequence: row.calendarSequence });
    expect(linkIn(mail, "/booking/")).toBe(linkIn(first, "/booking/"));
    expect(await (await owner.get(`/dashboard/bookings/${id}`)).text()).toContain("Confirmed by the customer");
  });

  it("another time asked for: both e-mailed, the owner with what the customer said, and the list says by whom", async () => {
    const email = "casey-another-time@example.com";
    const { id } = await customerBooksInLosAngeles(email);
    const agent = await agentOnTheCall(id);
    await agent.tools.find((tool) => tool.name === REQUEST_RESCHEDULE)!.run({ preferred: "Friday after 4 pm" });
    expect((await bookingRow(id)).status).toBe("reschedule_requested");
    await waitForMail(app.dataDir, email, /^You asked Sakina Demo Salon for another time/);
    const ownerMail = await waitForMail(app.dataDir, businessEmail, /^Casey \d+ asks for another time/);
    expect(ownerMail.text).toContain("Friday after 4 pm");
    const page = await (await owner.get(`/dashboard/bookings/${id}`)).text();
    expect(page).toContain("Another time asked for by the customer");
    expect(page).toContain("Friday after 4 pm");
  });
});

describe("times on the manage page", () => {
  it("offers a zone and a clock without JavaScript, and groups days by the viewer's own days", async () => {
    const email = "casey-zones@example.com";
    const { manage } = await customerBooksInLosAngeles(email);
    const page = await (await fetch(manage)).text();
    expect(page).toMatch(/<select[^>]*name="tz"/);
    expect(page).toMatch(/<select[^>]*name="clock"/);
    const tokyo = await (await fetch(`${manage}?tz=Asia%2FTokyo&clock=24`)).text();
    expect(tokyo).toContain("Japan");
    // Each time listed under a day falls on that day in Tokyo.
    const { date, html } = await customerFreeStart(manage, "&tz=Asia%2FTokyo");
    const starts = [...html.matchAll(/name="start" value="(\d+)"/g)].map((m) => Number(m[1]));
    expect(starts.length).toBeGreaterThan(0);
    for (const start of starts) expect(new Date(start).toLocaleDateString("en-CA", { timeZone: "Asia/Tokyo" })).toBe(date);
  });
});

describe("the owner's status, from the one promise of a call (no telephony here)", () => {
  /** The booking's status and call column as the owner's list shows them. */
  async function ownerSees(id: number) {
    const html = (await (await owner.get(`/dashboard/bookings/${id}`)).text()).replace(/[\u2068\u2069]/g, "");
    return {
      html,
      status: [en.bookingStatus.confirmed, en.bookingStatus.pending].find((label) => html.includes(`>${label}<`)),
    };
  }

  it("says no call is coming for a new booking, and a confirmed booking the owner moves stays confirmed, e-mailed so", async () => {
    expect(app.services.telephony.configured).toBe(false);
    const email = "casey-honest@example.com";
    const { id } = await customerBooksInLosAngeles(email);
    // At once, not after the call's job ran: no "Call queued" when no call can ring.
    expect((await bookingRow(id)).callState).toBe("calls_not_configured");
    let seen = await ownerSees(id);
    expect(seen.html).not.toContain(en.callState.queued);
    expect(seen.html).toContain(en.callState.calls_not_configured);
    // The list's introduction promises no call either.
    const list = (await (await owner.get("/dashboard")).text()).replace(/[\u2068\u2069]/g, "");
    expect(list).toContain(en.owner.bookings.introNoCalls.split("{{zone}}")[1]);
    expect(list).not.toContain(en.owner.bookings.intro.split("{{zone}}")[1]);

    expect((await owner.postForm("/dashboard", { intent: "confirm-booking", bookingId: String(id) })).status).toBe(302);
    const { date, time } = await ownerFreeTime(id);
    const moving = await owner.postForm(`/dashboard/bookings/${id}`, { intent: "reschedule-booking", bookingId: String(id), date, time });
    expect(moving.status).toBe(302);
    const moved = await waitForMail(app.dataDir, email, /has a new time$/);
    seen = await ownerSees(id);
    expect(seen.status).toBe(en.bookingStatus.confirmed);
    expect(seen.html).not.toContain(en.callState.queued);
    expect((await bookingRow(id)).status).toBe("confirmed");
    // The customer is told the same: still confirmed, and no call promised.
    expect(moved.text.replace(/[\u2068\u2069]/g, "")).toContain(en.bookingChanges.movedStaysConfirmed);
    expect(moved.text).not.toContain(en.owner.email.movedCall);
    expect(await (await fetch(linkIn(moved, "/booking/"))).text()).toContain(`>${en.bookingStatus.confirmed}<`);
  });

  it("a booking not yet confirmed that the owner moves waits for the owner's confirmation, with no call queued", async () => {
    const { id } = await customerBooksInLosAngeles("casey-honest-pending@example.com");
    const { date, time } = await ownerFreeTime(id);
    const moving = await owner.postForm(`/dashboard/bookings/${id}`, { intent: "reschedule-booking", bookingId: String(id), date, time });
    expect(moving.status).toBe(302);
    const row = await bookingRow(id);
    expect(row.status).toBe("pending");
    expect(row.callState).toBe("calls_not_configured");
    const seen = await ownerSees(id);
    expect(seen.status).toBe(en.bookingStatus.pending);
    expect(seen.html).not.toContain(en.callState.queued);
    // It is among those that need the owner: nobody else will confirm it.
    expect(await (await owner.get("/dashboard?filter=attention")).text()).toContain(`/dashboard/bookings/${id}"`);
  });
});

describe("add to calendar", () => {
  it("comes from the manage link, without the booking session: .ics, Google and Outlook", async () => {
    const email = "casey-calendar@example.com";
    const { id, manage } = await customerBooksInLosAngeles(email);
    const page = await (await fetch(manage)).text();
    expect(page).toContain("https://calendar.google.com/calendar/render?action=TEMPLATE");
    expect(page).toContain("https://outlook.live.com/calendar/0/deeplink/compose?");
    const file = await fetch(`${manage}/calendar.ics`);
    expect(file.status).toBe(200);
    expect(file.headers.get("content-type")).toContain("text/calendar");
    const ics = parseIcs(await file.text());
    expect(ics.start).toBe((await bookingRow(id)).startsAt.getTime());
    expect(ics.uid).toBe(`booking-${id}@sakina.app`);
  });
});
