// `npm run bench:http`: requests per second and latency of the app's pages and APIs, each beside
// a static server that sends the very same bytes, measured in the same run. Both servers are
// pinned to CPU 0 (taskset), the load generator (autocannon, in this process) to CPU 1, so the
// ratio says how much of one core the app spends beyond writing the response. Each page rendered
// afresh is also beside the floor of any React Router page (startFloor: the router's request
// handling and React rendering the same HTML as one string, gzipped), measured in the same run.
//
//   npm run build && npm run bench:http [-- --seconds 10 --connections 20 --warm-up 2]
//   options for working on it: --only "date step" (rows whose name holds it; "a|b" either), --cpu-prof-dir DIR
//   (a CPU profile of the app), --seeded DIR (seed once into DIR, start later runs from a copy);
//   BENCH_NODE_OPTIONS="--import ./probe.mjs" is the app's NODE_OPTIONS (a preload that times its queries)
//
// The demo business gets 5,000 bookings (every two hours from a year ago to a month ahead, so the
// 30-day window holds about 360 of them) for the availability API's case.
//
// Two kinds of request are measured. A first visit (no cookie) to a public page is answered from
// the page cache (app/platform/http/page-cache.server.ts). Everyone else gets a render of their
// own: a returning visitor (the CSRF cookie the first visit handed out: anyone who has seen a
// form) on the home page and each booking step, and the signed-in demo owner (a real session,
// after the first login's password change) on the home page and the bookings dashboard.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import http from "node:http";
import { existsSync } from "node:fs";
import { cp, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";
import autocannon from "autocannon";
import { REFERENCE_ALPHABET } from "../models/booking-reference";
import { bookings, businessServices, businesses } from "../models/schema";
import { parseEnv } from "../app/platform/env.server";
import { createServices } from "../app/server/services.server";
import { demoOwnerPassword } from "../tests/support/demo-owner";
import { httpClient } from "../tests/support/http-client";
import { cpuSeconds } from "./process-cpu";
import { chosen, cookieTargets, freeSlot } from "./http-targets";

const root = path.resolve(import.meta.dirname, "..");
const arg = (name: string, fallback: number) => {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 ? Number(process.argv[index + 1]) : fallback;
};
const seconds = arg("seconds", 10);
/** Seconds of unmeasured load on each of the app's rows before any is measured (see below). */
const warmUpSeconds = arg("warm-up", 5);
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
  // The planner's statistics of a server in service: its retention job refreshes them every ten
  // minutes on PGlite (which has no autovacuum), so they know these 5,000 bookings.
  await services.database.refreshStatistics();
  await services.close();
  return { serviceId: service!.id };
}

function startApp(dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  // `--cpu-prof-dir DIR`: the app writes a V8 CPU profile of the whole run there when it stops.
  const profileIndex = process.argv.indexOf("--cpu-prof-dir");
  const profile = profileIndex > 0 ? ["--cpu-prof", "--cpu-prof-dir", process.argv[profileIndex + 1]!] : [];
  const [command, ...args] = [...pin(0), process.execPath, ...profile, "server.js"];
  const child = spawn(command!, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_OPTIONS: process.env.BENCH_NODE_OPTIONS ?? "",
      NODE_ENV: "production",
      PORT: "0",
      HOST: "127.0.0.1",
      DATA_DIR: dataDir,
      SEED_DEMO_DATA: "false",
    },
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
  return startScript(source, payload);
}

/** `node -e source argument` on CPU 0, from the project's root; its first line of output is its URL. */
function startScript(source: string, argument: string) {
  const [command, ...args] = [...pin(0), process.execPath, "-e", source, argument];
  const child = spawn(command!, args, { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  return new Promise<{ url: string; child: ChildProcess }>((resolve) => {
    child.stdout!.once("data", (chunk: Buffer) => resolve({ url: chunk.toString().trim(), child }));
  });
}

/**
 * The floor of any page React Router renders: its request handling (a Request, the route match,
 * the loader, the static router and its hydration data) and React rendering a route whose whole
 * markup is one string (the page's own HTML, with nothing to render inside it), gzipped at the
 * app's level. The app's pages cannot be faster than this; a target above it asks for another stack.
 */
async function startFloor(pages: Map<string, string>, folder: string) {
  const source = `
    const http = require("node:http");
    const zlib = require("node:zlib");
    const React = require("react");
    const { renderToString } = require("react-dom/server");
    const { createStaticHandler, createStaticRouter, StaticRouterProvider } = require("react-router");
    const pages = new Map(JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8")));
    const route = { id: "root", path: "*", loader: () => ({ at: Date.now() }) };
    const handler = createStaticHandler([route]);
    const server = http.createServer(async (req, res) => {
      const html = pages.get(req.url);
      if (html === undefined) { res.writeHead(404); res.end(); return; }
      const context = await handler.query(new Request("http://127.0.0.1" + req.url, { headers: req.headers }));
      const Component = () => React.createElement("div", { dangerouslySetInnerHTML: { __html: html } });
      const router = createStaticRouter([{ ...route, Component }], context);
      const body = zlib.gzipSync("<!DOCTYPE html>" + renderToString(React.createElement(StaticRouterProvider, { router, context })), { level: 1 });
      res.writeHead(200, { "content-type": "text/html; charset=utf-8", "content-encoding": "gzip", "content-length": body.length });
      res.end(body);
    });
    server.listen(0, "127.0.0.1", () => console.log("http://127.0.0.1:" + server.address().port));
  `;
  // Through a file: the pages together exceed what one command-line argument may hold.
  const pagesFile = path.join(folder, "floor-pages.json");
  await writeFile(pagesFile, JSON.stringify([...pages]));
  return startScript(source, pagesFile);
}

/** A page's HTML as the app sent it, decoded. */
function decodedHtml(response: { headers: Record<string, string>; body: Buffer }) {
  const encoding = response.headers["content-encoding"];
  if (encoding === "gzip") return zlib.gunzipSync(response.body).toString();
  if (encoding === "br") return zlib.brotliDecompressSync(response.body).toString();
  return response.body.toString();
}

function fetchRaw(url: string, cookie?: string) {
  return new Promise<{ status: number; headers: Record<string, string>; body: Buffer; cookies: string[] }>((resolve, reject) => {
    http
      .get(url, { headers: { "accept-encoding": "gzip, br", ...(cookie ? { cookie } : {}) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const headers: Record<string, string> = {};
          for (const [key, value] of Object.entries(res.headers)) {
            if (typeof value === "string" && !["connection", "keep-alive", "transfer-encoding", "date", "set-cookie"].includes(key))
              headers[key] = value;
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks), cookies: res.headers["set-cookie"] ?? [] });
        });
      })
      .on("error", reject);
  });
}

/** `name=value` pairs of Set-Cookie lines, as a browser sends them back. */
const cookieHeader = (lines: string[]) => lines.map((line) => line.split(";")[0]).join("; ");

/**
 * Load on `url` for the run's time; also the server's CPU time per answer, which other work on
 * the machine does not change as much as it changes the rate (on a busy machine a server gets a
 * share of its core, not the core).
 */
async function load(url: string, server: ChildProcess, cookie?: string) {
  const headers = { "accept-encoding": "gzip, br", ...(cookie ? { cookie } : {}) };
  // A second unmeasured first, so the server's socket and buffers are in use.
  await autocannon({ url, connections, duration: 1, headers });
  const before = cpuSeconds(server.pid);
  const result = await autocannon({ url, connections, duration: seconds, headers });
  const after = cpuSeconds(server.pid);
  const cpuPerRequest = before === null || after === null ? null : ((after - before) * 1e6) / Math.max(1, result.requests.total);
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
    cpuPerRequest,
  };
}

const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-bench-http-"));
// `--seeded DIR`: seed once into DIR and start later runs from a copy of it (seeding takes a minute).
const seededIndex = process.argv.indexOf("--seeded");
const seeded = seededIndex > 0 ? process.argv[seededIndex + 1]! : undefined;
let serviceId: number;
if (seeded && existsSync(path.join(seeded, "service-id"))) {
  serviceId = Number(await readFile(path.join(seeded, "service-id"), "utf8"));
} else {
  ({ serviceId } = await seed(seeded ?? dataDir));
  if (seeded) await writeFile(path.join(seeded, "service-id"), String(serviceId));
}
if (seeded) await cp(seeded, dataDir, { recursive: true });
const app = await startApp(dataDir);
// A failed setup step must not leave the server running.
process.on("exit", () => app.child.kill("SIGTERM"));
const day = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

// A returning visitor: the CSRF cookie of their first visit (the page cache serves only requests without a cookie).
const visitor = cookieHeader((await fetchRaw(`${app.url}/`)).cookies);
// The demo owner, signed in (their first login chooses a new password, as every owner's must).
const ownerClient = httpClient(app.url, { localAddress: "127.0.0.251" });
const password = await demoOwnerPassword(app.url, dataDir);
const login = await ownerClient.postJson("/api/auth/login", { email: "demo@sakina.app", password });
if (login.status !== 200) throw new Error(`demo owner login failed: ${login.status}`);
const owner = [...ownerClient.jar].map(([name, value]) => `${name}=${value}`).join("; ");
const slot = await freeSlot(app.url, serviceId);
const cookies = { visitor, owner };
const targets: { name: string; path: string; cookie?: string }[] = [
  { name: "/healthz", path: "/healthz" },
  { name: "home page /", path: "/" },
  { name: "booking page", path: "/book/demo-salon" },
  { name: `availability API (${BOOKINGS} bookings)`, path: `/api/booking/availability/demo-salon/${day}/${serviceId}` },
  ...cookieTargets(serviceId, slot).map(({ name, path, who }) => ({ name, path, cookie: cookies[who] })),
];
const only = process.argv.indexOf("--only");
const chosenTargets = chosen(targets, only > 0 ? process.argv[only + 1] : undefined);
// The static server answers `/{index}` with the bytes the app sent for target {index}.
const responses = new Map<string, Awaited<ReturnType<typeof fetchRaw>>>();
// The second answer: a first visit to a public page fills the page cache, later ones come from it.
for (const [index, target] of chosenTargets.entries()) {
  await fetchRaw(`${app.url}${target.path}`, target.cookie);
  const response = await fetchRaw(`${app.url}${target.path}`, target.cookie);
  if (response.status !== 200) throw new Error(`${target.name}: ${target.path} answered ${response.status}`);
  responses.set(`/${index}`, response);
}
const statik = await startStatic(responses);
process.on("exit", () => statik.child.kill("SIGTERM"));
// The floor server answers `/{index}` for each HTML page (the document without its doctype).
const pages = new Map(
  [...responses]
    .filter(([, response]) => /^text\/html/.test(response.headers["content-type"] ?? ""))
    .map(([key, response]) => [key, decodedHtml(response).replace(/^<!DOCTYPE html>/i, "")] as const),
);
const floor = await startFloor(pages, dataDir);
process.on("exit", () => floor.child.kill("SIGTERM"));

console.log(
  `${seconds} s per run, after ${warmUpSeconds} s unmeasured on each of the app's rows; ${connections} connections; servers on CPU 0, load generator on CPU 1; Node ${process.version}`,
);
console.log(
  "| request | bytes sent | app req/s | app p50 / p99 ms | static req/s | app / static | floor req/s (floor / static) | app / floor | CPU µs per answer: app, static, floor |",
);
console.log("|---|---|---|---|---|---|---|---|---|");
try {
  // Every row once, unmeasured: V8 compiles the render path as a server's traffic makes it do.
  // Without it the first rendered row carried that compiling: measured first, the owner's home
  // page took 9.4 ms of CPU a page; after other rows, 4.9.
  for (const target of chosenTargets) {
    const headers = { "accept-encoding": "gzip, br", ...(target.cookie ? { cookie: target.cookie } : {}) };
    await autocannon({ url: `${app.url}${target.path}`, connections, duration: warmUpSeconds, headers });
  }
  for (const [index, target] of chosenTargets.entries()) {
    const appResult = await load(`${app.url}${target.path}`, app.child, target.cookie);
    const staticResult = await load(`${statik.url}/${index}`, statik.child);
    // The floor only for pages rendered afresh (a first visit is served from the page cache).
    const floorResult = target.cookie && pages.has(`/${index}`) ? await load(`${floor.url}/${index}`, floor.child) : null;
    const bytes = responses.get(`/${index}`)!.body.length;
    const percent = (part: number) => `${((part / staticResult.rps) * 100).toFixed(0)}%`;
    const errors = appResult.errors ? ` (${appResult.errors} errors)` : "";
    const cpu = (result: { cpuPerRequest: number | null } | null) =>
      result === null ? "–" : result.cpuPerRequest === null ? "?" : result.cpuPerRequest.toFixed(0);
    const floorCell = floorResult ? `${floorResult.rps.toFixed(0)} (${percent(floorResult.rps)})` : "–";
    // Issue 46's measure: the app's rate as a share of the floor's, both measured in this run.
    const ofFloor = floorResult ? `${((appResult.rps / floorResult.rps) * 100).toFixed(0)}%` : "–";
    console.log(
      `| ${target.name} | ${bytes} | ${appResult.rps.toFixed(0)}${errors} | ${appResult.p50} / ${appResult.p99} | ${staticResult.rps.toFixed(0)} | ` +
        `${percent(appResult.rps)} | ${floorCell} | ${ofFloor} | ${cpu(appResult)}, ${cpu(staticResult)}, ${cpu(floorResult)} |`,
    );
  }
} finally {
  app.child.kill("SIGTERM");
  statik.child.kill("SIGTERM");
  floor.child.kill("SIGTERM");
  await new Promise((resolve) => app.child.once("exit", resolve));
  await rm(dataDir, { recursive: true, force: true });
}
