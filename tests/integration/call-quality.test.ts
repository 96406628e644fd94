// Call quality the owner can see (issue 27, item 4; ADR 0033): a call driven through the fakes with
// known delays gives known figures (first words, each turn's wait, interruptions, how it ended),
// the owner's call page draws them without JavaScript, and the analytics and the admin show them per day.
import { eq } from "drizzle-orm";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findCallQuality, qualityByDay } from "#models/call-quality";
import { registerBusiness } from "#models/businesses";
import { findCall } from "#models/calls";
import { accounts, callQuality, calls } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { enrolledAdmin } from "../support/admin";
import { expectLog } from "../support/console";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";
import { queueTestCall } from "../support/queue-call";

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: Awaited<ReturnType<typeof startAppInProcess>>;
let owner: ReturnType<typeof httpClient>;
let stranger: ReturnType<typeof httpClient>;
let businessId: number;

const FIRST_WORDS_DELAY = 600;
const TURN_DELAY = 300;
const TOLERANCE = 50;
/**
 * The fakes, the app and this test share one thread: when the machine is loaded the thread stalls,
 * and a stall between two readings moves them apart. The longest stall measured during the call is
 * allowed on top of TOLERANCE (a few ms on an idle machine).
 */
function stalls() {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  return () => histogram.max / 1e6;
}

beforeAll(async () => {
  [twilio, realtime] = await Promise.all([startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
  app = await startAppInProcess({
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
    TWILIO_API_URL: twilio.url,
    OPENAI_API_KEY: realtime.apiKey,
    OPENAI_BASE_URL: realtime.url,
    SEED_DEMO_DATA: "false",
    // The wait for the agent's voice before the call ends as dead air (production: 8 s; long enough for the greeting on a loaded machine).
    AGENT_SILENCE_SECONDS: "3",
  });
  const db = app.services.db;
  const businesses = [];
  for (const [name, email] of [
    ["Quality Clinic", "quality-clinic@example.com"],
    ["Other Clinic", "other-clinic@example.com"],
  ] as const) {
    const registered = await registerBusiness(db, { name, ownerName: name, email, phone: "+442079460958", industry: "health" });
    businesses.push("created" in registered ? registered.created : registered.existing);
  }
  businessId = businesses[0]!.id;
  const passwordHash = await hashPassword("call quality password");
  await db.insert(accounts).values([
    { businessId, name: "Quality Owner", email: "quality-owner@example.com", passwordHash, mustChangePassword: false },
    { businessId: businesses[1]!.id, name: "Other Owner", email: "quality-other@example.com", passwordHash, mustChangePassword: false },
  ]);
  owner = await signIn("quality-owner@example.com");
  stranger = await signIn("quality-other@example.com");
});

afterAll(async () => {
  await app?.stop();
  await twilio?.close();
  await realtime?.close();
});

async function signIn(email: string) {
  const client = httpClient(app.url);
  const response = await client.postJson("/api/auth/login", { email, password: "call quality password" });
  expect(response.status).toBe(200);
  return client;
}

/** Places a test call of the business and returns it once its stream is up, with the fake call and stream. */
async function placeCall(to: string) {
  const call = await queueTestCall(app.services, { purpose: "test", to, language: "en", voice: "alloy", businessId });
  const sid = await waitFor(async () => (await findCall(app.services.db, call.id))?.providerCallId, { what: "the call placed" });
  const stream = await twilio.stream(sid, 20_000);
  return { id: call.id, sid, stream };
}

const qualityOf = (callId: number, done: (row: NonNullable<Awaited<ReturnType<typeof findCallQuality>>>) => boolean) =>
  waitFor(
    async () => {
      const row = await findCallQuality(app.services.db, callId);
      return row && done(row) ? row : null;
    },
    { what: `call ${callId}'s quality`, timeoutMs: 15_000 },
  );

let measured: { id: number };

describe("a call driven through the fakes", () => {
  it("measures the first words, a turn's wait and an interruption with known delays, and the caller hanging up", async () => {
    // A long greeting (4.2 s of audio, sent ten times faster than Twilio plays it): the caller can speak over it.
    realtime.clearScript();
    realtime.script([{ say: "Hello, this is the assistant of Quality Clinic calling to test the line, can you hear me well?" }]);
    realtime.setResponseDelay(FIRST_WORDS_DELAY);
    const longestStall = stalls();
    // When the app asks the model for the greeting: the model speaks FIRST_WORDS_DELAY after that.
    const session = realtime.sessions.length;
    const asked = realtime.waitForEvent(session, "response.create", undefined, 20_000).then(() => Date.now());
    const { id, stream } = await placeCall("+12125557801");
    measured = { id };
    await stream.waitForMessage("media", undefined, 10_000);
    const first = await qualityOf(id, (row) => row.firstWordsMs !== null);
    expect(first.answeredAt).not.toBeNull();
    // The model cannot speak before its delay. What comes on top is the app's own time to reach the
    // model (a WebSocket handshake: a few ms on an idle machine, far more on a loaded one), or the
    // stream's start if the greeting was ready first; nothing else.
    const answered = first.answeredAt!.getTime();
    const expected = Math.max((await asked) + FIRST_WORDS_DELAY, first.streamStartedAt!.getTime()) - answered;
    expect(first.firstWordsMs!).toBeGreaterThanOrEqual(FIRST_WORDS_DELAY);
    expect(Math.abs(first.firstWordsMs! - expected)).toBeLessThanOrEqual(TOLERANCE + longestStall());
    console.log(
      `first words ${first.firstWordsMs} ms: the model's ${FIRST_WORDS_DELAY} ms after the app asked it ${(await asked) - answered} ms after the answer (longest stall ${Math.round(longestStall())} ms)`,
    );

    // The caller speaks over the greeting (an interruption), then stops: the reply comes TURN_DELAY later.
    realtime.setResponseDelay(TURN_DELAY);
    const greeting = realtime.sessions[session]!.responses[0]!.id;
    const replyCreated = realtime
      .waitForServerEvent(session, "response.created", (event) => event.response.id !== greeting, 10_000)
      .then(() => Date.now());
    const cleared = stream.clears;
    stream.sendSpeech(400);
    await waitFor(() => stream.clears > cleared || null, { what: "the greeting cut" });
    const audioBefore = stream.receivedAudioMs();
    await waitFor(() => stream.receivedAudioMs() > audioBefore || null, { what: "the reply", timeoutMs: 10_000 });
    await stream.hangup();

    const row = await qualityOf(id, (r) => r.endedBy !== null);
    expect(row.endedBy).toBe("caller_hung_up");
    expect(row.interruptions).toHaveLength(1);
    expect(row.turns).toHaveLength(1);
    // The wait is the model's TURN_DELAY after the reply was created (which the model does as the turn
    // ends). Both ends are read on this one busy thread, so it is checked against that, not a floor.
    const stopped = row.streamStartedAt!.getTime() + row.turns[0]!.at;
    const expectedWait = (await replyCreated) + TURN_DELAY - stopped;
    expect(Math.abs(row.turns[0]!.latencyMs! - expectedWait)).toBeLessThanOrEqual(TOLERANCE + longestStall());
    // The interruption came before the caller's turn ended (the same ms, after a stall).
    expect(row.interruptions[0]!).toBeLessThanOrEqual(row.turns[0]!.at);
  });

  it("knows when the agent ended the call, and a turn the agent never answered", async () => {
    realtime.setResponseDelay(0);
    realtime.clearScript();
    realtime.script([{ say: "Hello." }, { tool: "end_call", arguments: { reason: "done" }, say: "Goodbye." }]);
    const ended = await placeCall("+12125557802");
    await ended.stream.waitForMessage("media", undefined, 10_000);
    ended.stream.sendSpeech(300);
    const byAgent = await qualityOf(ended.id, (r) => r.endedBy !== null);
    expect(byAgent.endedBy).toBe("agent_ended");
    expect(byAgent.turns).toHaveLength(1);
    expect(byAgent.turns[0]!.latencyMs).not.toBeNull();

    // A model that never answers the caller's turn: the bridge gives up (dead air) and the turn has no wait.
    expectLog("warn", /no audio within 3 s after the caller's turn/);
    realtime.clearScript();
    realtime.script([{ say: "Hello." }, { silent: true }]);
    const silent = await placeCall("+12125557803");
    await silent.stream.waitForMessage("media", undefined, 10_000);
    silent.stream.sendSpeech(300);
    const dead = await qualityOf(silent.id, (r) => r.endedBy !== null);
    expect(dead.endedBy).toBe("dead_air");
    expect(dead.turns).toEqual([{ at: expect.any(Number), latencyMs: null }]);
  }, 30_000);
});

describe("the owner's call page", () => {
  it("shows the timeline and the table, server-rendered, in English and in Arabic", async () => {
    const html = await (await owner.get(`/dashboard/calls/${measured.id}?lng=en`)).text();
    expect(html).toContain(en.quality.title);
    expect(html).toMatch(/<svg[^>]*role="img"[^>]*aria-labelledby="quality-svg-title quality-svg-desc"/);
    expect(html).toContain(`<title id="quality-svg-title">${en.quality.svgTitle}</title>`);
    expect(html).toContain(`data-row="first"`);
    expect(html).toContain(`data-row="turn-0"`);
    expect(html).toContain(`data-row="interruption-0"`);
    expect(html).toContain(en.quality.end.replace("{{how}}", en.quality.endings.caller_hung_up));
    const row = (await findCallQuality(app.services.db, measured.id))!;
    expect(html).toContain(`${row.firstWordsMs} ms`);

    const arabic = await (await owner.get(`/dashboard/calls/${measured.id}?lng=ar`)).text();
    expect(arabic).toContain(ar.quality.title);
    expect(arabic).toContain(`← ${ar.quality.axis}`);

    // The calls list links each call to its page.
    expect(await (await owner.get("/dashboard/calls?lng=en")).text()).toContain(`href="/dashboard/calls/${measured.id}"`);
  });

  it("is 404 for another business's owner and for a call that does not exist", async () => {
    expect((await stranger.get(`/dashboard/calls/${measured.id}`)).status).toBe(404);
    expect((await owner.get("/dashboard/calls/999999")).status).toBe(404);
    expect((await httpClient(app.url).get(`/dashboard/calls/${measured.id}`)).status).toBe(401);
  });
});

describe("per day", () => {
  it("computes the median and the 90th percentile from known rows, per day, for one business or all", async () => {
    const db = app.services.db;
    const registered = await registerBusiness(db, {
      name: "Figures Clinic",
      ownerName: "Figures",
      email: "figures-clinic@example.com",
      phone: "+442079460958",
      industry: "health",
    });
    const figures = "created" in registered ? registered.created : registered.existing;
    const day = Date.UTC(2026, 0, 15, 12);
    const known: { day: number; firstWordsMs: number | null; turns: (number | null)[] }[] = [
      { day, firstWordsMs: 100, turns: [100, 300] },
      { day, firstWordsMs: 200, turns: [200, null] },
      { day, firstWordsMs: 300, turns: [500] },
      { day, firstWordsMs: 400, turns: [] },
      { day, firstWordsMs: 1000, turns: [] },
      { day, firstWordsMs: null, turns: [] },
      { day: day + 86_400_000, firstWordsMs: 700, turns: [900] },
    ];
    for (const row of known) {
      const [call] = await db
        .insert(calls)
        .values({ purpose: "test", language: "en", voice: "alloy", timeLimitSeconds: 300, businessId: figures.id })
        .returning();
      await db.insert(callQuality).values({
        callId: call!.id,
        answeredAt: new Date(row.day),
        streamStartedAt: new Date(row.day + 100),
        firstWordsMs: row.firstWordsMs,
        turns: row.turns.map((latencyMs, i) => ({ at: 1000 * (i + 1), latencyMs })),
        endedBy: "caller_hung_up",
      });
    }
    const window = { timeZone: "UTC", from: new Date(day - 86_400_000), to: new Date(day + 2 * 86_400_000) };
    const days = await qualityByDay(db, { businessId: figures.id, ...window });
    expect(days).toEqual([
      // First words 100, 200, 300, 400, 1000 (one call never spoke): median 300, p90 400 + 0.6 × 600.
      // Turns 100, 200, 300, 500 (one never answered): median 250, p90 300 + 0.7 × 200.
      { day: "2026-01-15", calls: 5, firstWordsMedian: 300, firstWordsP90: 760, turns: 4, turnMedian: 250, turnP90: 440 },
      { day: "2026-01-16", calls: 1, firstWordsMedian: 700, firstWordsP90: 700, turns: 1, turnMedian: 900, turnP90: 900 },
    ]);
    // Another business's calls are not this one's; every business's together are the admin's.
    expect(await qualityByDay(db, { businessId, ...window })).toEqual([]);
    expect((await qualityByDay(db, { businessId: null, ...window }))[0]!.calls).toBe(5);
    // Days are the business's: at UTC+14, 12:00 UTC is already the next day.
    const kiritimati = await qualityByDay(db, { businessId: figures.id, ...window, timeZone: "Pacific/Kiritimati" });
    expect(kiritimati.map((d) => d.day)).toEqual(["2026-01-16", "2026-01-17"]);
  });

  it("the analytics page and the admin's page show the day's median and 90th percentile", async () => {
    const [made] = await app.services.db.select().from(calls).where(eq(calls.id, measured.id));
    const analytics = await (await owner.get("/dashboard/analytics?period=7&lng=en")).text();
    expect(analytics).toContain(en.quality.daily.title);
    expect(analytics).toContain('data-testid="quality-day"');
    expect(made).toBeDefined();

    const admin = await enrolledAdmin(app);
    const page = await (await admin.client.get("/admin/quality?lng=en")).text();
    expect(page).toContain(en.quality.admin.title);
    expect(page).toContain('data-testid="quality-day"');
  });
});
