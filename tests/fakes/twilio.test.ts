// Tests of the fake Twilio and of the Media Streams stand-in, driven through the real `twilio` SDK
// (only its base URL moved, the way the app does it) against a tiny HTTP + WebSocket server that
// stands in for the app.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import twilio from "twilio";
import type { CallListInstanceCreateOptions } from "twilio/lib/rest/api/v2010/account/call";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type WebSocket from "ws";
import { WebSocketServer } from "ws";
import { connectMediaStream, FRAME_BYTES, mulawRms, speech } from "./media-stream";
import { startFakeTwilio, type FakeTwilio } from "./twilio";
import { RedirectingClient } from "~/providers/telephony.server";
import { waitFor } from "../support/wait";

type Json = Record<string, any>;

interface AppRequest {
  path: string;
  url: string;
  method: string;
  signature: string;
  idempotencyToken: string;
  body: string;
  params: Record<string, string>;
}

interface AppStream {
  ws: WebSocket;
  url: string;
  signature: string;
  messages: Json[];
  closed: Promise<void>;
  next(event: string, predicate?: (m: Json) => boolean, timeoutMs?: number): Promise<Json>;
  send(message: Json): void;
}

/** The app stand-in: /voice answers TwiML (app.twiml), anything else 204; /stream takes signed WebSockets. */
async function startApp(authToken: string) {
  const requests: AppRequest[] = [];
  const streams: AppStream[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const request: AppRequest = {
        path: new URL(req.url ?? "/", app.url).pathname,
        url: app.url + req.url,
        method: req.method ?? "",
        signature: String(req.headers["x-twilio-signature"] ?? ""),
        idempotencyToken: String(req.headers["i-twilio-idempotency-token"] ?? ""),
        body,
        params: Object.fromEntries(new URLSearchParams(body)),
      };
      requests.push(request);
      if (request.path === "/voice") {
        res.writeHead(200, { "Content-Type": "text/xml" });
        res.end(app.twiml(request.params));
      } else {
        res.writeHead(204);
        res.end();
      }
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = `${app.wsUrl}${req.url}`;
    const signature = String(req.headers["x-twilio-signature"] ?? "");
    if (!signature || !twilio.validateRequest(authToken, signature, url, {})) {
      socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const messages: Json[] = [];
      const waiters = new Set<() => void>();
      ws.on("message", (data) => {
        messages.push(JSON.parse(data.toString()) as Json);
        for (const waiter of [...waiters]) waiter();
      });
      const stream: AppStream = {
        ws,
        url,
        signature,
        messages,
        closed: new Promise((resolve) => ws.once("close", () => resolve())),
        next(event, predicate = () => true, timeoutMs = 5000) {
          return new Promise((resolve, reject) => {
            const check = () => {
              const found = messages.find((m) => m.event === event && predicate(m));
              if (!found) return;
              waiters.delete(check);
              clearTimeout(timer);
              resolve(found);
            };
            const timer = setTimeout(() => {
              waiters.delete(check);
              reject(new Error(`The app got no ${event} message within ${timeoutMs} ms`));
            }, timeoutMs);
            waiters.add(check);
            check();
          });
        },
        send(message) {
          ws.send(JSON.stringify(message));
        },
      };
      streams.push(stream);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const app = {
    url: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    requests,
    streams,
    twiml: (_params: Record<string, string>) =>
      `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="ws://127.0.0.1:${port}/stream"><Parameter name="token" value="abc"/></Stream></Connect></Response>`,
    /** The app-side socket of a call, once Twilio's `start` has arrived on it. */
    async streamFor(callSid: string, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = streams.find((s) => s.messages.some((m) => m.event === "start" && m.start?.callSid === callSid));
        if (found) return found;
        if (Date.now() > deadline) throw new Error(`No stream for ${callSid}`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
    statusRequests(callSid: string) {
      return requests.filter((r) => r.path === "/status" && r.params.CallSid === callSid);
    },
    close() {
      for (const client of wss.clients) client.terminate();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return app;
}

let fake: FakeTwilio;
let app: Awaited<ReturnType<typeof startApp>>;
let client: twilio.Twilio;
const FROM = "+15005550006";
const defaultTwiml = () => app.twiml;

beforeAll(async () => {
  fake = await startFakeTwilio({ ownedNumbers: [FROM, "+966115100000"] });
  app = await startApp(fake.authToken);
  client = twilio(fake.accountSid, fake.authToken, { httpClient: new RedirectingClient(fake.url) });
});
afterAll(async () => {
  await fake?.close();
  await app?.close();
});

/** Calls the SDK and returns the RestException it throws. */
async function failure(call: () => Promise<unknown>) {
  try {
    await call();
  } catch (error) {
    return error as twilio.RestException;
  }
  throw new Error("expected the call to fail");
}

function placeCall(extra: Partial<CallListInstanceCreateOptions> = {}) {
  return client.calls.create({
    to: "+966501234567",
    from: "+966115100000",
    url: `${app.url}/voice`,
    method: "POST",
    statusCallback: `${app.url}/status?attempt=1`,
    statusCallbackMethod: "POST",
    statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
    timeLimit: 60,
    ...extra,
  });
}

describe("REST API through the real SDK", () => {
  it("returns the account for the credential check, and 401 20003 for wrong credentials", async () => {
    const account = await client.api.v2010.accounts(fake.accountSid).fetch();
    expect(account).toMatchObject({ sid: fake.accountSid, status: "active", type: "Full" });
    expect(account.dateCreated).toBeInstanceOf(Date);

    const wrong = twilio(fake.accountSid, "not-the-token", { httpClient: new RedirectingClient(fake.url) });
    const error = await failure(() => wrong.api.v2010.accounts(fake.accountSid).fetch());
    expect(error).toBeInstanceOf(twilio.RestException);
    expect(error).toMatchObject({
      status: 401,
      code: 20003,
      message: "Authenticate",
      moreInfo: "https://www.twilio.com/docs/errors/20003",
    });
    const call = await failure(() => wrong.calls.create({ to: "+966501234567", from: FROM, url: `${app.url}/voice` }));
    expect(call.code).toBe(20003);
  });

  it("validates calls like Twilio", async () => {
    const invalidTo = await failure(() => placeCall({ to: "0501234567" }));
    expect(invalidTo).toMatchObject({ status: 400, code: 21211, message: "The 'To' number 0501234567 is not a valid phone number." });

    const unowned = await failure(() => placeCall({ from: "+15551230000" }));
    expect(unowned).toMatchObject({ status: 400, code: 21210 });
    expect(unowned.message).toContain("The source phone number provided, +15551230000, is not yet verified for your account.");

    expect(await failure(() => client.calls.create({ to: "+966501234567", from: FROM }))).toMatchObject({ status: 400, code: 21205 });
    expect(await failure(() => placeCall({ timeLimit: 0 }))).toMatchObject({
      status: 400,
      code: 13216,
      message: "Invalid TimeLimit value (0)",
    });
    expect(await failure(() => placeCall({ timeLimit: 14401 }))).toMatchObject({ code: 13216 });
    expect(await failure(() => placeCall({ machineDetection: "Always" }))).toMatchObject({ status: 400, code: 21200 });

    fake.blockedPrefixes.push("+96650");
    try {
      const blocked = await failure(() => placeCall());
      expect(blocked).toMatchObject({ status: 400, code: 21215 });
      expect(blocked.message).toMatch(/^Account not authorized to call \+966501234567/);
    } finally {
      fake.blockedPrefixes.length = 0;
    }

    const missing = await failure(() => client.calls("CA00000000000000000000000000000000").fetch());
    expect(missing).toMatchObject({ status: 404, code: 20404 });
    expect(fake.calls.size).toBe(0);
  });

  it("fails the next creations on demand (503, 429) and then works again", async () => {
    fake.failNext(503, { code: 20503, message: "Service Unavailable" });
    fake.failNext(429, { code: 20429, message: "Too Many Requests" });
    const unavailable = await failure(() => placeCall({ twiml: "<Response><Hangup/></Response>" }));
    expect(unavailable).toBeInstanceOf(twilio.RestException);
    expect(unavailable).toMatchObject({ status: 503, code: 20503, message: "Service Unavailable" });
    expect(await failure(() => placeCall({ twiml: "<Response><Hangup/></Response>" }))).toMatchObject({ status: 429, code: 20429 });

    const call = await placeCall({ url: undefined, twiml: "<Response><Hangup/></Response>" });
    expect(call).toMatchObject({
      status: "queued",
      direction: "outbound-api",
      to: "+966501234567",
      from: "+966115100000",
      accountSid: fake.accountSid,
    });
    expect(call.sid).toMatch(/^CA[0-9a-f]{32}$/);
    expect(call.dateCreated).toBeInstanceOf(Date);
    await fake.waitForStatus(call.sid, "completed");
  });
});

describe("Messages (SMS) through the real SDK", () => {
  const raw = (fields: Record<string, string>) =>
    fetch(`${fake.url}/2010-04-01/Accounts/${fake.accountSid}/Messages.json`, {
      method: "POST",
      headers: {
        Authorization: `Basic ${Buffer.from(`${fake.accountSid}:${fake.authToken}`).toString("base64")}`,
        "Content-Type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams(fields),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as Json }));

  it("creates a message as Twilio does (201, SM sid, queued), then reports sent and delivered, signed", async () => {
    const message = await client.messages.create({
      to: "+14155550123",
      from: FROM,
      body: "Hello",
      statusCallback: `${app.url}/sms-status`,
    });
    expect(message.sid).toMatch(/^SM[0-9a-f]{32}$/);
    expect(message).toMatchObject({ status: "queued", direction: "outbound-api", numSegments: "1", body: "Hello" });
    await fake.waitForMessageStatus(message.sid, "delivered");
    await fake.flush();
    const callbacks = app.requests.filter((r) => r.path === "/sms-status");
    expect(callbacks.map((r) => r.params.MessageStatus)).toEqual(["sent", "delivered"]);
    for (const callback of callbacks)
      expect(twilio.validateRequest(fake.authToken, callback.signature, callback.url, callback.params)).toBe(true);
  });

  it("refuses what Twilio refuses, with its codes", async () => {
    expect((await raw({ From: FROM, Body: "x" })).body).toMatchObject({ code: 21604, status: 400 });
    expect((await raw({ To: "+14155550123", From: FROM })).body).toMatchObject({ code: 21602 });
    expect((await raw({ To: "0501234567", From: FROM, Body: "x" })).body).toMatchObject({ code: 21211 });
    expect((await raw({ To: "+14155550123", From: "+15551230000", Body: "x" })).body).toMatchObject({ code: 21606 });
    expect((await raw({ To: "+14155550123", From: FROM, Body: "x".repeat(1601) })).body).toMatchObject({ code: 21617 });
    fake.smsBlockedPrefixes.push("+7");
    try {
      expect((await raw({ To: "+79123456789", From: FROM, Body: "x" })).body).toMatchObject({ code: 21408 });
    } finally {
      fake.smsBlockedPrefixes.length = 0;
    }
  });

  it("sends an incoming text to the app signed, and filters a sender's STOP until START (21610)", async () => {
    const stop = await fake.sendSms({ from: "+14155550199", to: FROM, body: "stop", url: `${app.url}/sms` });
    expect(stop.status).toBe(204);
    const delivered = app.requests.find((r) => r.path === "/sms" && r.params.Body === "stop")!;
    expect(delivered.params).toMatchObject({ From: "+14155550199", To: FROM, SmsStatus: "received", NumMedia: "0" });
    expect(delivered.params.MessageSid).toMatch(/^SM/);
    expect(twilio.validateRequest(fake.authToken, delivered.signature, delivered.url, delivered.params)).toBe(true);
    const refused = await failure(() => client.messages.create({ to: "+14155550199", from: FROM, body: "Hi" }));
    expect(refused).toMatchObject({ status: 400, code: 21610, message: "Attempt to send to unsubscribed recipient" });
    await fake.sendSms({ from: "+14155550199", to: FROM, body: "START", url: `${app.url}/sms` });
    expect((await client.messages.create({ to: "+14155550199", from: FROM, body: "Hi" })).status).toBe("queued");
  });
});

describe("a call with a bidirectional media stream", () => {
  it("runs the call: signed callbacks in order, the signed stream, playback, marks, clear, and completion", async () => {
    const created = await placeCall({ machineDetection: "DetectMessageEnd", machineDetectionTimeout: 15 });
    const handle = await fake.stream(created.sid);
    const appStream = await app.streamFor(created.sid);

    // The voice request: signed, in progress, with the AMD verdict.
    const voice = app.requests.find((r) => r.path === "/voice" && r.params.CallSid === created.sid)!;
    expect(voice.params).toMatchObject({
      CallStatus: "in-progress",
      AnsweredBy: "human",
      Direction: "outbound-api",
      AccountSid: fake.accountSid,
      From: "+966115100000",
      To: "+966501234567",
    });
    expect(twilio.validateRequest(fake.authToken, voice.signature, voice.url, voice.params)).toBe(true);
    expect(twilio.validateRequest(fake.authToken, voice.signature, voice.url, { ...voice.params, CallStatus: "completed" })).toBe(false);

    // The handshake is signed over the stream URL with no parameters; connected, then start.
    expect(twilio.validateRequest(fake.authToken, appStream.signature, appStream.url, {})).toBe(true);
    expect(appStream.messages[0]).toEqual({ event: "connected", protocol: "Call", version: "1.0.0" });
    const start = await appStream.next("start");
    expect(start).toMatchObject({
      event: "start",
      sequenceNumber: "1",
      streamSid: handle.streamSid,
      start: {
        streamSid: handle.streamSid,
        accountSid: fake.accountSid,
        callSid: created.sid,
        tracks: ["inbound"],
        customParameters: { token: "abc" },
        mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
      },
    });
    expect(handle.streamSid).toMatch(/^MZ[0-9a-f]{32}$/);
    expect(fake.calls.get(created.sid)).toMatchObject({ status: "in-progress", answeredBy: "human", customParameters: { token: "abc" } });

    // Caller audio: live silence flows by itself; speech is audible μ-law in 20 ms frames.
    await handle.sendSpeech(100);
    const spoken = await appStream.next("media", (m) => mulawRms(Buffer.from(m.media.payload, "base64")) > 1000);
    expect(Buffer.from(spoken.media.payload, "base64")).toHaveLength(FRAME_BYTES);
    expect(spoken.media.track).toBe("inbound");
    const media = appStream.messages.filter((m) => m.event === "media");
    expect(media.length).toBeGreaterThan(5);
    const chunks = media.map((m) => Number(m.media.chunk));
    expect(chunks).toEqual(chunks.map((_, i) => i + 1));
    const sequence = appStream.messages.slice(1).map((m) => Number(m.sequenceNumber));
    expect(sequence).toEqual(sequence.map((_, i) => i + 1));
    expect(handle.inboundSendTimes.length).toBeGreaterThanOrEqual(media.length);

    // App audio is played in real time; a mark comes back once the audio before it has played.
    const streamSid = handle.streamSid;
    const sent = performance.now();
    appStream.send({ event: "media", streamSid, media: { payload: speech(200).toString("base64") } });
    appStream.send({ event: "mark", streamSid, mark: { name: "greeting" } });
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(handle.marksEchoed).toEqual([]);
    expect(handle.played).toBeGreaterThan(20);
    expect(handle.played).toBeLessThan(150);
    const echo = await appStream.next("mark", (m) => m.mark.name === "greeting");
    expect(performance.now() - sent).toBeGreaterThanOrEqual(190);
    expect(echo).toMatchObject({ event: "mark", streamSid, mark: { name: "greeting" } });
    expect(typeof echo.sequenceNumber).toBe("string");
    expect(handle.played).toBe(200);
    expect(handle.receivedAudioMs()).toBe(200);
    expect(handle.outboundArrivals).toHaveLength(1);

    // clear drops what has not been played and echoes the pending marks at once.
    appStream.send({ event: "media", streamSid, media: { payload: speech(1000).toString("base64") } });
    appStream.send({ event: "mark", streamSid, mark: { name: "long" } });
    appStream.send({ event: "mark", streamSid, mark: { name: "after" } });
    // A little of it plays (100 ms of the 1000), then the app clears the rest.
    await waitFor(() => handle.played >= 300, { intervalMs: 5, what: "100 ms of the long audio to play" });
    const cleared = performance.now();
    appStream.send({ event: "clear", streamSid });
    await appStream.next("mark", (m) => m.mark.name === "after");
    expect(performance.now() - cleared).toBeLessThan(80);
    expect(handle.marksEchoed).toEqual(["greeting", "long", "after"]);
    expect(handle.clears).toBe(1);
    expect(handle.played).toBeGreaterThan(260);
    expect(handle.played).toBeLessThan(400);
    expect(handle.pendingPlaybackMs()).toBe(0);
    expect(handle.errors).toEqual([]);

    // The app closes the socket: nothing follows </Connect>, so the call completes.
    appStream.ws.close();
    const call = await fake.waitForStatus(created.sid, "completed");
    expect(call).toMatchObject({ hangupBy: "app", events: ["queued", "initiated", "ringing", "in-progress", "completed"] });
    expect(call.duration).toBeGreaterThanOrEqual(1);
    await fake.flush();

    const callbacks = app.statusRequests(created.sid);
    expect(callbacks.map((r) => r.params.CallStatus)).toEqual(["initiated", "ringing", "in-progress", "completed"]);
    expect(callbacks.map((r) => r.params.SequenceNumber)).toEqual(["0", "1", "2", "3"]);
    for (const r of callbacks) {
      expect(r.url).toBe(`${app.url}/status?attempt=1`);
      expect(twilio.validateRequest(fake.authToken, r.signature, r.url, r.params)).toBe(true);
      expect(r.params).toMatchObject({
        AccountSid: fake.accountSid,
        CallSid: created.sid,
        CallbackSource: "call-progress-events",
        ApiVersion: "2010-04-01",
      });
    }
    expect(callbacks[3]!.params.CallDuration).toBe(String(call.duration));
    expect(callbacks[3]!.params.Duration).toBe("1");
    expect(callbacks.slice(0, 3).every((r) => r.params.CallDuration === undefined)).toBe(true);

    const fetched = await client.calls(created.sid).fetch();
    expect(fetched).toMatchObject({ status: "completed", duration: String(call.duration), answeredBy: "human" });
    expect(fetched.startTime).toBeInstanceOf(Date);
    expect(fetched.endTime).toBeInstanceOf(Date);
    expect(fake.warnings).toEqual([]);
  });

  it("ends the call at TimeLimit: stop on the stream, socket closed, completed", async () => {
    const created = await placeCall({ timeLimit: 1 });
    const handle = await fake.stream(created.sid);
    const appStream = await app.streamFor(created.sid);
    const stop = await appStream.next("stop", undefined, 3000);
    expect(stop).toMatchObject({ event: "stop", streamSid: handle.streamSid, stop: { accountSid: fake.accountSid, callSid: created.sid } });
    await appStream.closed;
    const call = await fake.waitForStatus(created.sid, "completed");
    expect(call.hangupBy).toBe("time-limit");
    expect(call.duration).toBe(1);
    expect(call.endedAt!.getTime() - call.startedAt!.getTime()).toBeGreaterThanOrEqual(995);
    await fake.flush();
    expect(app.statusRequests(created.sid).at(-1)!.params).toMatchObject({ CallStatus: "completed", CallDuration: "1" });
  });

  it("hangs up through the REST API, and when the caller hangs up", async () => {
    const first = await placeCall();
    await fake.stream(first.sid);
    const appStream = await app.streamFor(first.sid);
    const updated = await client.calls(first.sid).update({ status: "completed" });
    expect(updated.status).toBe("completed");
    await appStream.next("stop");
    await appStream.closed;
    expect(fake.calls.get(first.sid)!.hangupBy).toBe("app");

    const second = await placeCall();
    const handle = await fake.stream(second.sid);
    const secondStream = await app.streamFor(second.sid);
    await handle.hangup();
    await secondStream.next("stop");
    const call = await fake.waitForStatus(second.sid, "completed");
    expect(call.hangupBy).toBe("caller");

    // A call hung up before it is answered is canceled.
    const queued = await placeCall();
    await client.calls(queued.sid).update({ status: "completed" });
    const canceled = await fake.waitForStatus(queued.sid, "canceled");
    expect(canceled.duration).toBe(0);
    await fake.flush();
    expect(app.statusRequests(queued.sid).at(-1)!.params.CallStatus).toBe("canceled");
  });

  it("replays a delivered callback exactly", async () => {
    await fake.flush();
    const index = fake.callbackDeliveries.findIndex((d) => d.kind === "status" && d.params.CallStatus === "completed");
    const original = fake.callbackDeliveries[index]!;
    const before = app.requests.length;
    expect(await fake.resendCallback(index)).toBe(204);
    const replayed = app.requests[before]!;
    const firstDelivery = app.requests.find(
      (r) => r.idempotencyToken === original.headers["I-Twilio-Idempotency-Token"] && r !== replayed,
    )!;
    expect(replayed).toMatchObject({
      body: firstDelivery.body,
      signature: firstDelivery.signature,
      url: firstDelivery.url,
      idempotencyToken: firstDelivery.idempotencyToken,
    });
    expect(fake.callbackDeliveries.at(-1)).toMatchObject({ replayOf: index, status: 204 });
  });

  it("loses one status callback on demand, never resends it, and still reports the call's end when fetched", async () => {
    fake.loseStatusCallback("+966501234567", "completed");
    const created = await placeCall();
    const handle = await fake.stream(created.sid);
    await handle.hangup();
    const call = await fake.waitForStatus(created.sid, "completed");
    await fake.flush();
    expect(app.statusRequests(created.sid).map((r) => r.params.CallStatus)).toEqual(["initiated", "ringing", "in-progress"]);
    expect(fake.statusCallbacks(created.sid).at(-1)).toMatchObject({ status: 0, params: { CallStatus: "completed" } });
    const fetched = await client.calls(created.sid).fetch();
    expect(fetched).toMatchObject({ status: "completed", duration: String(call.duration) });
    expect(fetched.endTime).toBeInstanceOf(Date);
    // Only the next one is lost: the number's next call reports its end.
    const next = await placeCall();
    await (await fake.stream(next.sid)).hangup();
    await fake.waitForStatus(next.sid, "completed");
    await fake.flush();
    expect(app.statusRequests(next.sid).at(-1)!.params.CallStatus).toBe("completed");
  });

  it("answers call fetches with an error on demand, and as before once cleared", async () => {
    const created = await placeCall();
    fake.failNextFetch(503, { code: 20503, message: "Service Unavailable" }, 2);
    for (let i = 0; i < 2; i++) expect((await failure(() => client.calls(created.sid).fetch())).status).toBe(503);
    expect((await client.calls(created.sid).fetch()).sid).toBe(created.sid);
    fake.failNextFetch(503, { code: 20503, message: "Service Unavailable" }, 5);
    fake.clearFailures();
    expect((await client.calls(created.sid).fetch()).sid).toBe(created.sid);
    await client.calls(created.sid).update({ status: "completed" });
    await fake.flush();
  });
});

describe("call outcomes and TwiML", () => {
  it("a busy line: initiated, ringing, busy; no voice request", async () => {
    fake.nextOutcome = "busy";
    const created = await placeCall();
    const call = await fake.waitForStatus(created.sid, "busy");
    await fake.flush();
    expect(app.statusRequests(created.sid).map((r) => r.params.CallStatus)).toEqual(["initiated", "ringing", "busy"]);
    expect(app.statusRequests(created.sid).at(-1)!.params).toMatchObject({ CallDuration: "0", SipResponseCode: "486" });
    expect(app.requests.some((r) => r.path === "/voice" && r.params.CallSid === created.sid)).toBe(false);
    expect(call).toMatchObject({ duration: 0, hangupBy: null, startedAt: null });
    expect((await client.calls(created.sid).fetch()).status).toBe("busy");
    await expect(fake.waitForStatus(created.sid, "in-progress", 200)).rejects.toThrow(/without reaching in-progress/);
  });

  it("an answering machine: AnsweredBy machine_end_beep on the voice request", async () => {
    fake.setOutcome("+966509999999", "machine");
    app.twiml = (params) => (params.AnsweredBy?.startsWith("machine") ? "<Response><Hangup/></Response>" : defaultTwiml()(params));
    try {
      const created = await placeCall({ to: "+966509999999", machineDetection: "DetectMessageEnd" });
      const call = await fake.waitForStatus(created.sid, "completed");
      const voice = app.requests.find((r) => r.path === "/voice" && r.params.CallSid === created.sid)!;
      expect(voice.params.AnsweredBy).toBe("machine_end_beep");
      expect(call).toMatchObject({ answeredBy: "machine_end_beep", hangupBy: "app", streamSid: null });
    } finally {
      app.twiml = defaultTwiml();
      fake.setOutcome("+966509999999", null);
    }
  });

  it("runs inline TwiML: Say, Pause, Hangup", async () => {
    const started = performance.now();
    const created = await placeCall({
      url: undefined,
      twiml:
        '<Response><Say voice="Polly.Zeina" language="arb">مرحبا &amp; hello</Say><Pause length="1"/><Hangup/><Say>never</Say></Response>',
    });
    const call = await fake.waitForStatus(created.sid, "completed");
    expect(performance.now() - started).toBeGreaterThanOrEqual(1000);
    expect(call.said).toEqual(["مرحبا & hello"]);
    expect(call.errors).toEqual([]);
  });

  it("records a voice URL that fails, and ends the call", async () => {
    const created = await placeCall({ url: `${app.url.replace(/:\d+$/, ":1")}/voice` });
    const call = await fake.waitForStatus(created.sid, "completed");
    expect(call.errors[0]).toMatchObject({ code: 11200 });
  });
});

describe("the media stream client on its own", () => {
  it("is refused without a valid signature and signs by default", async () => {
    const url = `${app.wsUrl}/stream?load=1`;
    await expect(connectMediaStream({ url, authToken: fake.authToken, signature: false })).rejects.toMatchObject({ statusCode: 403 });
    await expect(connectMediaStream({ url, authToken: fake.authToken, signature: "bm90IGl0" })).rejects.toMatchObject({ statusCode: 403 });
    await expect(connectMediaStream({ url, authToken: "another-token" })).rejects.toMatchObject({ statusCode: 403 });

    const handle = await connectMediaStream({ url, authToken: fake.authToken, customParameters: { bench: "yes" } });
    const appStream = await app.streamFor(handle.callSid);
    expect((await appStream.next("start")).start.customParameters).toEqual({ bench: "yes" });

    // Live audio: one 20 ms frame every 20 ms, timed for benchmarks.
    const liveFrom = performance.now();
    handle.startRealtimeAudio({ speech: true });
    // Fifteen frames sent, never faster than real time: no more frames than 20 ms slots have
    // passed, and no two frames closer than a frame's length on average. (Slower than real time
    // is what a busy machine does to any timer: a timing for a benchmark, not for this test.)
    await waitFor(() => handle.inboundSendTimes.length >= 15, { what: "fifteen live frames" });
    handle.stopRealtimeAudio();
    const due = Math.floor((performance.now() - liveFrom) / 20) + 1;
    const times = handle.inboundSendTimes;
    expect(times.length).toBeLessThanOrEqual(due + 1);
    const span = times.at(-1)! - times[0]!;
    expect(span / (times.length - 1)).toBeGreaterThan(17);
    await appStream.next("media", (m) => Number(m.media.chunk) === times.length);
    expect(
      appStream.messages.filter((m) => m.event === "media").every((m) => mulawRms(Buffer.from(m.media.payload, "base64")) > 1000),
    ).toBe(true);

    // The app answers with audio; arrivals are timed.
    appStream.send({ event: "media", streamSid: handle.streamSid, media: { payload: speech(40).toString("base64") } });
    appStream.send({ event: "media", streamSid: "MZwrong", media: { payload: speech(40).toString("base64") } });
    appStream.send({ event: "mark", streamSid: handle.streamSid, mark: { name: "end" } });
    await handle.waitForMark("end");
    expect(handle.outboundArrivals).toHaveLength(1);
    expect(handle.errors).toMatchObject([{ code: 31951 }]);

    const closed = await handle.hangup();
    expect(closed.initiator).toBe("twilio");
    expect((await appStream.next("stop")).stop).toEqual({ accountSid: handle.accountSid, callSid: handle.callSid });
  });
});

describe("incoming calls", () => {
  const voiceRequests = (sid: string) => app.requests.filter((r) => r.path === "/voice" && r.params.CallSid === sid);
  const signedRight = (request: AppRequest) => twilio.validateRequest(fake.authToken, request.signature, request.url, request.params);
  // The app stand-in's answer that connects the call's audio to its /stream.
  const streamTwiml = () =>
    `<?xml version="1.0" encoding="UTF-8"?><Response><Connect><Stream url="${app.wsUrl}/stream"><Parameter name="token" value="abc"/></Stream></Connect></Response>`;

  it("rings one of the account's numbers: a signed voice request (Direction inbound, CallStatus ringing), then the number's status callback", async () => {
    app.twiml = () => "<Response><Say>Hello</Say></Response>";
    try {
      const call = await fake.inboundCall({
        from: "+4915112345678",
        to: FROM,
        url: `${app.url}/voice`,
        statusCallback: `${app.url}/status`,
      });
      expect(call.sid).toMatch(/^CA[0-9a-f]{32}$/);
      const [voice] = voiceRequests(call.sid);
      expect(voice!.params).toMatchObject({
        AccountSid: fake.accountSid,
        ApiVersion: "2010-04-01",
        CallStatus: "ringing",
        Direction: "inbound",
        From: "+4915112345678",
        To: FROM,
        Caller: "+4915112345678",
        Called: FROM,
        FromCountry: "DE",
        ToCountry: "US",
      });
      expect(signedRight(voice!)).toBe(true);
      await fake.waitForStatus(call.sid, "completed");
      await fake.flush();
      const statuses = app.statusRequests(call.sid);
      expect(statuses.map((r) => r.params.CallStatus)).toEqual(["completed"]);
      expect(statuses[0]!.params).toMatchObject({ Direction: "inbound", CallDuration: expect.stringMatching(/^\d+$/) });
      expect(signedRight(statuses[0]!)).toBe(true);
      const fetched = await client.calls(call.sid).fetch();
      expect(fetched).toMatchObject({ direction: "inbound", status: "completed", from: "+4915112345678" });
      expect(fake.calls.get(call.sid)!.said).toEqual(["Hello"]);
    } finally {
      app.twiml = streamTwiml;
    }
  });

  it("runs <Record transcribe>: its action with the recording, then the transcription callback; above 120 s no transcription (13615)", async () => {
    fake.setVoicemail("+12125550111", { transcript: "Please call me back.", seconds: 7 });
    app.twiml = (params) =>
      params.RecordingSid
        ? "<Response><Hangup/></Response>"
        : `<Response><Record action="${app.url}/voice?step=recorded" maxLength="120" transcribe="true" transcribeCallback="${app.url}/transcribed"/></Response>`;
    try {
      const call = await fake.inboundCall({ from: "+12125550111", to: FROM, url: `${app.url}/voice` });
      await fake.waitForStatus(call.sid, "completed");
      await fake.flush();
      const action = voiceRequests(call.sid).find((r) => r.url.includes("step=recorded"))!;
      expect(action.params).toMatchObject({ RecordingDuration: "7", RecordingSid: expect.stringMatching(/^RE[0-9a-f]{32}$/) });
      expect(action.params.RecordingUrl).toContain(`/Recordings/${action.params.RecordingSid}`);
      expect(signedRight(action)).toBe(true);
      const transcription = app.requests.find((r) => r.path === "/transcribed" && r.params.CallSid === call.sid)!;
      expect(transcription.params).toMatchObject({
        TranscriptionStatus: "completed",
        TranscriptionText: "Please call me back.",
        RecordingSid: action.params.RecordingSid,
        TranscriptionSid: expect.stringMatching(/^TR[0-9a-f]{32}$/),
      });
      expect(signedRight(transcription)).toBe(true);

      app.twiml = (params) =>
        params.RecordingSid
          ? "<Response><Hangup/></Response>"
          : `<Response><Record action="${app.url}/voice" maxLength="600" transcribe="true" transcribeCallback="${app.url}/transcribed"/></Response>`;
      const long = await fake.inboundCall({ from: "+12125550111", to: FROM, url: `${app.url}/voice` });
      await fake.waitForStatus(long.sid, "completed");
      await fake.flush();
      expect(fake.calls.get(long.sid)!.errors).toContainEqual({ code: 13615, message: "Record: maxLength too high for transcription" });
      expect(app.requests.some((r) => r.path === "/transcribed" && r.params.CallSid === long.sid)).toBe(false);
    } finally {
      app.twiml = streamTwiml;
    }
  });

  it("runs <Dial>: rings the number and asks its action with DialCallStatus (busy when that number is busy)", async () => {
    fake.setOutcome("+12125550177", "busy");
    app.twiml = (params) =>
      params.DialCallStatus
        ? "<Response><Hangup/></Response>"
        : `<Response><Dial action="${app.url}/voice?step=dialled" timeout="20">+12125550177</Dial></Response>`;
    try {
      const call = await fake.inboundCall({ from: "+12125550112", to: FROM, url: `${app.url}/voice` });
      await fake.waitForStatus(call.sid, "completed");
      expect(fake.calls.get(call.sid)!.dialled).toEqual([
        { number: "+12125550177", attrs: expect.objectContaining({ timeout: "20" }), status: "busy" },
      ]);
      const action = voiceRequests(call.sid).find((r) => r.url.includes("step=dialled"))!;
      expect(action.params).toMatchObject({ DialCallStatus: "busy", DialCallSid: expect.stringMatching(/^CA/) });
    } finally {
      app.twiml = streamTwiml;
      fake.setOutcome("+12125550177", null);
    }
  });

  it("redirects a call in its media stream to new TwiML (REST Twiml): the stream stops, the new document runs; an ended call is 21220", async () => {
    app.twiml = streamTwiml;
    const call = await fake.inboundCall({ from: "+12125550113", to: FROM, url: `${app.url}/voice` });
    const stream = await app.streamFor(call.sid);
    await client.calls(call.sid).update({ twiml: "<Response><Say>Putting you through</Say><Dial>+12125550178</Dial></Response>" });
    await stream.next("stop");
    const ended = await fake.waitForStatus(call.sid, "completed");
    expect(ended.said).toEqual(["Putting you through"]);
    expect(ended.dialled.map((d) => d.number)).toEqual(["+12125550178"]);
    const refused = await failure(() => client.calls(call.sid).update({ twiml: "<Response><Hangup/></Response>" }));
    expect(refused).toMatchObject({ status: 400, code: 21220 });
  });
});
