// `npm run screenshots`: the main pages at phone (390 px) and desktop (1280 px) width, in English
// and Arabic, the home page's crisis box for three countries, the owner's frame (/telephony signed
// in) and the calendar feed, reminder and CalDAV panels of the owner's settings, the owner's phone
// page in each state (Twilio not configured, then against the fake Twilio), then the booking flow step
// by step (service to done, the manage page, rescheduling, a new link, a replaced and an unknown
// link, and the cancel), and the owner's page of
// one call with its quality timeline (a call with known figures), written to screenshots/
// (ignored by git), so anyone can look before they ship.
// `npm run screenshots -- booking-flow` takes only the shots whose names contain that word.
// It starts the production build on a free port with a throwaway data folder; `npm run build`
// first if the sources changed.
// The owner's bookings list and day and week views show a few bookings made first (seedOwnerBookings).
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Browser, Page } from "playwright-core";
import { businesses, callQuality, calls } from "../models/schema";
import { startAppInProcess } from "../tests/support/app-in-process";
import { launchBrowser } from "../tests/support/browser";
import { demoOwnerPassword } from "../tests/support/demo-owner";
import { startServer } from "../tests/support/server";
import { bookDemoHaircut, walkCalDavStates } from "../tests/support/caldav-states";
import { startRadicale } from "../tests/support/radicale";
import { startAppWithFakes } from "../tests/support/app-with-fakes";
import { PHONE_STATES, walkPhoneStates } from "../tests/support/phone-states";
import { seedReceptionistDay } from "../tests/support/receptionist";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "screenshots");
const only = process.argv[2] ?? "";
const pages = [
  { name: "home", path: "/" },
  { name: "business", path: "/business" },
  { name: "booking", path: "/book/demo-salon" },
  { name: "get-started", path: "/get-started" },
  { name: "login", path: "/login" },
  { name: "faq", path: "/faq" },
  { name: "how-it-works", path: "/how-it-works" },
  { name: "privacy", path: "/privacy" },
  { name: "providers", path: "/providers" },
  { name: "not-found", path: "/no-such-page" },
];
/** The crisis box as a visitor of each country sees it (the country chosen in the box). */
const crisisCountries = ["SA", "DE", "EG"];
const widths = [390, 1280];
const languages = ["en", "ar"];

/**
 * A few bookings on the first days with free times (the list and the day and week views show
 * them): names in several scripts and lengths, as an owner's real list has.
 */
async function seedOwnerBookings(url: string) {
  const services = (await (await fetch(`${url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  const customers = [
    "Layla Hassan",
    "ليلى أحمد",
    "Maximilian Alexander von Hohenberg-Schwarzenfeld",
    "Tom Becker",
    "Ana Lúcia",
    "محمد العتيبي",
  ];
  let made = 0;
  for (let day = 0; day < 30 && made < customers.length; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    for (const service of services.slice(0, 2)) {
      if (made >= customers.length) break;
      const slots = (await (await fetch(`${url}/api/booking/availability/demo-salon/${date}/${service.id}`)).json()) as {
        time: string;
        available: boolean;
      }[];
      const slot = Array.isArray(slots) ? slots.filter((s) => s.available)[made % 3] : undefined;
      if (!slot) continue;
      const answer = await fetch(`${url}/api/booking/create`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          businessLink: "demo-salon",
          serviceId: service.id,
          appointmentDate: `${date}T${slot.time}`,
          customerInfo: { name: customers[made], phone: `+1212555${4200 + made}`, email: `list-${made}@example.com` },
          requestCall: false,
        }),
      });
      if (answer.status !== 201) throw new Error(`booking answered ${answer.status}`);
      made++;
    }
  }
}

async function shoot(page: Page, name: string) {
  const file = path.join(out, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(path.relative(root, file));
}

/** Signs the demo owner in on this page. */
async function signInDemoOwner(page: Page, url: string, dataDir: string, language: string) {
  const password = await demoOwnerPassword(url, dataDir);
  await page.goto(`${url}/login?lng=${language}`, { waitUntil: "networkidle" });
  await page.locator("input[name=email]").fill("demo@sakina.app");
  await page.locator("input[name=password]").fill(password);
  await page.locator("input[name=password]").press("Enter");
  await page.waitForURL(/\/dashboard/);
}

/**
 * What the receptionist leaves the owner (ADR 0041): the calls page with a call to the business's
 * number and the messages and voicemails callers left, and that call's own page.
 */
async function receptionistDayShots(browser: Browser, shots: string[]) {
  const app = await startAppInProcess({ SEED_DEMO_DATA: "true" });
  try {
    const [demo] = await app.services.db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    const callId = await seedReceptionistDay(app.services, demo!.id);
    for (const shot of shots) {
      const [, language, width] = /-(\w\w)-(\d+)$/.exec(shot)!;
      const context = await browser.newContext({ viewport: { width: Number(width), height: 900 }, locale: language, bypassCSP: true });
      const page = await context.newPage();
      await signInDemoOwner(page, app.url, app.dataDir, language!);
      const path = shot.includes("-calls-") ? "/dashboard/calls" : `/dashboard/calls/${callId}`;
      await page.goto(`${app.url}${path}?lng=${language}`, { waitUntil: "networkidle" });
      await shoot(page, shot);
      await context.close();
    }
  } finally {
    await app.stop();
  }
}

/**
 * The owner's page of one call and its quality timeline: an app in this process, so the call and
 * its figures can be written to its database first (first words 640 ms, three turns, one
 * interruption, ended by the agent).
 */
async function callQualityShots(browser: Browser, shots: string[]) {
  const app = await startAppInProcess({ SEED_DEMO_DATA: "true" });
  try {
    const db = app.services.db;
    const [demo] = await db.select().from(businesses).where(eq(businesses.bookingLink, "demo-salon"));
    const answeredAt = new Date(Date.now() - 3_600_000);
    const [call] = await db
      .insert(calls)
      .values({
        purpose: "test",
        language: "en",
        voice: "alloy",
        status: "completed",
        toNumber: "+12125550142",
        businessId: demo!.id,
        timeLimitSeconds: 300,
        startedAt: new Date(answeredAt.getTime() - 9_000),
        answeredAt,
        endedAt: new Date(answeredAt.getTime() + 21_000),
        durationSeconds: 21,
        createdAt: new Date(answeredAt.getTime() - 10_000),
      })
      .returning();
    await db.insert(callQuality).values({
      callId: call!.id,
      answeredAt,
      streamStartedAt: new Date(answeredAt.getTime() + 180),
      firstAudioAt: new Date(answeredAt.getTime() + 640),
      firstWordsMs: 640,
      turns: [
        { at: 4_020, latencyMs: 820 },
        { at: 9_620, latencyMs: 610 },
        { at: 14_920, latencyMs: 1_350 },
      ],
      interruptions: [7_120],
      endedAt: new Date(answeredAt.getTime() + 21_000),
      endedBy: "agent_ended",
    });
    for (const shot of shots) {
      const [, language, width] = /-(\w\w)-(\d+)$/.exec(shot)!;
      const context = await browser.newContext({ viewport: { width: Number(width), height: 900 }, locale: language, bypassCSP: true });
      const page = await context.newPage();
      await signInDemoOwner(page, app.url, app.dataDir, language!);
      await page.goto(`${app.url}/dashboard/calls/${call!.id}?lng=${language}`, { waitUntil: "networkidle" });
      await shoot(page, shot);
      await context.close();
    }
  } finally {
    await app.stop();
  }
}

/**
 * The owner's CalDAV panel (issue 47) in its three states, against a Radicale server started here:
 * a wrong password refused, connected and synced, and the server down with a write waiting.
 */
async function calDavShots(browser: Browser, wanted: (shot: string) => boolean) {
  const [app, radicale] = await Promise.all([
    startAppInProcess({ SEED_DEMO_DATA: "true", CALDAV_PRIVATE_ADDRESSES: "allow" }),
    startRadicale(),
  ]);
  try {
    await bookDemoHaircut(app.url);
    for (const language of languages) {
      for (const width of widths) {
        const names = ["error", "connected", "failing"].map((state) => `owner-caldav-${state}-${language}-${width}`);
        if (!names.some(wanted)) continue;
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: language, bypassCSP: true });
        const page = await context.newPage();
        await signInDemoOwner(page, app.url, app.dataDir, language);
        await walkCalDavStates(page, app, radicale, language, async (state) => {
          const shot = `owner-caldav-${state}-${language}-${width}`;
          if (!wanted(shot)) return;
          const file = path.join(out, `${shot}.png`);
          await page.locator("section[aria-labelledby=caldav-title]").screenshot({ path: file });
          console.log(path.relative(root, file));
        });
        await context.close();
      }
    }
  } finally {
    await app.stop();
    await radicale.close();
  }
}

/**
 * The owner's phone page (issue 48) in each state with Twilio configured, against the fake Twilio
 * with two numbers in the account: choosing, a submit without a choice, connected, bad settings
 * refused, and the disconnect's confirmation.
 */
async function phoneShots(browser: Browser, wanted: (shot: string) => boolean) {
  const names = (language: string, width: number) => PHONE_STATES.map((state) => `owner-phone-${state}-${language}-${width}`);
  if (!languages.some((language) => widths.some((width) => names(language, width).some(wanted)))) return;
  const app = await startAppWithFakes({
    twilio: {
      ownedNumbers: ["+15005550006"],
      incomingNumbers: [{ phoneNumber: "+14155550101" }, { phoneNumber: "+14155550102", friendlyName: "Front desk" }],
    },
    realtime: true,
  });
  try {
    for (const language of languages) {
      for (const width of widths) {
        if (!names(language, width).some(wanted)) continue;
        const context = await browser.newContext({ viewport: { width, height: 900 }, locale: language, bypassCSP: true });
        const page = await context.newPage();
        await signInDemoOwner(page, app.url, app.app.dataDir, language);
        await walkPhoneStates(page, app.url, language, async (state) => {
          const shot = `owner-phone-${state}-${language}-${width}`;
          if (wanted(shot)) await shoot(page, shot);
        });
        await context.close();
      }
    }
  } finally {
    await app.close();
  }
}

/**
 * The booking flow as a visitor in Berlin walks it (times shown in their zone), then the manage
 * page: another time, then the cancel and its confirmation. Each width and language books a day
 * of its own.
 */
async function bookingFlow(page: Page, url: string, language: string, width: number, pick: number) {
  const name = (step: string) => `booking-flow-${step}-${language}-${width}`;
  const settled = () => page.locator("html[data-hydrated]").waitFor({ state: "attached" });
  await page.goto(`${url}/book/demo-salon?lng=${language}`, { waitUntil: "networkidle" });
  await settled();
  await shoot(page, name("1-service"));
  await page.locator("form button[name=service]").first().click();
  await page.locator("table button").first().waitFor();
  await shoot(page, name("2-date"));
  await page.locator("table button").nth(pick).click();
  await page.locator("#booking-zone").waitFor();
  await shoot(page, name("3-time"));
  await page.locator("input[name=time]:not([disabled])").first().check();
  await page.locator("[data-times] form button[type=submit]").first().click();
  await page.locator("input[name=name]").waitFor();
  await page.locator("input[name=name]").fill(language === "ar" ? "ليلى حسن" : "Layla Hassan");
  await page.locator("input[name=phone]").fill(`(212) 555-01${String(pick).padStart(2, "0")}`);
  await shoot(page, name("4-contact"));
  await page.locator("form[id=booking-contact] button[type=submit]").click();
  await page.locator("input[name=intent][value=confirm]").waitFor({ state: "attached" });
  await shoot(page, name("5-confirm"));
  await page.locator("input[name=intent][value=confirm] ~ div button[type=submit]").click();
  await page.locator("a[href^='/booking/']:not([download])").waitFor();
  await shoot(page, name("6-done"));

  await page.locator("a[href^='/booking/']:not([download])").click();
  await page.locator("a[href$='?reschedule=1']").waitFor();
  await settled();
  const manage = new URL(page.url()).pathname;
  await shoot(page, name("7-manage"));
  await page.locator("a[href$='?reschedule=1']").click();
  await page.locator("table button").first().waitFor();
  await shoot(page, name("8-reschedule-date"));
  await page
    .locator("table button")
    .nth(pick + 1)
    .click();
  await page.locator("input[name=start]").first().waitFor();
  await shoot(page, name("9-reschedule-time"));
  await page.locator(`form a[href='${manage}']`).click();
  // A new link, asked for by the customer: the page at its new address, then the old one.
  await page.locator("input[name=intent][value=new-link] ~ button[type=submit]").click();
  await page.waitForURL((address) => address.pathname !== manage);
  await page.locator("p[role=status]").waitFor();
  await shoot(page, name("9b-manage-new-link"));
  const renewed = new URL(page.url()).pathname;
  await page.goto(`${url}${manage}?lng=${language}`, { waitUntil: "networkidle" });
  await shoot(page, name("9c-link-replaced"));
  await page.goto(`${url}/booking/no-such-link-0000000000000?lng=${language}`, { waitUntil: "networkidle" });
  await shoot(page, name("9d-link-unknown"));
  await page.goto(`${url}${renewed}?lng=${language}`, { waitUntil: "networkidle" });
  await page.locator("a[href$='?cancel=1']").click();
  await page.locator("input[name=intent][value=cancel]").waitFor({ state: "attached" });
  await shoot(page, name("10-cancel-confirm"));
  await page.locator("input[name=intent][value=cancel] ~ button[type=submit]").click();
  await page.locator("a[href='/book/demo-salon']").waitFor();
  await shoot(page, name("11-cancelled"));
}

// A filtered run keeps the other shots: it retakes only the ones it names.
if (!only) await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const server = await startServer({ SEED_DEMO_DATA: "true" });
const browser = await launchBrowser();
try {
  await seedOwnerBookings(server.url);
  let pick = 0;
  for (const language of languages) {
    for (const width of widths) {
      const context = await browser.newContext({
        viewport: { width, height: 900 },
        locale: language,
        timezoneId: "Europe/Berlin",
        bypassCSP: true,
      });
      const page = await context.newPage();
      for (const entry of pages) {
        const shot = `${entry.name}-${language}-${width}`;
        if (!shot.includes(only)) continue;
        const separator = entry.path.includes("?") ? "&" : "?";
        await page.goto(`${server.url}${entry.path}${separator}lng=${language}`, { waitUntil: "networkidle" });
        await shoot(page, shot);
      }
      for (const country of crisisCountries) {
        const shot = `crisis-box-${country}-${language}-${width}`;
        if (!shot.includes(only)) continue;
        await page.goto(`${server.url}/?lng=${language}&helpCountry=${country}`, { waitUntil: "networkidle" });
        const file = path.join(out, `${shot}.png`);
        await page.locator("#help-lines").screenshot({ path: file });
        console.log(path.relative(root, file));
      }
      // The owner's list of bookings, its compact rows (issue 47).
      const bookingsShot = `owner-bookings-${language}-${width}`;
      if (bookingsShot.includes(only)) {
        await signInDemoOwner(page, server.url, server.dataDir, language);
        await page.goto(`${server.url}/dashboard`, { waitUntil: "networkidle" });
        await shoot(page, bookingsShot);
        await context.clearCookies();
      }
      const telephonyShot = `owner-telephony-${language}-${width}`;
      const feedShot = `owner-calendar-feed-${language}-${width}`;
      const remindersShot = `owner-reminders-${language}-${width}`;
      const phoneShot = `owner-phone-not-configured-${language}-${width}`;
      const scheduleShots = (["day", "week"] as const).map((view) => ({ view, shot: `owner-schedule-${view}-${language}-${width}` }));
      if ([telephonyShot, feedShot, remindersShot, phoneShot, ...scheduleShots.map((s) => s.shot)].some((name) => name.includes(only))) {
        await signInDemoOwner(page, server.url, server.dataDir, language);
        if (telephonyShot.includes(only)) {
          await page.goto(`${server.url}/telephony`, { waitUntil: "networkidle" });
          await shoot(page, telephonyShot);
        }
        if (feedShot.includes(only)) {
          // The settings page's calendar feed panel, once its copy button has appeared.
          await page.goto(`${server.url}/dashboard/settings`, { waitUntil: "networkidle" });
          await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
          const file = path.join(out, `${feedShot}.png`);
          await page.locator("section[aria-labelledby=calendar-feed-title]").screenshot({ path: file });
          console.log(path.relative(root, file));
        }
        for (const { view, shot } of scheduleShots) {
          if (!shot.includes(only)) continue;
          await page.goto(`${server.url}/dashboard/schedule?view=${view}`, { waitUntil: "networkidle" });
          await shoot(page, shot);
        }
        if (phoneShot.includes(only)) {
          await page.goto(`${server.url}/dashboard/phone`, { waitUntil: "networkidle" });
          await shoot(page, phoneShot);
        }
        if (remindersShot.includes(only)) {
          await page.goto(`${server.url}/dashboard/settings`, { waitUntil: "networkidle" });
          const file = path.join(out, `${remindersShot}.png`);
          await page.locator("section[aria-labelledby=reminders-title]").screenshot({ path: file });
          console.log(path.relative(root, file));
        }
        await context.clearCookies();
      }
      pick += 2;
      if (`booking-flow-${language}-${width}`.includes(only)) await bookingFlow(page, server.url, language, width, pick);
      await context.close();
    }
  }
  await calDavShots(browser, (shot) => shot.includes(only));
  await phoneShots(browser, (shot) => shot.includes(only));
  const qualityShots = languages.flatMap((language) => widths.map((width) => `owner-call-quality-${language}-${width}`));
  if (qualityShots.some((shot) => shot.includes(only)))
    await callQualityShots(
      browser,
      qualityShots.filter((shot) => shot.includes(only)),
    );
  const receptionistShots = languages.flatMap((language) =>
    widths.flatMap((width) => [`owner-receptionist-calls-${language}-${width}`, `owner-receptionist-call-${language}-${width}`]),
  );
  if (receptionistShots.some((shot) => shot.includes(only)))
    await receptionistDayShots(
      browser,
      receptionistShots.filter((shot) => shot.includes(only)),
    );
} finally {
  await browser.close();
  await server.stop();
}
