// `npm run bench:http`: requests per second and latency of the app's pages and APIs, each beside
// a static server that sends the very same bytes, measured in the same run. Both servers are
// pinned to CPU 0 (taskset), the load generator (autocannon, in this process) to CPU 1, so the
// ratio says how much of one core the app spends beyond writing the response.
//
//   npm run build && npm run bench:http [-- --seconds 10 --connections 20]
//
// The demo business gets 5,000 bookings (every two hours from a year ago to a month ahead, so the
// 30-day window holds about 360 of them) for the availability API's case.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import autocannon from "autocannon";
import { REFERENCE_ALPHABET } from "../models/booking-reference";
import { bookings, businessServices, businesses } from "../models/schema";
import { parseEnv } from "../app/platform/env.server";
import { createServices } from "../app/server/services.server";

const root = path.resolve(import.meta.dirname, "..");
const arg = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const seconds = arg("seconds", 10);
const connections = arg("connections", 20);
const BOOKINGS = 5000;

const pin = (cpu: number) => (process.platform === "linux" ? ["taskset", "-c", String(cpu)] : []);

async function seed(dataDir: string) {
  const services = await createServices(parseEnv({ NODE_ENV: "production", DATA_DIR: dataDir, SEED_DEMO_DATA: "true" }), {
    runWorkers: false,
  });
  const [business] = await services.db.select().from(businesses);
  const [service] = await services.db.select().from(businessServices);
  const start = Date.now() - 335 * 86_400_000;
  const rows = Array.from({ length: BOOKINGS }, (_, i) => {
    const startsAt = new Date(start + i * 2 * 3_600_000);
    return {
      businessId: business!.id,
      serviceId: service!.id,
      startsAt,
      endsAt: new Date(startsAt.getTime() + 30 * 60_000),
      customerName: `Customer ${i}`,
      customerPhone: "+12125550100",
      status: "confirmed" as const,
      manageTokenHash: randomBytes(16).toString("hex"),
      // The i-th reference in base 31: 5,000 random ones would clash once in about 70 seedings.
      reference: Array.from({ length: 6 }, (_, k) => REFERENCE_ALPHABET[Math.floor(i / 31 ** k) % 31]).join(""),
    };
  });
  for (let i = 0; i < rows.length; i += 500) await services.db.insert(bookings).values(rows.slice(i, i + 500));
  await services.close();
  return { serviceId: service!.id };
}

function startApp(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const [command, ...args] = [...pin(0), process.execPath, "server.js"];
  const child = spawn(command!, args, {
    cwd: root,
    env: { PATH: process.env.PATH, NODE_ENV: "production", PORT: "0", HOST: "127.0.0.1", DATA_DIR: dataDir, SEED_DEMO_DATA: "false" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  return new Promise((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (chunk: Buffer) => {
      output += chunk.toString();
      const match = /Open: +(http:\/\/[^\s]+)/.exec(output);
      if (match) resolve({ url: match[1]!, child });
    });
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
}

/** The same bytes and headers the app sent, from a server that does nothing else. */
function startStatic(responses: Map<string, { status: number; headers: Record<string, string>; body: Buffer }>) {
  const source = `
    const http = require("node:http");
    const responses = new Map(JSON.parse(process.argv[1]).map(([k, v]) => [k, { ...v, body: Buffer.from(v.body, "base64") }]));
    const server = http.createServer((req, res) => {
      const r = responses.get(req.url);
      if (!r) { res.writeHead(404); res.end(); return; }
      res.writeHead(r.status, r.headers);
      res.end(r.body);
    });
    server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
  `;
  const payload = JSON.stringify([...responses].map(([k, v]) => [k, { ...v, body: v.body.toString("base64") }]));
  const [command, ...args] = [...pin(0), process.execPath, "-e", source, payload];
  const child = spawn(command!, args, { stdio: ["ignore", "pipe", "inherit"] });
  return new Promise<{ url: string; child: ChildProcess }>((resolve) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve({ url: chunk.toString().trim(), child }));
  });
}

function fetchRaw(url: string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: Buffer }>((resolve, reject) => {
    http
      .get(url, { headers: { "accept-encoding": "gzip, br" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [key, value] of Object.entries(res.headers)) {
            if (typeof value === "string" && !["connection", "keep-alive", "transfer-encoding", "date", "set-cookie"].includes(key))
              headers[key] = value;
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      })
      .on("error", reject);
  });
}

async function load(url: string) {
  const result = await autocannon({ url, connections, duration: seconds, headers: { "accept-encoding": "gzip, br" } });
  return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-bench-http-"));
const { serviceId } = await seed(dataDir);
const app = await startApp(dataDir);
const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
const targets = [
  { name: "/healthz", path: "/healthz" },
  { name: "home page /", path: "/" },
  { name: "booking page", path: "/book/demo-salon" },
  { name: `availability API (${BOOKINGS} bookings)`, path: `/api/booking/availability/demo-salon/${day}/${serviceId}` },
];
const responses = new Map<string, Awaited<ReturnType<typeof fetchRaw>>>();
// The second answer: a first visit to a public page fills the page cache, later ones come from it.
for (const target of targets) {
  await fetchRaw(`${app.url}${target.path}`);
  responses.set(target.path, await fetchRaw(`${app.url}${target.path}`));
}
const statik = await startStatic(responses);

console.log(`${seconds} s per run, ${connections} connections; servers on CPU 0, load generator on CPU 1; Node ${process.version}`);
console.log("| request | bytes sent | app req/s | app p50 / p99 ms | static req/s | app / static |");
console.log("|---|---|---|---|---|---|");
try {
  for (const target of targets) {
    const appResult = await load(`${app.url}${target.path}`);
    const staticResult = await load(`${statik.url}${target.path}`);
    const bytes = responses.get(target.path)!.body.length;
    const ratio = `${((appResult.rps / staticResult.rps) * 100).toFixed(0)}%`;
    const errors = appResult.errors ? ` (${appResult.errors} errors)` : "";
    console.log(
      `| ${target.name} | ${bytes} | ${appResult.rps.toFixed(0)}${errors} | ${appResult.p50} / ${appResult.p99} | ${staticResult.rps.toFixed(0)} | ${ratio} |`,
    );
  }
} finally {
  app.child.kill("SIGTERM");
  statik.child.kill("SIGTERM");
  await new Promise((resolve) => app.child.once("exit", resolve));
  await rm(dataDir, { recursive: true, force: true });
}
