#!/usr/bin/env node
// Simulates N concurrent Twilio Media Streams calls against a bridge and times every audio frame.
//
// Each call opens a WebSocket to the bridge, sends `connected` and `start`, then one `media`
// frame (160 bytes of mu-law = 20 ms) every 20 ms. The first 18 bytes of each payload carry a
// magic, the call index, a sequence number and the send time, so when the bridge's fake model
// (fake-realtime.mjs) echoes the audio and the bridge relays it back as a `media` message, the
// frame's round trip is known. Like Twilio, a `mark` from the bridge is answered with the same
// `mark` (as if the audio before it had just played) unless --no-echo-marks.
//
//   node load.mjs --url ws://127.0.0.1:5050/media-stream --calls 100 --duration 10 \
//                 [--warmup 2] [--pid BRIDGE_PID] [--fake-pid PID] [--align spread|burst]
//
// One timer drives every call: a 1 ms tick against an absolute schedule (no drift), with call i
// sending in slot i % 20 so that calls are spread over the 20 ms frame period as independent
// phone calls are. --align burst puts every call in slot 0 instead (worst case).
// Prints a human summary to stderr and one JSON line to stdout.
//
// Copied from the shared harness (../../../shared/bench-cases/voice-bridge) for Sakina's bridge,
// which refuses a stream Twilio did not sign or that has no token for its call. Two additions, and
// nothing else changes what is measured:
//   --calls-file F   JSON array, one { url, token } per call: call i connects to its own URL
//                    (/media-stream/{callId}) and sends the token in start.customParameters.token
//   --auth-token T   signs each handshake like Twilio: X-Twilio-Signature, HMAC-SHA1 of the URL
import WebSocket from "ws";
import { parseArgs } from "node:util";
import { readFileSync, readdirSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { createHmac, randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import { startFakeRealtime } from "./fake-realtime.mjs";

const { values: opts } = parseArgs({
  options: {
    url: { type: "string", default: "ws://127.0.0.1:5050/media-stream" },
    calls: { type: "string", default: "100" },
    duration: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    settle: { type: "string", default: "500" },
    drain: { type: "string", default: "2" },
    "connect-timeout": { type: "string", default: "20" },
    "connect-concurrency": { type: "string", default: "64" },
    pid: { type: "string" },
    "fake-pid": { type: "string" },
    "embed-fake": { type: "string" },
    "fake-api": { type: "string", default: "ga" },
    "no-tree": { type: "boolean", default: false },
    "no-echo-marks": { type: "boolean", default: false },
    align: { type: "string", default: "spread" },
    label: { type: "string", default: "" },
    "calls-file": { type: "string" },
    "auth-token": { type: "string" },
    quiet: { type: "boolean", default: false },
  },
});

const CALLS = Number(opts.calls);
const DURATION_S = Number(opts.duration);
const WARMUP_S = Number(opts.warmup);
const FRAME_MS = 20;
const SLOT_MS = 1;
const SLOTS = FRAME_MS / SLOT_MS;
const WARMUP_FRAMES = Math.round((WARMUP_S * 1000) / FRAME_MS);
const MEASURED_FRAMES = Math.round((DURATION_S * 1000) / FRAME_MS);
const TOTAL_FRAMES = WARMUP_FRAMES + MEASURED_FRAMES;
const ECHO_MARKS = !opts["no-echo-marks"];
const log = opts.quiet ? () => {} : (...a) => console.error(...a);
const CALL_TARGETS = opts["calls-file"] ? JSON.parse(readFileSync(opts["calls-file"], "utf8")) : null;
if (CALL_TARGETS && CALL_TARGETS.length < CALLS) throw new Error(`--calls-file has ${CALL_TARGETS.length} calls, ${CALLS} needed`);
// Twilio's signature over a URL with no POST parameters: base64 HMAC-SHA1 of the URL itself.
const sign = (url) => createHmac("sha1", opts["auth-token"]).update(url).digest("base64");

// ---------- payload: 18-byte header (base64 = exactly 24 chars) + 142 bytes of a 400 Hz tone ----
const MAGIC = Buffer.from([0x56, 0x42]); // "VB"
const HEADER_BYTES = 18;
const HEADER_B64 = 24;
const FRAME_BYTES = 160;
const FRAME_B64 = 216;
const filler = Buffer.alloc(FRAME_BYTES - HEADER_BYTES);
for (let i = 0; i < filler.length; i++) {
  filler[i] = linearToMulaw(Math.round(8000 * Math.sin((2 * Math.PI * 400 * (i + HEADER_BYTES)) / 8000)));
}
const FILLER_B64 = filler.toString("base64"); // valid to append because 18 % 3 === 0
const header = Buffer.alloc(HEADER_BYTES);
MAGIC.copy(header, 0);

function encodeHeader(call, seq, t) {
  header.writeUInt32LE(call, 2);
  header.writeUInt32LE(seq, 6);
  header.writeDoubleLE(t, 10);
  return header.toString("base64");
}

function linearToMulaw(sample) {
  const BIAS = 0x84;
  const sign = sample < 0 ? 0x80 : 0;
  let s = Math.min(Math.abs(sample), 32635) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

// ---------- process CPU from /proc ---------------------------------------------------------------
const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"]).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

function procStat(pid) {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, "utf8");
    const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
    return { ppid: Number(f[1]), ticks: Number(f[11]) + Number(f[12]) };
  } catch {
    return null;
  }
}

function processTree(rootPids, withChildren) {
  const pids = new Set(rootPids);
  if (!withChildren) return [...pids];
  const parents = new Map();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const st = procStat(name);
    if (st) parents.set(Number(name), st.ppid);
  }
  let grew = true;
  while (grew) {
    grew = false;
    for (const [pid, ppid] of parents) {
      if (!pids.has(pid) && pids.has(ppid)) {
        pids.add(pid);
        grew = true;
      }
    }
  }
  return [...pids];
}

function cpuTicks(pids) {
  const m = new Map();
  for (const pid of pids) {
    const st = procStat(pid);
    if (st) m.set(pid, st.ticks);
  }
  return m;
}

function cpuPercent(before, after, wallMs) {
  let ticks = 0;
  for (const [pid, t] of after) if (before.has(pid)) ticks += t - before.get(pid);
  return Math.round(((ticks / CLK_TCK) * 1000 * 1000) / wallMs) / 10; // percent of one core
}

function rssMb(pids) {
  let kb = 0;
  for (const pid of pids) {
    try {
      const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      if (m) kb += Number(m[1]);
    } catch {
      // the process has ended
    }
  }
  return Math.round(kb / 102.4) / 10;
}

// Per-core time from /proc/stat: busy (all but idle and iowait), softirq (loopback TCP work is
// charged here, not to any process) and steal (time the hypervisor gave to someone else).
function coreTimes() {
  const cores = {};
  try {
    for (const l of readFileSync("/proc/stat", "utf8").split("\n")) {
      const m = /^cpu(\d+) (.*)/.exec(l);
      if (!m) continue;
      const [user, nice, system, idle, iowait, irq, softirq, steal] = m[2].trim().split(/\s+/).map(Number);
      const total = user + nice + system + idle + iowait + irq + softirq + steal;
      cores[m[1]] = { total, busy: total - idle - iowait, softirq, steal };
    }
  } catch {
    // no /proc/stat: no per-core figures
  }
  return cores;
}

function coreUsage(before, after) {
  const out = {};
  for (const [cpu, a] of Object.entries(after)) {
    const b = before[cpu];
    if (!b || a.total <= b.total) continue;
    const dt = a.total - b.total;
    const pct = (x) => Math.round(((a[x] - b[x]) / dt) * 1000) / 10;
    out[cpu] = { busy: pct("busy"), softirq: pct("softirq"), steal: pct("steal") };
  }
  return out;
}

const parsePids = (s) => (s ? s.split(",").map(Number).filter(Boolean) : []);
const bridgeRoots = parsePids(opts.pid);
const fakeRoots = parsePids(opts["fake-pid"]);

// ---------- calls ------------------------------------------------------------------------------
const runId = randomBytes(8).toString("hex");
const sid = (prefix, i) => prefix + runId + i.toString(16).padStart(16, "0");
const ACCOUNT_SID = "AC" + "0".repeat(32);
const PAYLOAD_KEY = Buffer.from('"payload":"');
const MARK_EVENT = Buffer.from('"event":"mark"');
const CLEAR_EVENT = Buffer.from('"event":"clear"');
const NAME_KEY = Buffer.from('"name":"');

const rtts = new Float64Array(CALLS * MEASURED_FRAMES);
let rttCount = 0;
const counters = {
  framesSent: 0,
  framesReturned: 0,
  duplicates: 0,
  misrouted: 0,
  warmupReturned: 0,
  unknownPayloads: 0,
  marksReceived: 0,
  marksEchoed: 0,
  clears: 0,
  otherMessages: 0,
  closedEarly: 0,
  errors: 0,
};

class Call {
  constructor(index) {
    this.index = index;
    this.streamSid = sid("MZ", index);
    this.callSid = sid("CA", index);
    this.seq = 0; // Twilio's sequenceNumber, over all messages
    this.chunk = 0;
    this.ws = null;
    this.open = false;
    this.done = false;
    this.returned = new Uint8Array(TOTAL_FRAMES);
    this.gotMeasured = false;
  }

  connect(url, timeoutMs) {
    const target = CALL_TARGETS?.[this.index];
    if (target) url = target.url;
    return new Promise((resolve) => {
      const ws = new WebSocket(url, {
        headers: opts["auth-token"] ? { "X-Twilio-Signature": sign(url) } : {},
        perMessageDeflate: false,
        skipUTF8Validation: true,
        // An all-zero masking key makes ws skip the XOR on our side; the bridge still unmasks.
        generateMask: (mask) => mask.fill(0),
        handshakeTimeout: timeoutMs,
      });
      this.ws = ws;
      ws.on("open", () => {
        this.open = true;
        ws.send('{"event":"connected","protocol":"Call","version":"1.0.0"}');
        ws.send(
          JSON.stringify({
            event: "start",
            sequenceNumber: String(++this.seq),
            start: {
              accountSid: ACCOUNT_SID,
              streamSid: this.streamSid,
              callSid: this.callSid,
              tracks: ["inbound"],
              customParameters: { benchCall: String(this.index), ...(target ? { token: target.token } : {}) },
              mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
            },
            streamSid: this.streamSid,
          }),
        );
        resolve(true);
      });
      ws.on("message", (data) => this.onMessage(data));
      ws.on("error", () => {
        counters.errors++;
        resolve(false);
      });
      ws.on("close", () => {
        if (this.open && !this.done) counters.closedEarly++;
        this.open = false;
        resolve(false);
      });
    });
  }

  sendFrame(frame) {
    const t = performance.now();
    const payload = encodeHeader(this.index, frame, t) + FILLER_B64;
    this.ws.send(
      `{"event":"media","sequenceNumber":"${++this.seq}","media":{"track":"inbound","chunk":"${++this
        .chunk}","timestamp":"${frame * FRAME_MS}","payload":"${payload}"},"streamSid":"${this.streamSid}"}`,
    );
    if (frame >= WARMUP_FRAMES) counters.framesSent++;
  }

  onMessage(data) {
    const now = performance.now();
    if (typeof data === "string") data = Buffer.from(data);
    let at = data.indexOf(PAYLOAD_KEY);
    if (at !== -1) {
      at += PAYLOAD_KEY.length;
      const end = data.indexOf(0x22, at);
      if (end - at === FRAME_B64) return this.onAudio(Buffer.from(data.toString("latin1", at, at + HEADER_B64), "base64"), now);
      return this.onAudio(Buffer.from(data.toString("latin1", at, end), "base64"), now);
    }
    if (data.indexOf(MARK_EVENT) !== -1) {
      counters.marksReceived++;
      if (ECHO_MARKS) {
        let name = "";
        const n = data.indexOf(NAME_KEY);
        if (n !== -1) name = data.toString("latin1", n + NAME_KEY.length, data.indexOf(0x22, n + NAME_KEY.length));
        this.ws.send(`{"event":"mark","sequenceNumber":"${++this.seq}","streamSid":"${this.streamSid}","mark":{"name":"${name}"}}`);
        counters.marksEchoed++;
      }
      return;
    }
    if (data.indexOf(CLEAR_EVENT) !== -1) {
      counters.clears++;
      return;
    }
    // Unusual formatting (spaces, another key order): fall back to a real parse.
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      counters.otherMessages++;
      return;
    }
    if (msg.event === "media" && msg.media?.payload) return this.onAudio(Buffer.from(msg.media.payload, "base64"), now);
    counters.otherMessages++;
  }

  // Audio may come back whole, or re-chunked by the bridge: find every header in it.
  onAudio(audio, now) {
    let found = false;
    for (let at = audio.indexOf(MAGIC); at !== -1 && at + HEADER_BYTES <= audio.length; at = audio.indexOf(MAGIC, at + 1)) {
      const call = audio.readUInt32LE(at + 2);
      const frame = audio.readUInt32LE(at + 6);
      if (call >= CALLS || frame >= TOTAL_FRAMES) continue;
      found = true;
      if (call !== this.index) {
        counters.misrouted++;
        continue;
      }
      if (this.returned[frame]) {
        counters.duplicates++;
        continue;
      }
      this.returned[frame] = 1;
      if (frame < WARMUP_FRAMES) {
        counters.warmupReturned++;
        continue;
      }
      counters.framesReturned++;
      this.gotMeasured = true;
      rtts[rttCount++] = now - audio.readDoubleLE(at + 10);
    }
    if (!found) counters.unknownPayloads++;
  }

  stop() {
    this.done = true;
    if (!this.open) return;
    this.ws.send(
      JSON.stringify({
        event: "stop",
        sequenceNumber: String(++this.seq),
        streamSid: this.streamSid,
        stop: { accountSid: ACCOUNT_SID, callSid: this.callSid },
      }),
    );
    this.ws.close(1000);
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function percentile(sorted, q) {
  if (sorted.length === 0) return null;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return Math.round(sorted[i] * 100) / 100;
}

// ---------- run -------------------------------------------------------------------------------
if (opts["embed-fake"]) {
  const fake = await startFakeRealtime({ port: Number(opts["embed-fake"]), api: opts["fake-api"] });
  log(`load: embedded fake Realtime on ws://127.0.0.1:${fake.port} (${fake.deltaType})`);
}
const calls = Array.from({ length: CALLS }, (_, i) => new Call(i));

log(`load: ${CALLS} calls -> ${opts.url}, ${WARMUP_S}s warm-up + ${DURATION_S}s measured, align=${opts.align}`);
const connectStart = performance.now();
{
  let next = 0;
  const worker = async () => {
    while (next < calls.length) await calls[next++].connect(opts.url, Number(opts["connect-timeout"]) * 1000);
  };
  await Promise.all(Array.from({ length: Math.min(CALLS, Number(opts["connect-concurrency"])) }, worker));
}
const connectMs = performance.now() - connectStart;
const connected = calls.filter((c) => c.open).length;
log(`load: ${connected}/${CALLS} connected in ${Math.round(connectMs)} ms`);
await sleep(Number(opts.settle));

const slots = Array.from({ length: SLOTS }, () => []);
calls.forEach((c, i) => slots[opts.align === "burst" ? 0 : i % SLOTS].push(c));
const lags = [];
let coresBefore, bridgeBefore, fakeBefore, bridgePids, fakePids, cpuStart, loadCpuStart;

await new Promise((resolve) => {
  const t0 = performance.now() + 5;
  let tick = 0;
  const totalTicks = TOTAL_FRAMES * SLOTS;
  const pump = () => {
    const now = performance.now();
    while (tick < totalTicks && t0 + tick * SLOT_MS <= now) {
      const frame = Math.floor(tick / SLOTS);
      if (tick === WARMUP_FRAMES * SLOTS) {
        // Start of the measured window: sample CPU counters.
        bridgePids = processTree(bridgeRoots, !opts["no-tree"]);
        fakePids = processTree(fakeRoots, !opts["no-tree"]);
        coresBefore = coreTimes();
        bridgeBefore = cpuTicks(bridgePids);
        fakeBefore = cpuTicks(fakePids);
        loadCpuStart = process.cpuUsage();
        cpuStart = performance.now();
      }
      if (frame >= WARMUP_FRAMES) lags.push(now - (t0 + tick * SLOT_MS));
      for (const c of slots[tick % SLOTS]) if (c.open) c.sendFrame(frame);
      tick++;
    }
    if (tick >= totalTicks) return resolve();
    setTimeout(pump, Math.max(0, t0 + tick * SLOT_MS - performance.now()));
  };
  setTimeout(pump, 5);
});

const wallMs = performance.now() - cpuStart;
const cores = coreUsage(coresBefore, coreTimes());
const bridgeCpu = bridgeRoots.length ? cpuPercent(bridgeBefore, cpuTicks(bridgePids), wallMs) : null;
const fakeCpu = fakeRoots.length ? cpuPercent(fakeBefore, cpuTicks(fakePids), wallMs) : null;
const loadUsage = process.cpuUsage(loadCpuStart);
const loadCpu = Math.round(((loadUsage.user + loadUsage.system) / 1000 / wallMs) * 10000) / 100;
const bridgeRss = bridgeRoots.length ? rssMb(bridgePids) : null;

// Drain: wait until every measured frame is back or the drain time is up.
const drainDeadline = performance.now() + Number(opts.drain) * 1000;
while (counters.framesReturned < counters.framesSent && performance.now() < drainDeadline) await sleep(10);

for (const c of calls) c.stop();
await sleep(200);

const sorted = rtts.slice(0, rttCount).sort();
const lagSorted = Float64Array.from(lags).sort();
const lost = counters.framesSent - counters.framesReturned;
const result = {
  label: opts.label || undefined,
  url: opts.url,
  calls_requested: CALLS,
  calls_connected: connected,
  calls_active: calls.filter((c) => c.gotMeasured).length,
  duration_s: DURATION_S,
  warmup_s: WARMUP_S,
  align: opts.align,
  frames_expected: CALLS * MEASURED_FRAMES,
  frames_sent: counters.framesSent,
  frames_returned: counters.framesReturned,
  frames_lost: lost,
  loss_pct: counters.framesSent ? Math.round((lost / counters.framesSent) * 10000) / 100 : 100,
  rtt_ms: {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: percentile(sorted, 1),
    mean: rttCount ? Math.round((sorted.reduce((a, b) => a + b, 0) / rttCount) * 100) / 100 : null,
  },
  bridge_cpu_pct: bridgeCpu,
  // CPU time the bridge spent per relayed frame: the load-independent cost of one 20 ms frame.
  bridge_cpu_us_per_frame:
    bridgeCpu === null || !counters.framesSent ? null : Math.round(((bridgeCpu / 100) * (wallMs / 1000) * 1e6) / counters.framesSent),
  bridge_rss_mb: bridgeRss,
  load_cpu_pct: loadCpu,
  fake_cpu_pct: fakeCpu,
  cores, // per CPU: busy %, of which softirq %, and steal %
  gen_lag_ms: { p99: percentile(lagSorted, 0.99), max: percentile(lagSorted, 1) },
  connect_ms: Math.round(connectMs),
  duplicates: counters.duplicates,
  misrouted: counters.misrouted,
  unknown_payloads: counters.unknownPayloads,
  marks_received: counters.marksReceived,
  marks_echoed: counters.marksEchoed,
  clears: counters.clears,
  other_messages: counters.otherMessages,
  closed_early: counters.closedEarly,
  errors: counters.errors,
};
log(
  `load: sent ${result.frames_sent}, returned ${result.frames_returned}, lost ${result.loss_pct}%, ` +
    `rtt p50 ${result.rtt_ms.p50} p90 ${result.rtt_ms.p90} p99 ${result.rtt_ms.p99} max ${result.rtt_ms.max} ms, ` +
    `bridge cpu ${bridgeCpu}%, load cpu ${loadCpu}%, fake cpu ${fakeCpu}%`,
);
console.log(JSON.stringify(result));
process.exit(0);
