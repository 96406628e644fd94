// The browser voice path's added latency: how long a caller's 20 ms frame takes from the page's
// socket through Sakina's server (/web-call-stream, the realtime bridge with the browser's leg)
// to the model and back, on loopback, beside the bare relay (the least a bridge can do, from
// ../shared/bench-cases/voice-bridge) measured in the same run against the same fake model.
//
//   npm run build && npm run bench:browser-voice [-- --callers 1,10,50 --seconds 8]
//
// The model is the shared bench's echo fake (bench/voice-bridge/fake-realtime.mjs): each
// input_audio_buffer.append comes straight back as an audio delta with the same audio, so the
// round trip measured by the "page" is the two hops through the server (and loopback's four).
// Sakina's server runs as users run it (server.js, the production build, its own process, PGlite);
// the bare relay in its own process; the callers and the fake in this one. Each caller has its own
// web call (POST /api/calls), streams 24 kHz PCM16 frames every 20 ms carrying their caller and
// sequence numbers, and echoes marks as the page does. The first second of each run is left out.
import { spawn } from "node:child_process";
import net from "node:net";
import path from "node:path";
import { parseArgs } from "node:util";
import WebSocket from "ws";
import { startServer } from "../tests/support/server";
import { startFakeRealtime } from "./voice-bridge/fake-realtime.mjs";

const { values: args } = parseArgs({
  options: { callers: { type: "string", default: "1,10,50" }, seconds: { type: "string", default: "8" } },
});
const CALLERS = args.callers.split(",").map(Number);
const SECONDS = Number(args.seconds);
const FRAME_BYTES = 960; // 20 ms at 24 kHz, 16-bit
const WARMUP_MS = 1000;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });

const fake = await startFakeRealtime({ port: 0 });
const modelUrl = `http://127.0.0.1:${fake.port}/v1`;
const sakina = await startServer(
  { OPENAI_API_KEY: "sk-bench", OPENAI_BASE_URL: modelUrl, TRUST_PROXY: "1", SEED_DEMO_DATA: "false" },
  { asDeployed: true },
);
const relayPort = await freePort();
const relay = spawn(
  process.execPath,
  [
    path.join(import.meta.dirname, "voice-bridge/bare-relay.mjs"),
    "--port",
    String(relayPort),
    "--upstream",
    `ws://127.0.0.1:${fake.port}/v1/realtime`,
  ],
  { stdio: ["ignore", "pipe", "inherit"] },
);
await new Promise<void>((resolve) => relay.stdout!.once("data", () => resolve()));

let visitor = 0;
/** A web call of Sakina's, as the page starts one: its stream URL and token. */
async function sakinaCaller() {
  visitor += 1;
  const response = await fetch(`${sakina.url}/api/calls`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": `198.51.${visitor >> 8}.${visitor & 255}` },
    body: JSON.stringify({ customerName: "Bench", phoneNumber: "0501234567" }),
  });
  if (response.status !== 201 && response.status !== 200) throw new Error(`POST /api/calls: ${response.status} ${await response.text()}`);
  const { token } = (await response.json()) as { token: string };
  return { url: `${sakina.url.replace(/^http/, "ws")}/web-call-stream/${token.split(".")[0]}`, token };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** `callers` pages streaming for SECONDS: the round trips of the frames sent after the warm-up. */
async function run(target: "sakina" | "relay", callers: number) {
  const sockets: WebSocket[] = [];
  const sent = new Map<string, number>();
  const trips: number[] = [];
  let measuredSent = 0;
  for (let c = 0; c < callers; c++) {
    const { url, token } = target === "sakina" ? await sakinaCaller() : { url: `ws://127.0.0.1:${relayPort}/`, token: "" };
    const socket = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
    });
    socket.send(
      JSON.stringify({ event: "start", streamSid: `MZbench${c}`, start: { streamSid: `MZbench${c}`, customParameters: { token } } }),
    );
    socket.on("message", (data) => {
      const text = String(data);
      if (text.startsWith('{"event":"mark"')) {
        // The page answers a mark once the audio before it has played: at once here (nothing is played).
        const name = (JSON.parse(text) as { mark: { name: string } }).mark.name;
        socket.send(JSON.stringify({ event: "mark", mark: { name } }));
        return;
      }
      const at = text.indexOf('"payload":"');
      if (at === -1) return;
      const head = Buffer.from(text.slice(at + 11, at + 11 + 12), "base64");
      const key = `${head.readUInt32LE(0)}:${head.readUInt32LE(4)}`;
      const start = sent.get(key);
      if (start !== undefined) {
        trips.push(performance.now() - start);
        sent.delete(key);
      }
    });
    sockets.push(socket);
  }
  // The model sessions open (and the greeting is asked for) before the clock starts.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const began = performance.now();
  let seq = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      if (now - began > SECONDS * 1000) {
        clearInterval(timer);
        resolve();
        return;
      }
      seq += 1;
      sockets.forEach((socket, c) => {
        const frame = Buffer.alloc(FRAME_BYTES);
        frame.writeUInt32LE(c, 0);
        frame.writeUInt32LE(seq, 4);
        if (now - began >= WARMUP_MS) {
          sent.set(`${c}:${seq}`, performance.now());
          measuredSent += 1;
        }
        socket.send(`{"event":"media","media":{"payload":"${frame.toString("base64")}"}}`);
      });
    }, 20);
  });
  await new Promise((resolve) => setTimeout(resolve, 1000));
  for (const socket of sockets) socket.close();
  trips.sort((a, b) => a - b);
  return { p50: percentile(trips, 50), p90: percentile(trips, 90), p99: percentile(trips, 99), loss: 1 - trips.length / measuredSent };
}

const rows: string[][] = [];
try {
  for (const callers of CALLERS) {
    // Interleaved, so both see the same machine at the same moment.
    const relayResult = await run("relay", callers);
    const sakinaResult = await run("sakina", callers);
    const ms = (value: number) => value.toFixed(2);
    rows.push([
      String(callers),
      `${ms(sakinaResult.p50)} / ${ms(sakinaResult.p90)} / ${ms(sakinaResult.p99)}`,
      `${ms(relayResult.p50)} / ${ms(relayResult.p90)} / ${ms(relayResult.p99)}`,
      `${ms(sakinaResult.p50 - relayResult.p50)} / ${ms(sakinaResult.p99 - relayResult.p99)}`,
      `${(sakinaResult.loss * 100).toFixed(1)} % / ${(relayResult.loss * 100).toFixed(1)} %`,
    ]);
  }
} finally {
  relay.kill();
  await sakina.stop();
  await fake.close();
}

console.log(`\nBrowser voice round trip on loopback (page → server → model → server → page), ${SECONDS} s per point, ms`);
console.log("| callers | Sakina p50 / p90 / p99 | bare relay p50 / p90 / p99 | added by Sakina p50 / p99 | loss Sakina / relay |");
console.log("|---|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
