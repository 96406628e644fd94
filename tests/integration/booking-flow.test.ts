import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { inZone } from "../support/book-through-page";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { linkIn, waitForMail } from "../support/outbox";
import { startServer, type RunningServer } from "../support/server";

// The booking page as a visitor reads it: times in their own zone, the zone in words, a title per
// step, and the customer's cancel that asks first and ends with "Book again".
let server: RunningServer;
let haircut: number;
let visitor = 0;

beforeAll(async () => {
  server = await startServer({ SEED_DEMO_DATA: "true", TRUST_PROXY: "loopback,10.0.0.0/8" });
  const services = (await (await fetch(`${server.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  haircut = services.find((s) => s.name === "Haircut")!.id;
});
afterAll(() => server?.stop());

function freshVisitor() {
  visitor += 1;
  return httpClient(server.url, { forwardedFor: `198.51.100.${visitor}, 10.0.0.1` });
}

/** The n-th day in the window with a free 10:00 (New York), as the availability API lists it. */
async function dayWithTen(n: number, { alsoFree = [] as string[] } = {}) {
  const found: string[] = [];
  for (let i = 1; i <= 30 && found.length <= n; i++) {
    const date = new Date(Date.now() + i * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${server.url}/api/booking/availability/demo-salon/${date}/${haircut}`);
    if (response.status !== 200) continue;
    const slots = (await response.json()) as { time: string; available: boolean }[];
    const free = (time: string) => slots.some((slot) => slot.time === time && slot.available);
    if (free("10:00") && alsoFree.every(free)) found.push(date);
  }
  return found[n]!;
}

/** The words a person reads: tags, and the invisible bidi isolates around names, taken away. */
function text(html: string) {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/g, " ")
    .replace(/<!--[\s\S]*?-->|<\/?(bdi|span|a|abbr|b|strong)\b[^>]*>/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/[\u2066-\u2069]/g, "")
    .replace(/&amp;/g, "&")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ");
}

const titleOf = (html: string) => /<title>([^<]*)<\/title>/.exec(html)?.[1]?.replace(/[\u2066-\u2069]/g, "") ?? "";
/** The label a time slot shows, by its value (the wall time in the zone the page is shown in). */
const slotLabel = (html: string, time: string) =>
  new RegExp(`name="time" value="${time}"[^>]*>\\s*<bdi[^>]*>([^<]*)</bdi>`).exec(html)?.[1]?.replace(/\u202f/g, " ");
/** On the manage page a time is its instant (grouped by the viewer's days, issue 47): the label of the one at `time` New York. */
const startLabel = (html: string, date: string, time: string) => {
  const [h, m] = time.split(":").map(Number);
  const start = zonedTimeToUtc(date, h! * 60 + m!, "America/New_York");
  return new RegExp(`name="start" value="${start}"[^>]*>\\s*<bdi[^>]*>([^<]*)</bdi>`).exec(html)?.[1]?.replace(/\u202f/g, " ");
};
const timeIn = (instant: number, timeZone: string) =>
  new Intl.DateTimeFormat("en", { timeZone, hour: "numeric", minute: "2-digit" }).format(instant).replace(/\u202f/g, " ");

describe("times in the visitor's time zone", () => {
  it("shows the times shifted to the zone chosen, the zone named in words, never an IANA id", async () => {
    const date = await dayWithTen(0);
    const client = freshVisitor();
    const ten = zonedTimeToUtc(date, 600, "America/New_York");

    const business = await (await client.get(`/book/demo-salon?lng=en&service=${haircut}&date=${date}`)).text();
    expect(slotLabel(business, "10:00")).toBe("10:00 AM");
    expect(text(business)).toContain("Times are shown in Eastern Time.");
    // The list of zones offers the business's, chosen.
    expect(business).toMatch(/<option value="America\/New_York" selected="">Eastern Time \(GMT-[45]\)<\/option>/);

    // The same instant is another wall time in Berlin, on the same day there.
    const atBerlin = inZone(date, "10:00", "America/New_York", "Europe/Berlin");
    const berlin = await (await client.get(`/book/demo-salon?lng=en&service=${haircut}&date=${atBerlin.date}&tz=Europe/Berlin`)).text();
    expect(slotLabel(berlin, atBerlin.time)).toBe(timeIn(ten, "Europe/Berlin"));
    expect(slotLabel(berlin, atBerlin.time)).not.toBe("10:00 AM");
    expect(text(berlin)).toContain("Times are shown in Central European Time.");
    expect(berlin).toMatch(/<option value="Europe\/Berlin" selected="">Central European Time \(GMT\+[12]\)<\/option>/);
    for (const page of [business, berlin]) expect(text(page)).not.toMatch(/America\/New_York|Europe\/Berlin/);
  });

  it.each(["Mars/Olympus", "<script>", "a".repeat(200), ""])("falls back to the business's zone for tz=%j, no error", async (tz) => {
    const date = await dayWithTen(0);
    const response = await freshVisitor().get(`/book/demo-salon?lng=en&service=${haircut}&date=${date}&tz=${encodeURIComponent(tz)}`);
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(slotLabel(html, "10:00")).toBe("10:00 AM");
    expect(text(html)).toContain("Times are shown in Eastern Time.");
  });

  it("carries the zone through every step to the done page, a title per step, and e-mails the zone in words", async () => {
    const date = await dayWithTen(1);
    const client = freshVisitor();
    const ten = zonedTimeToUtc(date, 600, "America/New_York");
    const step = async (path: string) => {
      const response = await client.get(path);
      expect(response.status).toBe(200);
      return response.text();
    };
    expect(titleOf(await step("/book/demo-salon?lng=en"))).toBe("Choose a service – Sakina Demo Salon");
    expect(titleOf(await step(`/book/demo-salon?lng=en&service=${haircut}`))).toBe("Choose a date – Sakina Demo Salon");
    const atBerlin = inZone(date, "10:00", "America/New_York", "Europe/Berlin");
    const time = await step(`/book/demo-salon?lng=en&service=${haircut}&date=${atBerlin.date}&tz=Europe/Berlin`);
    expect(titleOf(time)).toBe("Choose a time – Sakina Demo Salon");
    // Every form of the step keeps the chosen zone.
    expect(time).toContain('<input type="hidden" name="tz" value="Europe/Berlin"/>');
    const contactPath = `/book/demo-salon?lng=en&service=${haircut}&date=${atBerlin.date}&time=${atBerlin.time}&tz=Europe/Berlin`;
    const contact = await step(contactPath);
    expect(titleOf(contact)).toBe("Your details – Sakina Demo Salon");
    expect(text(contact)).toContain(timeIn(ten, "Europe/Berlin"));

    const email = `zone-${visitor}@example.com`;
    const details = { service: String(haircut), date: atBerlin.date, time: atBerlin.time, tz: "Europe/Berlin" };
    const toConfirm = await client.postForm(
      "/book/demo-salon?lng=en",
      { ...details, intent: "contact", name: "Zone Visitor", phone: "(212) 555-0144", email },
      { tokenFrom: contactPath },
    );
    expect(toConfirm.status).toBe(302);
    const confirmPath = toConfirm.headers.get("Location")!;
    expect(new URL(confirmPath, server.url).searchParams.get("tz")).toBe("Europe/Berlin");
    const confirm = await step(confirmPath);
    expect(titleOf(confirm)).toBe("Check and confirm – Sakina Demo Salon");
    expect(text(confirm)).toContain("(Central European Time)");
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(confirm)![1]!;

    const toDone = await client.postForm(
      "/book/demo-salon?lng=en",
      { ...details, intent: "confirm", idempotencyKey: key },
      { tokenFrom: confirmPath },
    );
    expect(toDone.status).toBe(302);
    const done = await step(toDone.headers.get("Location")!);
    expect(titleOf(done)).toBe("Booking request sent – Sakina Demo Salon");
    expect(text(done)).toContain(timeIn(ten, "Europe/Berlin"));
    expect(text(done)).toContain("(Central European Time)");
    // The booking keeps the business's time (the owner's 10:00 New York); the customer's e-mail
    // says it in the zone they booked in (issue 47), in words.
    const mail = await waitForMail(server.dataDir, email, /Sakina Demo Salon/);
    expect(mail.text).toContain(`${timeIn(ten, "Europe/Berlin")} (Central European Time)`);
    expect(mail.text).not.toContain("Europe/Berlin");
  });
});

describe("days in the visitor's time zone (issue 47)", () => {
  /** A Thursday whose New York time that is Friday 00:00 in Tokyo is free, and that instant. */
  async function thursdayOfTokyoMidnight() {
    for (let i = 1; i <= 40; i++) {
      const thursday = new Date(Date.now() + i * 86_400_000).toISOString().slice(0, 10);
      if (new Date(`${thursday}T12:00:00Z`).getUTCDay() !== 4) continue;
      const friday = new Date(Date.parse(`${thursday}T12:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      const midnight = zonedTimeToUtc(friday, 0, "Asia/Tokyo");
      const ny = utcToZoned(midnight, "America/New_York");
      const nyTime = `${String(Math.floor(ny.minuteOfDay / 60)).padStart(2, "0")}:${String(ny.minuteOfDay % 60).padStart(2, "0")}`;
      const response = await fetch(`${server.url}/api/booking/availability/demo-salon/${thursday}/${haircut}`);
      if (response.status !== 200) continue;
      const slots = (await response.json()) as { time: string; available: boolean }[];
      if (ny.date === thursday && slots.some((slot) => slot.time === nyTime && slot.available)) return { thursday, friday, midnight };
    }
    throw new Error("no Thursday with that time free");
  }
  /** The labels of a time step's slots, by their values. */
  const labels = (html: string) =>
    new Map(
      [...html.matchAll(/name="time" value="([^"]+)"[^>]*>\s*<bdi[^>]*>([^<]*)<\/bdi>/g)].map((m) => [
        m[1]!,
        m[2]!.replace(/\u202f/g, " "),
      ]),
    );

  it("a Tokyo visitor of a New York business finds Friday midnight under Friday, books it, and the 24-hour clock writes 00:00", async () => {
    const { thursday, friday, midnight } = await thursdayOfTokyoMidnight();
    const client = freshVisitor();
    const base = `/book/demo-salon?lng=en&service=${haircut}&tz=Asia%2FTokyo`;
    // The month shows Friday as a day with times (a bookable day is a button named by its date).
    const month = await (await client.get(`${base}&month=${friday.slice(0, 7)}`)).text();
    expect(new RegExp(`value="${friday}" aria-label="Friday, [^"]*times? available"`).test(month)).toBe(true);

    const fridayPage = await (await client.get(`${base}&date=${friday}`)).text();
    expect(text(fridayPage)).toMatch(/Free times on Friday/);
    expect(labels(fridayPage).get("00:00")).toBe("12:00 AM");
    // Every time listed is a time of that day, with no other day's name beside it.
    for (const label of labels(fridayPage).values()) expect(label).toMatch(/^\d{1,2}:\d{2} [AP]M$/);
    // Thursday's list, in Tokyo, does not hold Friday's first hours.
    const thursdayPage = await (await client.get(`${base}&date=${thursday}`)).text();
    for (const label of labels(thursdayPage).values()) expect(label).not.toMatch(/Fri/);

    // The 24-hour choice beside the zone, carried by the step's forms.
    const clock24 = await (await client.get(`${base}&date=${friday}&clock=24`)).text();
    expect(clock24).toMatch(/<select[^>]*name="clock"/);
    expect(labels(clock24).get("00:00")).toBe("00:00");
    expect(clock24).toContain('<input type="hidden" name="clock" value="24"/>');

    // Booked from there, it is the New York instant of Friday 00:00 in Tokyo.
    const contactPath = `${base}&date=${friday}&time=00:00&clock=24`;
    const details = { service: String(haircut), date: friday, time: "00:00", tz: "Asia/Tokyo", clock: "24" };
    const email = `tokyo-${visitor}@example.com`;
    const toConfirm = await client.postForm(
      contactPath,
      { ...details, intent: "contact", name: "Tokyo Visitor", phone: "(212) 555-0150", email },
      { tokenFrom: contactPath },
    );
    expect(toConfirm.status).toBe(302);
    const confirmPath = toConfirm.headers.get("Location")!;
    expect(new URL(confirmPath, server.url).searchParams.get("clock")).toBe("24");
    const confirm = await (await client.get(confirmPath)).text();
    expect(text(confirm)).toMatch(/Friday[^(]*00:00 \(Japan Standard Time\)/);
    const key = /name="idempotencyKey" value="([^"]+)"/.exec(confirm)![1]!;
    const toDone = await client.postForm(confirmPath, { ...details, intent: "confirm", idempotencyKey: key }, { tokenFrom: confirmPath });
    expect(toDone.status).toBe(302);
    expect(new URL(toDone.headers.get("Location")!, server.url).searchParams.get("step")).toBe("done");
    const ny = utcToZoned(midnight, "America/New_York");
    const nyTime = `${String(Math.floor(ny.minuteOfDay / 60)).padStart(2, "0")}:${String(ny.minuteOfDay % 60).padStart(2, "0")}`;
    const after = (await (await fetch(`${server.url}/api/booking/availability/demo-salon/${thursday}/${haircut}`)).json()) as {
      time: string;
      available: boolean;
    }[];
    expect(after.find((slot) => slot.time === nyTime)?.available).toBe(false);
  });
});

describe("the confirm form's retry key", () => {
  type Client = ReturnType<typeof freshVisitor>;
  /** A visitor's details through the contact form, to the confirm step: its address and the key it carries. */
  async function toConfirm(client: Client, date: string, time: string, name: string, phone: string) {
    const details = { service: String(haircut), date, time };
    const contactPath = `/book/demo-salon?lng=en&service=${haircut}&date=${date}&time=${time}`;
    const contact = await client.postForm(contactPath, { ...details, intent: "contact", name, phone }, { tokenFrom: contactPath });
    expect(contact.status).toBe(302);
    const confirmPath = contact.headers.get("Location")!;
    const html = await (await client.get(confirmPath)).text();
    return { details, confirmPath, key: /name="idempotencyKey" value="([^"]+)"/.exec(html)![1]! };
  }
  const confirm = (client: Client, step: Awaited<ReturnType<typeof toConfirm>>, idempotencyKey: string) =>
    client.postForm(step.confirmPath, { ...step.details, intent: "confirm", idempotencyKey }, { tokenFrom: step.confirmPath });
  const referenceIn = (html: string) => /data-booking-reference="true">([A-Z2-9]{3}-[A-Z2-9]{3})</.exec(html)?.[1];

  it("books once for a press sent twice, and answers the key with another visitor's details 409, showing nothing of the booking", async () => {
    const date = await dayWithTen(3, { alsoFree: ["11:00"] });
    const owner = freshVisitor();
    const mine = await toConfirm(owner, date, "10:00", "Form Owner", "(212) 555-0177");
    // A double press: both requests carry the details and the key, and both answers name one booking.
    const presses = await Promise.all([confirm(owner, mine, mine.key), confirm(owner, mine, mine.key)]);
    const shown = await Promise.all(
      presses.map(async (press) => {
        expect(press.status).toBe(302);
        const cookie = press.headers.getSetCookie()[0]!.split(";")[0]!;
        const page = await fetch(`${server.url}${press.headers.get("Location")!}`, { headers: { Cookie: cookie } });
        return referenceIn(await page.text());
      }),
    );
    const reference = shown[0];
    expect(reference).toBeDefined();
    expect(shown[1]).toBe(reference);

    // Another visitor who got hold of the key sends it with their own details.
    const stranger = freshVisitor();
    const theirs = await toConfirm(stranger, date, "11:00", "Someone Else", "(212) 555-0178");
    const replay = await confirm(stranger, theirs, mine.key);
    expect(replay.status).toBe(409);
    const page = await replay.text();
    expect(text(page)).toContain("This booking request was already sent with other details, so nothing was booked.");
    const done = await (await stranger.get("/book/demo-salon?lng=en&step=done")).text();
    for (const html of [page, done]) {
      expect(html).not.toContain(reference!);
      expect(text(html)).not.toMatch(/Form Owner|555-0177/);
    }
    expect(referenceIn(done)).toBeUndefined();
  });
});

describe("the customer's manage page", () => {
  async function booked(n: number) {
    // A weekday: the picker below is read at 09:00, and Saturdays open at 10:00.
    const date = await dayWithTen(n + 2, { alsoFree: ["09:00"] });
    const client = freshVisitor();
    const email = `manage-${n}-${visitor}@example.com`;
    const response = await client.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut,
      appointmentDate: `${date}T10:00`,
      customerInfo: { name: "Manage Me", phone: `+1212555${String(2000 + visitor).slice(-4)}`, email },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    const mail = await waitForMail(server.dataDir, email, /Your booking request/);
    return { client, date, manage: new URL(linkIn(mail, "/booking/")).pathname };
  }

  it("asks before cancelling, and ends on a page with Book again", async () => {
    const { client, manage } = await booked(0);
    const page = await (await client.get(`${manage}?lng=en`)).text();
    expect(text(page)).toMatch(/Tuesday|Monday|Wednesday|Thursday|Friday|Saturday/);
    expect(text(page)).toContain("(Eastern Time)");
    // The first press only asks.
    const ask = await (await client.get(`${manage}?lng=en&cancel=1`)).text();
    expect(text(ask)).toContain("Cancel this booking?");
    expect(ask).toContain('name="intent" value="cancel"');
    expect(text(await (await client.get(`${manage}?lng=en`)).text())).toContain("Waiting for confirmation");

    const cancel = await client.postForm(manage, { intent: "cancel" });
    expect(cancel.status).toBe(302);
    const after = await (await client.get(cancel.headers.get("Location")!)).text();
    expect(text(after)).toContain("Your booking is cancelled");
    expect(after).toMatch(/<a[^>]+href="\/book\/demo-salon"[^>]*>Book again<\/a>/);
    expect(after).not.toContain('value="cancel"');
  });

  it("offers no cancel beside the time picker, and writes the times as the booking page does", async () => {
    const { client, manage, date } = await booked(1);
    const picking = await (await client.get(`${manage}?lng=en&reschedule=1&date=${date}`)).text();
    expect(picking).not.toContain("cancel=1");
    expect(picking).not.toContain('value="cancel"');
    expect(startLabel(picking, date, "09:00")).toBe("9:00 AM");
    // The times are the business's, and the page says so in words, as the booking page does.
    expect(text(picking)).toContain("Times are shown in Eastern Time.");
    const german = await (await client.get(`${manage}?lng=de&reschedule=1&date=${date}`)).text();
    // German writes the hour on a 24-hour clock, with no AM or PM: as the booking page writes it.
    expect(startLabel(german, date, "09:00")).toBe(
      new Intl.DateTimeFormat("de", { hour: "numeric", minute: "2-digit", timeZone: "UTC" }).format(Date.UTC(2024, 0, 1, 9)),
    );
    expect(startLabel(german, date, "09:00")).not.toMatch(/AM/);
  });
});

describe("the owner's pages", () => {
  it("show /telephony and the analytics hours in the business's zone, named in words, as the locale writes times", async () => {
    const owner = httpClient(server.url, { forwardedFor: "198.51.100.240, 10.0.0.1" });
    const password = await demoOwnerPassword(server.url, server.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const telephony = await (await owner.get("/telephony?lng=en")).text();
    expect(text(telephony)).toContain("Times in Eastern Time.");
    const analytics = text(await (await owner.get("/dashboard/analytics?lng=en")).text()).replace(/\u202f/g, " ");
    expect(analytics).toContain("Eastern Time");
    expect(analytics).not.toContain("America/New_York");
    expect(analytics).toContain("9:00 AM");
    for (const path of ["/dashboard?lng=en", "/dashboard/hours?lng=en", "/dashboard/calls?lng=en"]) {
      const page = text(await (await owner.get(path)).text());
      expect(page, path).toContain("Eastern Time");
      expect(page, path).not.toContain("America/New_York");
    }
    const settings = await (await owner.get("/dashboard/settings?lng=en")).text();
    // Toronto is in the list too: the city tells the two apart.
    expect(settings).toMatch(/<option value="America\/New_York" selected="">Eastern Time \(GMT-[45]\) · New York<\/option>/);
  });
});
