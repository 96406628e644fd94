#!/usr/bin/env node
// Sweeps a bridge over N concurrent calls and prints a table and the headline figures.
//
// For every N it starts a fresh fake Realtime server (CPU 1), a fresh bridge (CPU 0, from --cmd)
// and then load.mjs (CPU 1), so no point inherits another's state.
//
//   node sweep.mjs --label A --cmd 'node bare-relay.mjs --port {PORT} --upstream {REALTIME_URL}'
//   node sweep.mjs --label B --cwd /path/to/bridge --path /media-stream --cmd 'node server.js'
//   node sweep.mjs --label X --url ws://127.0.0.1:5050/media-stream --pid 1234   # already running,
//                  its Realtime URL set to ws://127.0.0.1:8099 (--fake-port); the sweep runs the fake
//
// The bridge command gets, in its environment and as {NAME} substitutions in --cmd:
//   PORT               the port it must listen on
//   REALTIME_URL       ws://127.0.0.1:<fake>/v1/realtime (the fake's full Realtime URL)
//   FAKE_REALTIME_URL  ws://127.0.0.1:<fake>             (base, for URL-rewriting preloads)
//   OPENAI_BASE_URL    http://127.0.0.1:<fake>/v1        (for SDK-based bridges)
//   OPENAI_API_KEY     sk-bench-dummy unless already set
// and {HARNESS} (this folder) in --cmd; --env NAME=VALUE adds more variables.
//
// Headline: "calls sustained" = the largest N such that it and every smaller N held
// p99 <= 20 ms, loss < 1 %, all calls connected and no frame misrouted; then --refine bisection
// steps between that N and the first failing one. Also the p99 at N=100.
//
// Copied from the shared harness (../../../shared/bench-cases/voice-bridge) for Sakina. As a
// command it works as before. It is also a module: `sweeper(options)` gives `measure(n, run,
// target)`, one point of one bridge (fresh fake, bridge and load.mjs, pinned as above), and the
// table's `header()` and `row(r)`, so that bench/bridge.bench.ts can interleave two bridges point
// by point. A target may have `prepare(n, { port })`, run before its bridge starts, which returns
// more load.mjs arguments (Sakina's calls need their own URLs and tokens).
import { spawn } from "node:child_process";
import { createServer, connect } from "node:net";
import { mkdirSync, openSync, appendFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const SWEEP_OPTIONS = {
  label: { type: "string", default: "bridge" },
  cmd: { type: "string" },
  cwd: { type: "string", default: process.cwd() },
  env: { type: "string", multiple: true, default: [] },
  url: { type: "string" },
  pid: { type: "string" },
  path: { type: "string", default: "/media-stream" },
  "fake-port": { type: "string" },
  "fake-api": { type: "string", default: "ga" },
  "embed-fake": { type: "boolean", default: false },
  ns: { type: "string", default: "25,50,100,200,400,800" },
  duration: { type: "string", default: "10" },
  warmup: { type: "string", default: "2" },
  refine: { type: "string", default: "3" },
  runs: { type: "string", default: "1" },
  "bridge-cpu": { type: "string", default: "0" },
  "load-cpu": { type: "string", default: "1" },
  "no-pin": { type: "boolean", default: false },
  "no-echo-marks": { type: "boolean", default: false },
  align: { type: "string", default: "spread" },
  "p99-limit": { type: "string", default: "20" },
  "stop-p99": { type: "string", default: "100" },
  "stop-loss": { type: "string", default: "1" },
  "log-dir": { type: "string", default: join(tmpdir(), "voice-bridge-bench") },
  out: { type: "string" },
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

async function waitForPort(port, ms, child) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`process exited with ${child.exitCode} before listening`);
    const ok = await new Promise((r) => {
      const s = connect(port, "127.0.0.1", () => {
        s.destroy();
        r(true);
      });
      s.once("error", () => r(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`nothing listened on ${port} within ${ms} ms`);
}

async function stop(child) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    // already gone
  }
  const t = setTimeout(() => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }, 3000);
  await exited;
  clearTimeout(t);
}

function portIsFree(port) {
  return new Promise((resolve) => {
    const s = createServer();
    s.once("error", () => resolve(false));
    s.listen(port, "127.0.0.1", () => s.close(() => resolve(true)));
  });
}

/** The sweep's settings with their defaults, for a caller that uses it as a module. */
export function sweepDefaults() {
  return Object.fromEntries(Object.entries(SWEEP_OPTIONS).flatMap(([name, o]) => ("default" in o ? [[name, o.default]] : [])));
}

/**
 * One sweep's machinery. `opts` holds the command's settings; a target (label, cmd, cwd, env,
 * url, pid, path, prepare) defaults to the one they name.
 */
export function sweeper(opts) {
  mkdirSync(opts["log-dir"], { recursive: true });
  const P99_LIMIT = Number(opts["p99-limit"]);
  const pin = (cpu, argv) => (opts["no-pin"] ? argv : ["taskset", "-c", cpu, ...argv]);

  function start(argv, { cwd, env, logName }) {
    const fd = openSync(join(opts["log-dir"], logName), "a");
    // detached: the child leads its own process group, so stopping it stops its children too.
    return spawn(argv[0], argv.slice(1), { cwd, env, stdio: ["ignore", fd, fd], detached: true });
  }

  function runLoad(args) {
    return new Promise((resolve, reject) => {
      const argv = pin(opts["load-cpu"], ["node", join(HERE, "load.mjs"), ...args]);
      const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "inherit"] });
      let out = "";
      child.stdout.on("data", (d) => (out += d));
      child.on("exit", (code) => {
        const line = out.trim().split("\n").pop();
        try {
          resolve(JSON.parse(line));
        } catch {
          reject(new Error(`load.mjs exited ${code} without a result`));
        }
      });
    });
  }

  async function measure(n, run, target = opts) {
    // With --url the running bridge already knows where the fake is: --fake-port, 8099 by default.
    const fakePort = opts["fake-port"] ? Number(opts["fake-port"]) : target.url ? 8099 : await freePort();
    if (!(await portIsFree(fakePort))) throw new Error(`port ${fakePort} is taken: the sweep starts the fake itself`);
    let fake = null;
    let bridge = null;
    // prettier-ignore
    const loadArgs = [
      "--calls", String(n), "--duration", opts.duration, "--warmup", opts.warmup,
      "--align", opts.align, "--label", target.label, "--quiet",
    ];
    if (opts["no-echo-marks"]) loadArgs.push("--no-echo-marks");
    try {
      if (opts["embed-fake"]) {
        loadArgs.push("--embed-fake", String(fakePort), "--fake-api", opts["fake-api"]);
      } else {
        // prettier-ignore
        fake = start(pin(opts["load-cpu"], ["node", join(HERE, "fake-realtime.mjs"), "--port", String(fakePort), "--api", opts["fake-api"], "--quiet"]), {
          cwd: HERE,
          env: process.env,
          logName: "fake.log",
        });
        await waitForPort(fakePort, 10000, fake);
        loadArgs.push("--fake-pid", String(fake.pid));
      }
      let url = target.url;
      if (target.cmd) {
        const port = await freePort();
        if (target.prepare) loadArgs.push(...(await target.prepare(n, { port })));
        const vars = {
          PORT: String(port),
          REALTIME_URL: `ws://127.0.0.1:${fakePort}/v1/realtime`,
          FAKE_REALTIME_URL: `ws://127.0.0.1:${fakePort}`,
          OPENAI_BASE_URL: `http://127.0.0.1:${fakePort}/v1`,
          HARNESS: HERE,
        };
        const fill = (text) => text.replace(/\{(\w+)\}/g, (m, k) => vars[k] ?? m);
        const env = { ...process.env, OPENAI_API_KEY: process.env.OPENAI_API_KEY ?? "sk-bench-dummy", ...vars };
        for (const kv of target.env ?? []) {
          const i = kv.indexOf("=");
          env[kv.slice(0, i)] = fill(kv.slice(i + 1));
        }
        const cmd = fill(target.cmd);
        const logName = `${target.label.replace(/\W+/g, "_")}-run${run}-n${n}.log`;
        bridge = start(pin(opts["bridge-cpu"], ["sh", "-c", cmd]), { cwd: target.cwd ?? opts.cwd, env, logName });
        await waitForPort(port, 20000, bridge);
        await sleep(300);
        url = `ws://127.0.0.1:${port}${target.path ?? opts.path}`;
        loadArgs.push("--pid", String(bridge.pid));
      } else if (target.pid) {
        loadArgs.push("--pid", target.pid);
      }
      return await runLoad(["--url", url, ...loadArgs]);
    } finally {
      await stop(bridge);
      await stop(fake);
    }
  }

  const passes = (r) =>
    r.calls_connected === r.calls_requested && r.loss_pct < 1 && r.rtt_ms.p99 !== null && r.rtt_ms.p99 <= P99_LIMIT && r.misrouted === 0;
  const stopsSweep = (r) =>
    r.calls_connected < r.calls_requested || r.loss_pct > Number(opts["stop-loss"]) || !(r.rtt_ms.p99 <= Number(opts["stop-p99"]));

  // prettier-ignore
  const HEAD = [
    ["N", 5], ["conn", 5], ["sent", 8], ["returned", 9], ["loss%", 6], ["p50", 8], ["p90", 8], ["p99", 8],
    ["max", 8], ["bridge%", 8], ["us/frame", 9], ["load%", 6], ["fake%", 6], ["core0", 6], ["core1", 6],
    ["steal", 6], ["lag99", 7], ["pass", 5],
  ];
  const line = (cells) => cells.map((c, i) => String(c ?? "-").padStart(HEAD[i][1])).join(" ");
  const maxSteal = (r) => Math.max(0, ...Object.values(r.cores ?? {}).map((c) => c.steal));
  function row(r) {
    const harnessCore = r.cores?.[opts["load-cpu"]]?.busy ?? (r.load_cpu_pct ?? 0) + (r.fake_cpu_pct ?? 0);
    const flag = (harnessCore > 90 || r.gen_lag_ms.p99 > 10 ? " H" : "") + (maxSteal(r) > 2 ? " S" : "");
    // prettier-ignore
    return (
      line([
        r.calls_requested, r.calls_connected, r.frames_sent, r.frames_returned, r.loss_pct, r.rtt_ms.p50, r.rtt_ms.p90,
        r.rtt_ms.p99, r.rtt_ms.max, r.bridge_cpu_pct, r.bridge_cpu_us_per_frame, Math.round(r.load_cpu_pct),
        r.fake_cpu_pct === null ? null : Math.round(r.fake_cpu_pct), r.cores?.[opts["bridge-cpu"]]?.busy,
        r.cores?.[opts["load-cpu"]]?.busy, maxSteal(r), r.gen_lag_ms.p99, passes(r) ? "yes" : "no",
      ]) + flag
    );
  }
  const header = () => line(HEAD.map(([name]) => name));
  const LEGEND =
    "(bridge%, load%, fake%: each process's own CPU; core0/core1: whole-core busy % incl. kernel softirq; " +
    "H: harness core > 90 % busy or generator lag p99 > 10 ms, so that point is a lower bound for the bridge; " +
    "S: hypervisor steal > 2 % on some core)";

  function record(r, run, label = opts.label) {
    if (opts.out) appendFileSync(opts.out, JSON.stringify({ ...r, run, label }) + "\n");
  }

  return { measure, passes, stopsSweep, header, row, record, LEGEND, P99_LIMIT };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values: opts } = parseArgs({ options: SWEEP_OPTIONS });
  if (opts["embed-fake"] && !opts.cmd) {
    console.error("--embed-fake needs --cmd");
    process.exit(2);
  }
  if (!opts.cmd && !opts.url) {
    console.error("give --cmd (a bridge to start per point) or --url (a bridge already running)");
    process.exit(2);
  }
  const { measure, passes, stopsSweep, header, row, record, LEGEND, P99_LIMIT } = sweeper(opts);

  const grid = opts.ns.split(",").map(Number);
  const summaries = [];
  for (let run = 1; run <= Number(opts.runs); run++) {
    console.log(`\n== ${opts.label}, run ${run}: ${opts.duration}s measured per point after ${opts.warmup}s warm-up ==`);
    console.log(header());
    const results = [];
    for (const n of grid) {
      const r = await measure(n, run);
      results.push(r);
      record(r, run);
      console.log(row(r));
      if (stopsSweep(r)) break;
    }
    let sustained = 0;
    for (const r of results) {
      if (!passes(r)) break;
      sustained = r.calls_requested;
    }
    const gridSustained = sustained;
    const failing = results.find((r) => !passes(r));
    let hi = failing?.calls_requested;
    const refined = [];
    for (let step = 0; step < Number(opts.refine) && hi && hi - sustained > 10; step++) {
      const mid = Math.round((sustained + hi) / 2 / 5) * 5;
      const r = await measure(mid, run);
      refined.push(r);
      record({ ...r, refine: true }, run);
      console.log(row(r) + "  (refine)");
      if (passes(r)) sustained = mid;
      else hi = mid;
    }
    const at100 = results.find((r) => r.calls_requested === 100);
    const summary = {
      label: opts.label,
      run,
      sustained_grid: gridSustained,
      sustained_refined: sustained,
      first_failing: hi ?? null,
      p99_at_100: at100?.rtt_ms.p99 ?? null,
      cpu_us_per_frame_at_100: at100?.bridge_cpu_us_per_frame ?? null,
    };
    summaries.push(summary);
    console.log(
      `-> calls sustained (p99 <= ${P99_LIMIT} ms, loss < 1%): ${gridSustained} on the grid, ` +
        `${sustained} refined (first failing ${hi ?? "none"}); p99 at N=100: ${summary.p99_at_100} ms; ` +
        `bridge CPU per frame at N=100: ${summary.cpu_us_per_frame_at_100} us`,
    );
  }
  console.log(LEGEND);
  console.log(`\nSUMMARY ${JSON.stringify(summaries)}`);
}
