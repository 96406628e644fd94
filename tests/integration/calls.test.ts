import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findBooking } from "#models/bookings";
import { advanceCallStatus, createCall, findCall, markCallPlaced } from "#models/calls";
import { businesses, calls as callsTable } from "#models/schema";
import type { FakeRealtime } from "../fakes/openai-realtime";
import { connectMediaStream } from "../fakes/media-stream";
import type { FakeTwilio } from "../fakes/twilio";
import { startAppInProcess } from "../support/app-in-process";
import { type InProcessApp, startAppWithFakes } from "../support/app-with-fakes";
import { demoOwnerPassword } from "../support/demo-owner";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";
import { expectLog } from "../support/console";
import { zoneInCallingHours } from "../support/calling-hours";
import { queueTestCall } from "../support/queue-call";

let twilio: FakeTwilio;
let realtime: FakeRealtime;
let app: InProcessApp;
let close: () => Promise<void>;
let sessionCount = 0;

beforeAll(async () => {
  ({ app, twilio, realtime, close } = await startAppWithFakes({ twilio: true, realtime: { audioSpeed: 10 }, env: { TRUST_PROXY: "1" } }));
  // The demo business lives where confirmation calls may ring right now, and needs no notice.
  await app.services.db.update(businesses).set({ timeZone: zoneInCallingHours(), minimumNoticeMinutes: 0 });
});

afterAll(() => close?.());

let visitor = 0;
async function bookDemo() {
  visitor += 1;
  const client = httpClient(app.url, { forwardedFor: `192.0.2.${visitor}` });
  const services = await (await client.get("/api/booking/services/demo-salon")).json();
  const haircut = services.find((s: { name: string }) => s.name === "Haircut");
  for (let day = 1; day < 20; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const slots = await (await client.get(`/api/booking/availability/demo-salon/${date}/${haircut.id}`)).json();
    const slot = Array.isArray(slots) ? slots.find((s: { available: boolean }) => s.available) : null;
    if (!slot) continue;
    const response = await client.postJson("/api/booking/create", {
      businessLink: "demo-salon",
      serviceId: haircut.id,
      appointmentDate: `${date}T${slot.time}`,
      customerInfo: { name: "Nadia", phone: `+1212555${String(2000 + visitor)}` },
      requestCall: true,
    });
    expect(response.status).toBe(201);
    return (await response.json()).booking.id as number;
  }
  throw new Error("no free slot");
}

async function callFor(where: (row: typeof callsTable.$inferSelect) => boolean) {
  return waitFor(async () => (await app.services.db.select().from(callsTable)).find(where), { what: "the call row", timeoutMs: 20_000 });
}

async function placedCall(callId: number) {
  const call = await waitFor(
    async () => {
      const row = await findCall(app.services.db, callId);
      return row?.providerCallId ? row : null;
    },
    { what: "the call to be placed", timeoutMs: 30_000 },
  );
  return call;
}

describe("a booking confirmation call", () => {
  it("runs from placement to completed, confirms the booking through a tool call and hangs up after the goodbye", async () => {
    const index = sessionCount++;
    realtime.script(
      [
        { say: "Hello Nadia, this is the AI assistant of Sakina Demo Salon calling to confirm your haircut. Does it still work?" },
        { transcriptOfCaller: "Yes, that works for me." },
        { tool: "confirm_booking", arguments: {} },
        { tool: "end_call", arguments: { reason: "done" }, say: "Wonderful, it's confirmed. Goodbye!" },
      ],
      index,
    );
    const bookingId = await bookDemo();
    const row = await callFor((c) => c.bookingId === bookingId);
    const call = await placedCall(row.id);
    const fakeCall = twilio.calls.get(call.providerCallId!)!;
    expect(fakeCall.params.MachineDetection).toBe("DetectMessageEnd");
    expect(fakeCall.params.TimeLimit).toBe("300");
    const stream = await twilio.stream(call.providerCallId!);
    const session = await realtime.waitForSession(index, 10_000);
    await realtime.waitForServerEvent(index, "session.updated");
    expect(session.session.audio.input.format.type).toBe("audio/pcmu");
    expect(session.session.audio.output.format.type).toBe("audio/pcmu");
    // The greeting plays to the end, then the customer answers.
    await realtime.waitForServerEvent(index, "response.done");
    await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
    await stream.sendSpeech(700);
    await twilio.waitForStatus(call.providerCallId!, "completed", 30_000);
    expect(twilio.calls.get(call.providerCallId!)!.hangupBy).toBe("app");
    expect((await findBooking(app.services.db, bookingId))!.status).toBe("confirmed");
    const done = await waitFor(
      async () => {
        const c = await findCall(app.services.db, row.id);
        return c?.status === "completed" ? c : null;
      },
      { what: "the completed status" },
    );
    expect(done.outcome).toBe("confirmed");
    expect(done.durationSeconds).toBeGreaterThanOrEqual(0);
    expect(done.transcript.some((t) => t.role === "agent")).toBe(true);
    expect(session.functionOutputs.map((o) => o.name)).toContain("confirm_booking");
  });

  it("keeps the summary the agent writes for the owner, redacted, and shows it on the booking's page and in the calls", async () => {
    const index = sessionCount++;
    realtime.script(
      [
        { say: "Hello Nadia, this is the AI assistant of Sakina Demo Salon calling to confirm your haircut. Does it still work?" },
        { transcriptOfCaller: "Yes, and could the stylist keep it short? Call me on +1 212 555 0188 if anything changes." },
        { tool: "confirm_booking", arguments: {} },
        {
          tool: "save_summary",
          arguments: { summary: "The customer confirmed and asked for a short cut.\n Call back on +1 212 555 0188 or nadia@example.com." },
        },
        { tool: "end_call", arguments: { reason: "done" }, say: "Wonderful, it's confirmed. Goodbye!" },
      ],
      index,
    );
    const bookingId = await bookDemo();
    const row = await callFor((c) => c.bookingId === bookingId);
    const call = await placedCall(row.id);
    const stream = await twilio.stream(call.providerCallId!);
    const session = await realtime.waitForSession(index, 10_000);
    await realtime.waitForServerEvent(index, "session.updated");
    // The agent is told to write it, in the business's language, before its goodbye.
    expect(String(session.session.instructions)).toContain("use save_summary once");
    const tool = session.session.tools.find((t: { name: string }) => t.name === "save_summary");
    expect(tool.description).toContain("in English");
    await realtime.waitForServerEvent(index, "response.done");
    await waitFor(() => stream.pendingPlaybackMs() === 0, { what: "the greeting to finish playing" });
    await stream.sendSpeech(700);
    await twilio.waitForStatus(call.providerCallId!, "completed", 30_000);
    const summary = "The customer confirmed and asked for a short cut. Call back on [phone] or [email].";
    const done = await waitFor(
      async () => {
        const c = await findCall(app.services.db, row.id);
        return c?.status === "completed" && c.summary ? c : null;
      },
      { what: "the completed call with its summary" },
    );
    expect(done.summary).toBe(summary);
    expect(done.outcome).toBe("confirmed");
    expect(session.functionOutputs.map((o) => o.name)).toContain("save_summary");

    // The owner reads it, labelled, on the booking's own page and in the recent calls.
    const owner = httpClient(app.url, { forwardedFor: "192.0.2.200" });
    const password = await demoOwnerPassword(app.url, app.dataDir);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    const page = await owner.get(`/dashboard/bookings/${bookingId}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    // Labelled, beside the call's outcome, in its own direction.
    expect(/<dt[^>]*>Call summary<\/dt><dd[^>]*><p dir="auto"[^>]*>([^<]*)<\/p>/.exec(html)![1]).toBe(summary);
    expect(html).not.toContain("555 0188");
    expect(html).not.toContain("nadia@example.com");
    const calls = await (await owner.get("/dashboard/calls")).text();
    expect(calls).toContain(summary);
  });

  it("leaves a voicemail when a machine answers and tries again later", async () => {
    const phoneIndex = visitor + 1;
    twilio.setOutcome(`+1212555${String(2000 + phoneIndex)}`, "machine");
    const bookingId = await bookDemo();
    const row = await callFor((c) => c.bookingId === bookingId);
    const call = await placedCall(row.id);
    await twilio.waitForStatus(call.providerCallId!, "completed", 20_000);
    expect(twilio.calls.get(call.providerCallId!)!.said.join(" ")).toMatch(/AI assistant of Sakina Demo Salon/);
    await waitFor(async () => (await findCall(app.services.db, row.id))?.outcome === "voicemail", { what: "the voicemail outcome" });
    // A second attempt is queued for later, and the booking is not marked unreachable yet.
    const retry = await callFor((c) => c.bookingId === bookingId && c.attempt === 2);
    expect(retry.status).toBe("queued");
    expect((await findBooking(app.services.db, bookingId))!.status).toBe("pending");
  });
});

describe("an empathy call", () => {
  it("asks Twilio for the 10-minute limit, answers crisis language with the fixed script and flags the call", async () => {
    const index = sessionCount++;
    realtime.script(
      [
        { say: "Hi, I'm Emma, an AI listener from Sakina. How are you feeling today?" },
        { say: "I hear you.", transcriptOfCaller: "Honestly I want to kill myself." },
        { say: "I'm really glad you told me." },
      ],
      index,
    );
    const call = await queueTestCall(app.services, {
      purpose: "empathy",
      to: "+12125557001",
      language: "en",
      voice: "shimmer",
    });
    const placed = await placedCall(call.id);
    expect(twilio.calls.get(placed.providerCallId!)!.params.TimeLimit).toBe("600");
    const stream = await twilio.stream(placed.providerCallId!);
    await realtime.waitForSession(index, 10_000);
    await waitFor(() => stream.receivedAudioMs() > 300, { what: "the greeting" });
    await stream.sendSpeech(700);
    const scripted = await realtime.waitForEvent(
      index,
      "response.create",
      (e) => String(e.response?.instructions ?? "").includes("988"),
      15_000,
    );
    expect(scripted.response.instructions).toContain("please call 911 now");
    await waitFor(async () => (await findCall(app.services.db, call.id))?.flaggedForReview, { what: "the review flag" });
    const flagged = (await findCall(app.services.db, call.id))!;
    expect(flagged.flagReason).toBe("crisis language");
    expect(JSON.stringify(flagged.transcript)).not.toContain("+1212");
    await stream.hangup();
  });

  it("cuts the reply at what the caller heard when they start speaking", async () => {
    const index = sessionCount++;
    realtime.setAudioSpeed(1);
    realtime.script(
      [
        {
          say: "This is a long greeting that keeps going for quite a while so that the caller has time to interrupt it politely in the middle of a sentence.",
        },
      ],
      index,
    );
    const call = await queueTestCall(app.services, {
      purpose: "empathy",
      to: "+12125557002",
      language: "en",
      voice: "shimmer",
    });
    const placed = await placedCall(call.id);
    const stream = await twilio.stream(placed.providerCallId!);
    const session = await realtime.waitForSession(index, 10_000);
    await waitFor(() => stream.played > 600, { what: "some of the reply to play" });
    await stream.sendSpeech(600);
    const truncate = await realtime.waitForEvent(index, "conversation.item.truncate", undefined, 10_000);
    expect(truncate.audio_end_ms).toBeGreaterThan(300);
    expect(truncate.audio_end_ms).toBeLessThanOrEqual(stream.played + 100);
    await waitFor(() => stream.clears > 0, { what: "Twilio's buffer to be cleared" });
    // Marks follow every quarter second of audio, not every frame, and the cut is at one the
    // caller's side echoed: the audio before it, to the millisecond.
    const clearAt = stream.messages.findIndex((m) => m.event === "clear");
    const beforeClear = stream.messages.slice(0, clearAt);
    let audioBytes = 0;
    const markedMs = new Map<string, number>();
    for (const message of beforeClear) {
      if (message.event === "media") audioBytes += Buffer.from(message.media.payload, "base64").length;
      if (message.event === "mark") markedMs.set(message.mark.name, Math.floor(audioBytes / 8));
    }
    expect(markedMs.size).toBeLessThan(beforeClear.filter((m) => m.event === "media").length / 10);
    expect(stream.marksEchoed.map((name) => markedMs.get(name))).toContain(truncate.audio_end_ms);
    expect(session.errors).toEqual([]);
    realtime.setAudioSpeed(10);
    await stream.hangup();
  });

  it("interrupted twice, cuts each reply at what was heard and never has two responses at once", async () => {
    const index = sessionCount++;
    realtime.setAudioSpeed(1);
    const long = "This is a long reply that keeps going for quite a while so that the caller has time to interrupt it in the middle.";
    realtime.script([{ say: long }, { say: long }], index);
    const call = await queueTestCall(app.services, {
      purpose: "empathy",
      to: "+12125557009",
      language: "en",
      voice: "shimmer",
    });
    const placed = await placedCall(call.id);
    const stream = await twilio.stream(placed.providerCallId!);
    const session = await realtime.waitForSession(index, 10_000);
    for (const cut of [1, 2]) {
      const before = stream.played;
      await waitFor(() => stream.played > before + 600, { what: `reply ${cut} to play` });
      await stream.sendSpeech(600);
      await waitFor(() => (session.truncations.length >= cut ? true : null), { what: `cut ${cut}`, timeoutMs: 10_000 });
      await waitFor(() => stream.clears >= cut, { what: `Twilio's buffer cleared (${cut})` });
    }
    for (const truncation of session.truncations) {
      expect(truncation.audio_end_ms).toBeGreaterThan(300);
      expect(truncation.audio_end_ms).toBeLessThanOrEqual(truncation.audio_ms);
    }
    // The fake answers an overlapping response.create with conversation_already_has_active_response.
    expect(session.errors).toEqual([]);
    realtime.setAudioSpeed(10);
    await stream.hangup();
  });
});

describe("security and resilience", () => {
  it("keeps the provider's call id when its first status callback beat the app's own record of the call", async () => {
    const call = await createCall(app.services.db, {
      purpose: "test",
      toNumber: "+12125557301",
      language: "en",
      voice: "alloy",
      timeLimitSeconds: 60,
    });
    // Twilio sends "ringing" as soon as the call exists, possibly before placeCall has returned.
    await advanceCallStatus(app.services.db, call.id, "ringing");
    await markCallPlaced(app.services.db, call.id, { providerCallId: "CA_race_test", fromNumber: "+15005550006" });
    const stored = (await findCall(app.services.db, call.id))!;
    expect(stored.providerCallId).toBe("CA_race_test");
    expect(stored.status).toBe("ringing");
    expect(stored.startedAt).not.toBeNull();
  });

  it("retries a provider 5xx and then places the call", async () => {
    twilio.failNext(503, { code: 20503, message: "Service Unavailable" });
    const call = await queueTestCall(app.services, { purpose: "test", to: "+12125557003", language: "ar", voice: "echo" });
    const placed = await placedCall(call.id);
    expect(placed.status).not.toBe("failed");
    expect(
      twilio.requests.filter((r) => r.method === "POST" && r.path.endsWith("/Calls.json") && r.params.To === "+12125557003"),
    ).toHaveLength(2);
    await twilio.waitForStatus(placed.providerCallId!, "in-progress", 10_000);
    await (await twilio.stream(placed.providerCallId!)).hangup();
  });

  it("refuses unsigned or wrongly signed webhooks and stream connections, and ignores replays", async () => {
    const unsigned = await fetch(`${app.url}/webhooks/twilio/status/1`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "CallSid=CA1&CallStatus=completed",
    });
    expect(unsigned.status).toBe(403);
    const forged = await fetch(`${app.url}/twilio/voice/1`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": "bm90IGEgc2lnbmF0dXJl" },
      body: "CallSid=CA1&CallStatus=in-progress",
    });
    expect(forged.status).toBe(403);
    await expect(
      connectMediaStream({ url: `${app.url.replace("http", "ws")}/media-stream/1`, authToken: "wrong-token" }),
    ).rejects.toMatchObject({ statusCode: 403 });

    // Signed, but with a token that is not the call's: the bridge closes the stream and says why.
    expectLog("warn", /media stream for call 1 refused: bad or used token/);
    const stranger = await connectMediaStream({
      url: `${app.url.replace("http", "ws")}/media-stream/1`,
      authToken: twilio.authToken,
      customParameters: { token: "guessed" },
    });
    await stranger.closed;

    // A replayed "ringing" callback after completion changes nothing.
    const completed = (await app.services.db.select().from(callsTable)).find((c) => c.status === "completed" && c.providerCallId)!;
    const ringing = twilio.callbackDeliveries.findIndex(
      (d) => d.kind === "status" && d.callSid === completed.providerCallId && d.params.CallStatus === "ringing",
    );
    expect(await twilio.resendCallback(ringing)).toBeLessThan(300);
    expect((await findCall(app.services.db, completed.id))!.status).toBe("completed");
  });

  it("answers a free demo call request and guards it", async () => {
    const client = httpClient(app.url, { forwardedFor: "203.0.113.77" });
    expect((await client.postJson("/api/calls/demo", { to: "+1 212 555 7100" })).status).toBe(202);
    const premium = await client.postJson("/api/calls/demo", { to: "+1 900 555 0100" });
    expect(premium.status).toBe(400);
    const abroad = await client.postJson("/api/calls/demo", { to: "+91 98765 43210" });
    expect(abroad.status).toBe(400);
    expect((await abroad.json()).error).toMatch(/only go to numbers in the US/);
    expect((await client.postJson("/api/calls/demo", { to: "+1 212 555 7101" })).status).toBe(202);
    expect((await client.postJson("/api/calls/demo", { to: "+1 212 555 7102" })).status).toBe(202);
    const limited = await client.postJson("/api/calls/demo", { to: "+1 212 555 7103" });
    expect(limited.status).toBe(429);
    expect((await limited.json()).title).toBe("Call failed");
  });
});

describe("without provider credentials", () => {
  it("still serves /providers as Not configured and refuses calls with a clear message", async () => {
    const bare = await startAppInProcess({ SEED_DEMO_DATA: "false" });
    try {
      const page = await (await fetch(`${bare.url}/providers`)).text();
      expect(page).toContain("Not configured");
      expect(page).toContain("None available");
      const api = await (await fetch(`${bare.url}/api/voice/providers`)).json();
      expect(api.activeProvider).toBeNull();
      expect(api.providers.find((p: { name: string }) => p.name === "Twilio")).toMatchObject({ configured: false, working: false });
      const demo = await httpClient(bare.url).postJson("/api/calls/demo", { to: "+12125550100" });
      expect(demo.status).toBe(503);
      expect((await demo.json()).error).toBe("Calls are not configured on this server yet, so a demo call cannot be placed.");
    } finally {
      await bare.stop();
    }
  });
});
