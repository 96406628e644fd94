import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bookings, businesses, calls } from "#models/schema";
import { startBridgeServer } from "~/server/bridge-server";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { freePort } from "../support/ports";
import { waitFor } from "../support/wait";
import { zoneInCallingHours } from "../support/calling-hours";

// The call audio on a process of its own (`npm run start:bridge`), beside the web server on one
// PostgreSQL database: a booking the phone agent makes there is a whole booking, its confirmation
// call queued and placed by the web server's workers. PGlite serves one process only.
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: Awaited<ReturnType<typeof startAppInProcess>>;
let bridge: Awaited<ReturnType<typeof startBridgeServer>> | undefined;
let bridgePort = 0;

describe.runIf(process.env.DATABASE_URL)("the phone agent on the bridge process", () => {
  beforeAll(async () => {
    [twilio, realtime] = await Promise.all([startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
    bridgePort = await freePort();
    const providers = {
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
      OPENAI_API_KEY: realtime.apiKey,
      OPENAI_BASE_URL: realtime.url,
      MEDIA_STREAM_ORIGIN: `http://127.0.0.1:${bridgePort}`,
    };
    app = await startAppInProcess({ ...providers, TRUST_PROXY: "1", SEED_DEMO_DATA: "true" });
    await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours() }).where(eq(businesses.bookingLink, "demo-salon"));
    const saved = { ...process.env };
    Object.assign(process.env, { ...providers, ...app.sharedEnv, APP_URL: app.url, PORT: String(bridgePort), HOST: "127.0.0.1" });
    try {
      bridge = await startBridgeServer();
    } finally {
      process.env = saved;
    }
  });

  afterAll(async () => {
    // The bridge first: stopping the app removes the database both share.
    await bridge?.close();
    await app?.stop();
    for (const [sid, call] of twilio?.calls ?? []) {
      if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
    }
    await twilio?.close();
    await realtime?.close();
  });

  it("books through the same queue as the web server: the booking exists and its confirmation call rings", async () => {
    const phone = "+12125550163";
    const services = (await (await fetch(`${app.url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
    const haircut = services.find((s) => s.name === "Haircut")!;
    let date = "";
    let time = "";
    for (let day = 1; day < 30 && !time; day++) {
      date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
      const response = await fetch(`${app.url}/api/booking/availability/demo-salon/${date}/${haircut.id}`);
      const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
      time = slots.find((slot) => slot.available)?.time ?? "";
    }
    expect(time).not.toBe("");
    realtime.script(
      [
        { say: "هلا والله، معك المساعد الذكي من سكينة. كيف أقدر أخدمك؟" },
        { transcriptOfCaller: "أبغى أحجز قص شعر في صالون سكينة التجريبي" },
        { tool: "book_appointment", arguments: { business: "demo-salon", service_id: haircut.id, date, time, customer_name: "Salem" } },
        { tool: "end_call", arguments: { reason: "done" }, say: "تم حجز موعدك، ومع السلامة." },
      ],
      0,
    );
    const response = await httpClient(app.url, { forwardedFor: "203.0.113.91" }).postJson("/api/calls/make-call", { to: phone });
    expect(response.status).toBe(202);
    const placed = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), { what: "the agent's call" });
    await twilio.waitForStatus(placed.sid, "in-progress", 20_000);
    // The call's audio reaches the bridge process, not the web server.
    const stream = await twilio.stream(placed.sid);
    expect(new URL(stream.url).port).toBe(String(bridgePort));
    const session = await realtime.waitForSession(0, 10_000);
    await realtime.waitForServerEvent(0, "response.done");
    await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
    await stream.sendSpeech(700);
    await twilio.waitForStatus(placed.sid, "completed", 30_000);

    const output = session.functionOutputs.find((o) => o.name === "book_appointment")!.output;
    expect(output).toMatch(/^Booked: Haircut at Sakina Demo Salon on .*, for Salem on \+12125550163\./);
    const [booking] = await app.services.db.select().from(bookings).where(eq(bookings.customerPhone, phone));
    expect(booking).toMatchObject({ customerName: "Salem", language: "ar" });
    // The web server's worker takes the queued confirmation call and dials the customer.
    await waitFor(
      async () =>
        (
          await app.services.db
            .select()
            .from(calls)
            .where(and(eq(calls.bookingId, booking!.id), eq(calls.purpose, "booking_confirmation")))
        )[0],
      { what: "the booking's confirmation call", timeoutMs: 30_000 },
    );
    await waitFor(() => [...twilio.calls.values()].filter((c) => c.params.To === phone).find((c) => c.sid !== placed.sid), {
      what: "the confirmation call at the provider",
      timeoutMs: 30_000,
    });
    expect(session.problems).toEqual([]);
  });
});
