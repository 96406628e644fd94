// Call-audio capacity against the limit: Sakina's bridge (bridge.js, the production build, in a
// process of its own) and the bare relay (the least work a bridge can do), swept over N
// concurrent calls in the same run, interleaved point by point, through the shared load harness
// (bench/voice-bridge, copied from ../shared/bench-cases/voice-bridge; see bench/README.md).
//
//   npm run bench:bridge -- [--ns 50,100,200,300,400,600] [--duration 5] [--warmup 2] [--refine 2]
//                           [--runs 1] [--common-n 100] [--database-url postgres://…/postgres]
//                           [--out results.jsonl] [--no-pin]
//
// Each point starts a fresh fake Realtime server and load generator (CPU 1) and a fresh bridge
// (CPU 0). Sakina's bridge needs its calls in a database: the bench makes a throwaway PostgreSQL
// database (on 127.0.0.1:5432 by default), migrates it, and before each of its points adds N
// calls with single-use stream tokens; load.mjs connects each call to its own
// /media-stream/{id}, signs the handshake with the Twilio auth token the bridge is given, and
// sends the token in `start`. The database is dropped at the end.
//
// Prints both tables, then per bridge: calls sustained (p99 <= 20 ms, loss < 1 %), CPU per frame
// and RSS at a common N, and Sakina's figures as a share of the bare relay's.
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { createCall, newStreamToken, setStreamToken } from "../models/calls";
import { openDatabase } from "../app/platform/db.server";
import { sweepDefaults, sweeper, type LoadResult, type SweepTarget } from "./voice-bridge/sweep.mjs";

const root = path.resolve(import.meta.dirname, "..");
const { values: args } = parseArgs({
  options: {
    ns: { type: "string", default: "50,100,200,300,400,600" },
    duration: { type: "string", default: "5" },
    warmup: { type: "string", default: "2" },
    refine: { type: "string", default: "2" },
    runs: { type: "string", default: "1" },
    "common-n": { type: "string", default: "100" },
    "database-url": { type: "string", default: process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres" },
    out: { type: "string" },
    "no-pin": { type: "boolean", default: false },
  },
});

// ---- the bridge's production build, rebuilt when the sources are newer ----
function newest(dir: string): number {
  let time = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    time = Math.max(time, entry.isDirectory() ? newest(full) : statSync(full).mtimeMs);
  }
  return time;
}
const bundle = path.join(root, "build/bridge/index.js");
/**
 * Builds the bridge if its bundle is missing or, at the start, older than the sources. Before each
 * point only a missing one is rebuilt: `react-router build` empties build/.
 */
function ensureBridgeBuild(onlyIfMissing = false) {
  if (existsSync(bundle) && onlyIfMissing) return;
  const sources = Math.max(
    newest(path.join(root, "app")),
    newest(path.join(root, "models")),
    statSync(path.join(root, "vite.config.ts")).mtimeMs,
  );
  if (existsSync(bundle) && statSync(bundle).mtimeMs >= sources) return;
  console.log("Building the bridge (vite build --mode bridge)…");
  const built = spawnSync(path.join(root, "node_modules/.bin/vite"), ["build", "--mode", "bridge"], { cwd: root, encoding: "utf8" });
  if (built.status !== 0) throw new Error(`The bridge's build failed:\n${built.stdout}${built.stderr}`);
}
ensureBridgeBuild();

// ---- a throwaway database with the app's schema ----
const admin = new URL(args["database-url"]);
const name = `sakina_bridge_bench_${randomBytes(4).toString("hex")}`;
async function adminQuery(sql: string) {
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
  } catch (error) {
    throw new Error(
      `The bench needs PostgreSQL to hold the calls (the bridge process shares the web server's database): ${admin.host} answered ${(error as Error).message}. Give --database-url postgres://user@host:port/postgres`,
      { cause: error },
    );
  }
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}
await adminQuery(`CREATE DATABASE ${name}`);
const databaseUrl = new URL(admin);
databaseUrl.pathname = `/${name}`;
const database = await openDatabase({ databaseUrl: databaseUrl.toString() });
const workDir = mkdtempSync(path.join(os.tmpdir(), "sakina-bridge-bench-"));
let cleanedUp = false;
async function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  await database.close();
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  rmSync(workDir, { recursive: true, force: true });
}
process.once("SIGINT", () => void cleanUp().finally(() => process.exit(130)));

/** N fresh calls, each with a single-use stream token, as the TwiML request would leave them. */
async function seedCalls(n: number, port: number) {
  const targets: { url: string; token: string }[] = [];
  for (let i = 0; i < n; i++) {
    const call = await createCall(database.db, {
      purpose: "customer_service",
      language: "ar",
      voice: "alloy",
      toNumber: "+15551230000",
      timeLimitSeconds: 600,
    });
    const token = newStreamToken(randomBytes(24).toString("base64url"), new Date(Date.now() + 10 * 60_000));
    await setStreamToken(database.db, call.id, token);
    targets.push({ url: `ws://127.0.0.1:${port}/media-stream/${call.id}`, token });
  }
  const file = path.join(workDir, `calls-${port}.json`);
  writeFileSync(file, JSON.stringify(targets));
  return file;
}

// ---- the two bridges ----
const authToken = randomBytes(16).toString("hex");
const bare: SweepTarget = { label: "bare", cmd: "exec node {HARNESS}/bare-relay.mjs --port {PORT} --upstream {REALTIME_URL}" };
const sakina: SweepTarget = {
  label: "sakina",
  cmd: "exec node bridge.js",
  cwd: root,
  env: [
    "NODE_ENV=production",
    "HOST=127.0.0.1",
    `DATABASE_URL=${databaseUrl}`,
    `SESSION_SECRET=${randomBytes(32).toString("hex")}`,
    // The stream URL Twilio is given, and so the URL its signature covers.
    "MEDIA_STREAM_ORIGIN=http://127.0.0.1:{PORT}",
    `TWILIO_ACCOUNT_SID=AC${"0".repeat(32)}`,
    `TWILIO_AUTH_TOKEN=${authToken}`,
    "TWILIO_FROM_NUMBER=+15005550006",
    // No call is hung up through the API here; were one, it would go nowhere.
    "TWILIO_API_URL=http://127.0.0.1:9",
    "OPENAI_API_KEY=sk-bench-dummy",
    "OPENAI_BASE_URL={OPENAI_BASE_URL}",
  ],
  prepare: async (n, { port }) => {
    ensureBridgeBuild(true);
    return ["--calls-file", await seedCalls(n, port), "--auth-token", authToken];
  },
};
const targets = [bare, sakina];

const opts = { ...sweepDefaults(), duration: args.duration, warmup: args.warmup, "no-pin": args["no-pin"], out: args.out };
const sweep = sweeper(opts);
const grid = args.ns.split(",").map(Number);
const commonN = Number(args["common-n"]);

console.log(
  `bridge capacity: bare relay vs Sakina's bridge (bridge.js), interleaved; ${args.duration} s measured per point after ${args.warmup} s warm-up;` +
    ` bridge on CPU 0, fake Realtime and load on CPU 1${args["no-pin"] ? " (not pinned)" : ""}; node ${process.version}, ${os.cpus().length} cores`,
);

interface Outcome {
  results: LoadResult[];
  sustainedGrid: number;
  sustained: number;
  firstFailing: number | null;
}

try {
  for (let run = 1; run <= Number(args.runs); run++) {
    const results = new Map<SweepTarget, LoadResult[]>(targets.map((t) => [t, []]));
    const stopped = new Set<SweepTarget>();
    console.log(`\n== run ${run} ==`);
    console.log(`${"bridge".padEnd(7)} ${sweep.header()}`);
    async function point(target: SweepTarget, n: number, refine = false) {
      const r = await sweep.measure(n, run, target);
      sweep.record(refine ? { ...r, refine } : r, run, target.label);
      console.log(`${target.label.padEnd(7)} ${sweep.row(r)}${refine ? "  (refine)" : ""}`);
      return r;
    }
    // Bare, Sakina at one N, then Sakina, bare at the next: neither always runs first.
    for (const [i, n] of grid.entries()) {
      for (const target of i % 2 === 0 ? targets : [...targets].reverse()) {
        if (stopped.has(target)) continue;
        const r = await point(target, n);
        results.get(target)!.push(r);
        if (sweep.stopsSweep(r)) stopped.add(target);
      }
    }
    // Bisection between each bridge's last passing N and its first failing one, alternating.
    const outcomes = new Map<SweepTarget, Outcome>();
    for (const target of targets) {
      const measured = results.get(target)!;
      let sustained = 0;
      for (const r of measured) {
        if (!sweep.passes(r)) break;
        sustained = r.calls_requested;
      }
      const failing = measured.find((r) => !sweep.passes(r));
      outcomes.set(target, { results: measured, sustainedGrid: sustained, sustained, firstFailing: failing?.calls_requested ?? null });
    }
    for (let step = 0; step < Number(args.refine); step++) {
      for (const target of step % 2 === 0 ? targets : [...targets].reverse()) {
        const outcome = outcomes.get(target)!;
        const hi = outcome.firstFailing;
        if (!hi || hi - outcome.sustained <= 10) continue;
        const mid = Math.round((outcome.sustained + hi) / 2 / 5) * 5;
        if (sweep.passes(await point(target, mid, true))) outcome.sustained = mid;
        else outcome.firstFailing = mid;
      }
    }

    // ---- headline ----
    const atCommon = (target: SweepTarget) => outcomes.get(target)!.results.find((r) => r.calls_requested === commonN);
    console.log("");
    for (const target of targets) {
      const o = outcomes.get(target)!;
      const common = atCommon(target);
      console.log(
        `-> ${target.label.padEnd(6)} calls sustained (p99 <= ${sweep.P99_LIMIT} ms, loss < 1%): ${o.sustainedGrid} on the grid, ` +
          `${o.sustained} refined (first failing ${o.firstFailing ?? "none"}); at N=${commonN}: ` +
          `${common?.bridge_cpu_us_per_frame ?? "-"} us/frame, p99 ${common?.rtt_ms.p99 ?? "-"} ms, RSS ${common?.bridge_rss_mb ?? "-"} MB, ` +
          `${common?.marks_received ?? "-"} Twilio marks in the whole run (warm-up included)`,
      );
    }
    const [b, s] = [outcomes.get(bare)!, outcomes.get(sakina)!];
    const [bc, sc] = [atCommon(bare), atCommon(sakina)];
    const ratio = (x: number | null | undefined, y: number | null | undefined, percent = false) =>
      x && y ? (percent ? `${Math.round((x / y) * 100)}%` : `${(x / y).toFixed(2)}x`) : "-";
    console.log(
      `-> sakina/bare: calls sustained ${ratio(s.sustained, b.sustained, true)} of the bare relay's; at N=${commonN}: ` +
        `CPU per frame ${ratio(sc?.bridge_cpu_us_per_frame, bc?.bridge_cpu_us_per_frame)}, RSS ${ratio(sc?.bridge_rss_mb, bc?.bridge_rss_mb)}`,
    );
  }
  console.log(sweep.LEGEND);
} finally {
  await cleanUp();
}
