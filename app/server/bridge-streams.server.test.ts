import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import twilio from "twilio";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCall, newStreamToken, setStreamToken } from "#models/calls";
import { startFakeRealtime, type FakeRealtime } from "../../tests/fakes/openai-realtime";
import { createTestServices } from "../../tests/support/services";
import { waitFor } from "../../tests/support/wait";
import { mediaStreamEndpoint } from "./bridge-streams.server";

// The bridge process's own endpoint: Twilio is sent to MEDIA_STREAM_ORIGIN, not to this address.
const ORIGIN = "wss://voice.sakina.test";
const authToken = randomBytes(16).toString("hex");
let fake: FakeRealtime;
let services: Awaited<ReturnType<typeof createTestServices>>;
let endpoint: ReturnType<typeof mediaStreamEndpoint>;
let server: http.Server;
let port: number;

beforeAll(async () => {
  fake = await startFakeRealtime();
  // Every append comes back at once as audio of the same length.
  fake.setEchoMode(true);
  services = await createTestServices(
    {
      TWILIO_ACCOUNT_SID: `AC${"0".repeat(32)}`,
      TWILIO_AUTH_TOKEN: authToken,
      TWILIO_FROM_NUMBER: "+15005550006",
      TWILIO_API_URL: "http://127.0.0.1:9",
      OPENAI_API_KEY: fake.apiKey,
      OPENAI_BASE_URL: fake.url,
      MEDIA_STREAM_ORIGIN: ORIGIN,
    },
    { runWorkers: false },
  );
  endpoint = mediaStreamEndpoint(services, { heartbeat: true });
  server = http.createServer();
  server.on("upgrade", endpoint.upgrade);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await endpoint?.close();
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await services?.close();
  await fake?.close();
});

async function newCall() {
  const call = await createCall(services.db, {
    purpose: "test",
    toNumber: "+12125550100",
    language: "en",
    voice: "alloy",
    timeLimitSeconds: 120,
  });
  const token = newStreamToken(randomBytes(24).toString("base64url"), new Date(Date.now() + 60_000));
  await setStreamToken(services.db, call.id, token);
  return { id: call.id, token };
}

/** Opens the stream at `path`, signed (like Twilio) over `signedUrl`; rejects with the HTTP status of a refusal. */
function connect(path: string, signedUrl: string) {
  const socket = new WebSocket(`ws://127.0.0.1:${port}${path}`, {
    headers: { "X-Twilio-Signature": twilio.getExpectedTwilioSignature(authToken, signedUrl, {}) },
  });
  return new Promise<WebSocket>((resolve, reject) => {
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) => reject(new Error(String(response.statusCode))));
  });
}

describe("the media-stream endpoint", () => {
  it("takes only the streams Twilio signed for the URL it was given (MEDIA_STREAM_ORIGIN's)", async () => {
    const { id } = await newCall();
    const local = `ws://127.0.0.1:${port}/media-stream/${id}`;
    await expect(connect(`/media-stream/${id}`, local)).rejects.toThrow("403");
    await expect(connect(`/somewhere/${id}`, `${ORIGIN}/somewhere/${id}`)).rejects.toThrow("404");
    const socket = await connect(`/media-stream/${id}`, `${ORIGIN}/media-stream/${id}`);
    socket.close();
  });

  it("relays the caller's audio whatever the JSON's layout, never Twilio's outbound track, and marks every quarter second", async () => {
    const { id, token } = await newCall();
    const sessions = fake.sessions.length;
    const socket = await connect(`/media-stream/${id}`, `${ORIGIN}/media-stream/${id}`);
    const received: { event: string; streamSid: string; media?: { payload: string }; mark?: { name: string } }[] = [];
    socket.on("message", (data) => received.push(JSON.parse(String(data))));
    const streamSid = `MZ${randomBytes(16).toString("hex")}`;
    socket.send(
      JSON.stringify({ event: "start", sequenceNumber: "1", start: { streamSid, callSid: "CA1", customParameters: { token } }, streamSid }),
    );
    await fake.waitForServerEvent(sessions, "session.updated");

    const frame = (i: number) => Buffer.alloc(160, i).toString("base64");
    // Twilio's copy of what the caller hears is not the caller's speech.
    socket.send(JSON.stringify({ event: "media", sequenceNumber: "2", media: { track: "outbound", payload: frame(99) }, streamSid }));
    // Another key order, with spaces: the parsed path.
    socket.send(`{ "streamSid": "${streamSid}", "media": { "payload": "${frame(0)}", "track": "inbound" }, "event": "media" }`);
    // Twilio's own layout: the text path. 13 frames are 260 ms of audio, which the echo returns.
    for (let i = 1; i < 13; i++) {
      socket.send(
        `{"event":"media","sequenceNumber":"${i + 2}","media":{"track":"inbound","chunk":"${i}","timestamp":"${i * 20}","payload":"${frame(i)}"},"streamSid":"${streamSid}"}`,
      );
    }
    const mark = await waitFor(() => received.find((m) => m.event === "mark"), { what: "a mark" });
    const audio = received.filter((m) => m.event === "media");
    expect(fake.sessions[sessions]!.audioIn.appends).toBe(13);
    expect(audio).toHaveLength(13);
    expect(audio.every((m) => m.streamSid === streamSid && Buffer.from(m.media!.payload, "base64").length === 160)).toBe(true);
    // The echo keeps bytes 4-159 of what it got: none of it is the outbound frame's.
    expect(audio.map((m) => Buffer.from(m.media!.payload, "base64")[100])).not.toContain(99);
    // One mark after the 13 frames' 2,080 bytes, none before.
    expect(received.indexOf(mark)).toBe(13);
    expect(mark.streamSid).toBe(streamSid);
    socket.close();
  });
});
