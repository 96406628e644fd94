// Call-audio bridge benchmark: N simultaneous Twilio media streams through the app's real
// bridge (app/features/voice/bridge.server.ts) to the fake OpenAI Realtime server in echo mode.
//
//   npx tsx bench/bridge.bench.ts [--calls N] [--seconds S]      (defaults: 20 calls, 10 s)
//
// Everything runs on loopback in this one process: the media-stream clients (Twilio's side),
// the HTTP server with the bridge, the app's services on a fresh embedded database, and the fake.
// Exit code 1 if any call dropped (closed early or received < 95% of the expected audio).
import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { WebSocketServer } from "ws";
import { bridgeMediaStream } from "../app/features/voice/bridge.server";
import { createCall, setStreamToken } from "../models/calls";
import { connectMediaStream, FRAME_BYTES, FRAME_MS, speech, type MediaStreamHandle } from "../tests/fakes/media-stream";
import { startFakeRealtime } from "../tests/fakes/openai-realtime";
import { createTestServices } from "../tests/support/services";

// ---- arguments ----
function numberArg(name: string, fallback: number) {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}
const CALLS = Math.floor(numberArg("calls", 20));
const SECONDS = numberArg("seconds", 10);
const FRAMES_PER_SECOND = 1000 / FRAME_MS; // 50
const EXPECTED_FRAMES = Math.round(SECONDS * FRAMES_PER_SECOND);
const SUSTAINED_SHARE = 0.95;
const SETUP_TIMEOUT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 5_000;

const authToken = randomBytes(16).toString("hex");
const warnings: string[] = [];

// ---- the fake model and the app's services ----
// audioSpeed Infinity: nothing in the fake is paced; echo mode answers each append at once.
const fake = await startFakeRealtime({ audioSpeed: Infinity });
fake.setEchoMode(true);
const services = await createTestServices(
  {
    TWILIO_ACCOUNT_SID: `AC${randomBytes(16).toString("hex")}`,
    TWILIO_AUTH_TOKEN: authToken,
    TWILIO_FROM_NUMBER: "+15005550006",
    OPENAI_API_KEY: fake.apiKey,
    OPENAI_BASE_URL: fake.url,
    NODE_ENV: "production",
  },
  { runWorkers: false },
);

// ---- the media-stream endpoint ----
// A copy of the upgrade handler in app/server/http.server.ts (createAppServer cannot be reused
// without a React Router build and process.env): same path rule, same signature check over the
// stream URL with empty params (APP_URL is unset, so only the ws:// and wss:// origins of the Host
// header), same WebSocketServer options, then the app's own bridgeMediaStream. The only addition
// is a log function that counts the bridge's warnings (it still prints them).
const mediaStreams = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
const server = http.createServer((_req, res) => res.writeHead(404).end());
server.on("upgrade", (request, socket, head) => {
  const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
  const match = /^\/media-stream\/(\d+)$/.exec(url.pathname);
  if (!match) {
    socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
    return;
  }
  const signature = request.headers["x-twilio-signature"];
  const origins = [`ws://${request.headers.host}`, `wss://${request.headers.host}`];
  const signed = origins.some((origin) =>
    services.telephony.verifySignature(typeof signature === "string" ? signature : null, `${origin}${url.pathname}`, {}),
  );
  if (!signed) {
    socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
    return;
  }
  mediaStreams.handleUpgrade(request, socket, head, (ws) =>
    bridgeMediaStream(services, ws, Number(match[1]), (message) => {
      warnings.push(message);
      console.warn(`bridge: ${message}`);
    }),
  );
});
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const port = (server.address() as AddressInfo).port;

// ---- per-call state ----
interface Leg {
  callId: number;
  stream: MediaStreamHandle;
  /** Round trip (ms) of every echoed frame, matched by the sequence number in bytes 0-3. */
  rtts: number[];
  /** Echoed frames whose sequence number was not a frame this client sent, or came twice. */
  unmatched: number;
  /** Echoed frames whose bytes 4-159 differ from what was sent (or of the wrong size). */
  corrupted: number;
  /** Set if the app closed the stream before the benchmark hung up. */
  droppedBy: string | null;
}

// The client's realtime speech is the looped 1 s clip, from offset 0: frame k is clip frame k % 50.
const speechFrames = Array.from({ length: FRAMES_PER_SECOND }, (_, k) => speech(FRAME_MS, "voice", k * FRAME_BYTES));

let hangingUp = false;

async function openLeg(): Promise<Leg> {
  const call = await createCall(services.db, {
    purpose: "customer_service",
    language: "ar",
    voice: "alloy",
    toNumber: "+15551230000",
    timeLimitSeconds: 600,
  });
  const token = randomBytes(32).toString("hex");
  await setStreamToken(services.db, call.id, token);
  const stream = await connectMediaStream({
    url: `ws://127.0.0.1:${port}/media-stream/${call.id}`,
    authToken,
    customParameters: { token },
    keepAudio: false, // the audio is checked frame by frame below; no need to keep minutes of it
  });
  const leg: Leg = { callId: call.id, stream, rtts: [], unmatched: 0, corrupted: 0, droppedBy: null };
  const seen = new Set<number>();
  stream.onMessage((message) => {
    if (message.event !== "media") return;
    // The client has just pushed this message's arrival time (same clock as inboundSendTimes).
    const arrival = stream.outboundArrivals.at(-1)!;
    const audio = Buffer.from(String(message.media?.payload ?? ""), "base64");
    if (audio.length < 4) {
      leg.corrupted++;
      return;
    }
    const seq = audio.readUInt32BE(0);
    const sentAt = stream.inboundSendTimes[seq];
    if (sentAt === undefined || seen.has(seq)) {
      leg.unmatched++;
      return;
    }
    seen.add(seq);
    leg.rtts.push(arrival - sentAt);
    if (audio.length !== FRAME_BYTES || !audio.subarray(4).equals(speechFrames[seq % FRAMES_PER_SECOND]!.subarray(4))) leg.corrupted++;
  });
  void stream.closed.then((close) => {
    if (!hangingUp) leg.droppedBy = `${close.initiator} closed with ${close.code}${close.reason ? ` (${close.reason})` : ""}`;
  });
  return leg;
}

function percentile(sorted: Float64Array, p: number) {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}
const ms = (value: number) => value.toFixed(2).padStart(8);
const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

// ---- setup: N calls, each with its bridge and model session up before any audio flows ----
const cpu = os.cpus();
console.log(
  `bridge benchmark: ${CALLS} calls x ${SECONDS} s, ${FRAMES_PER_SECOND} frames/s each way per call (${FRAME_BYTES}-byte G.711 frames)`,
);
console.log(`node ${process.version}, ${cpu.length} cores (${cpu[0]?.model.trim() ?? "unknown CPU"}), all on loopback in one process`);

const setupStart = performance.now();
const legs = await Promise.all(Array.from({ length: CALLS }, openLeg));
// Session i is the i-th model connection; all N must have taken the bridge's session.update.
await Promise.all(legs.map((_, i) => fake.waitForServerEvent(i, "session.updated", undefined, SETUP_TIMEOUT_MS)));
console.log(
  `setup: ${CALLS} streams connected and ${fake.sessions.length} model sessions up in ${(performance.now() - setupStart).toFixed(0)} ms`,
);

// ---- streaming: every client sends one frame every 20 ms for S seconds ----
// Clients start spread over one 20 ms frame period (real calls are not in phase), so the load is
// even rather than N frames in one burst every 20 ms.
// The histogram records the interval between its own timer ticks, so the sampling interval
// (LOOP_RESOLUTION_MS) is subtracted below to report the delay itself.
const LOOP_RESOLUTION_MS = 1;
const loopDelay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
loopDelay.enable();
const cpuBefore = process.cpuUsage();
const streamStart = performance.now();
await Promise.all(
  legs.map(async (leg, i) => {
    await sleep((i * FRAME_MS) / CALLS);
    leg.stream.startRealtimeAudio({ speech: true });
    await sleep(SECONDS * 1000);
    leg.stream.stopRealtimeAudio();
  }),
);
const streamWall = performance.now() - streamStart;
const cpuUsed = process.cpuUsage(cpuBefore);
loopDelay.disable();

// Let the last frames come back before counting.
const drainStart = performance.now();
while (
  performance.now() - drainStart < DRAIN_TIMEOUT_MS &&
  legs.some((leg) => leg.stream.isOpen && leg.stream.outboundArrivals.length < leg.stream.inboundSendTimes.length)
)
  await sleep(10);

// ---- results ----
let sustained = 0;
let framesIn = 0;
let framesOut = 0;
let unmatched = 0;
let corrupted = 0;
const problems: string[] = [];
for (const leg of legs) {
  const sent = leg.stream.inboundSendTimes.length;
  const received = leg.stream.outboundArrivals.length;
  framesIn += sent;
  framesOut += received;
  unmatched += leg.unmatched;
  corrupted += leg.corrupted;
  const open = leg.stream.isOpen && leg.droppedBy === null;
  if (open && received >= SUSTAINED_SHARE * EXPECTED_FRAMES) sustained++;
  else
    problems.push(
      `call ${leg.callId}: ${open ? "open" : `dropped (${leg.droppedBy ?? "closed"})`}, ${received}/${EXPECTED_FRAMES} frames back`,
    );
}
const rtts = Float64Array.from(legs.flatMap((leg) => leg.rtts)).sort();
const mean = rtts.reduce((sum, value) => sum + value, 0) / (rtts.length || 1);
const appendsAtFake = fake.sessions.reduce((sum, s) => sum + s.audioIn.appends, 0);
const fakeErrors = fake.sessions.reduce((sum, s) => sum + s.errors.length, 0);
const protocolErrors = legs.reduce((sum, leg) => sum + leg.stream.errors.length, 0);
const marksEchoed = legs.reduce((sum, leg) => sum + leg.stream.marksEchoed.length, 0);
const cpuMs = (cpuUsed.user + cpuUsed.system) / 1000;
const loopMs = (ns: number) => Math.max(0, ns / 1e6 - LOOP_RESOLUTION_MS).toFixed(2);

console.log("");
console.log(
  `calls sustained: ${sustained}/${CALLS} (stream open to the end and >= ${SUSTAINED_SHARE * 100}% of ${EXPECTED_FRAMES} frames back)`,
);
console.log(
  `frames in  (client -> bridge): ${framesIn}  (${(framesIn / (streamWall / 1000)).toFixed(0)}/s); appends reaching the fake: ${appendsAtFake}`,
);
console.log(
  `frames out (bridge -> client): ${framesOut}  (${(framesOut / (streamWall / 1000)).toFixed(0)}/s); marks echoed back: ${marksEchoed}`,
);
console.log(
  `echoed frames unmatched: ${unmatched}, corrupted: ${corrupted}; fake errors: ${fakeErrors}; client protocol errors: ${protocolErrors}; bridge warnings: ${warnings.length}`,
);
console.log("");
console.log("per-frame round trip, client send -> matching echo back at the client (ms):");
console.log("   frames       p50       p95       p99       max      mean");
console.log(
  `${String(rtts.length).padStart(9)}${ms(percentile(rtts, 50))}  ${ms(percentile(rtts, 95))}  ${ms(percentile(rtts, 99))}  ${ms(rtts.at(-1) ?? NaN)}  ${ms(mean)}`,
);
console.log("  (the path crosses the bridge twice and the fake once, all sharing this process's one event loop;");
console.log("   the fake exposes no echo timing, so this is an upper bound on the time spent in the bridge)");
console.log("");
console.log(
  `process CPU during the ${(streamWall / 1000).toFixed(1)} s of streaming: ${cpuMs.toFixed(0)} ms ` +
    `(user ${(cpuUsed.user / 1000).toFixed(0)}, system ${(cpuUsed.system / 1000).toFixed(0)}) = ` +
    `${((cpuMs / streamWall) * 100).toFixed(1)}% of one core, for clients + bridge + fake together`,
);
console.log(
  `event-loop delay (monitorEventLoopDelay, ${LOOP_RESOLUTION_MS} ms sampling, interval minus ${LOOP_RESOLUTION_MS} ms): ` +
    `p50 ${loopMs(loopDelay.percentile(50))} ms, p99 ${loopMs(loopDelay.percentile(99))} ms, max ${loopMs(loopDelay.max)} ms, mean ${loopMs(loopDelay.mean)} ms`,
);
for (const problem of problems) console.log(`  ${problem}`);

// ---- clean shutdown: callers hang up (stop + close), then the server, services and fake ----
hangingUp = true;
await Promise.all(legs.map((leg) => leg.stream.hangup()));
for (const client of mediaStreams.clients) client.close(1001, "server shutting down");
mediaStreams.close();
server.closeAllConnections();
await new Promise<void>((resolve) => server.close(() => resolve()));
await services.close();
await fake.close();

const ok = sustained === CALLS;
console.log(ok ? "\nall calls sustained" : `\n${CALLS - sustained} call(s) dropped`);
process.exitCode = ok ? 0 : 1;
