import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import pg from "pg";
import Stripe from "stripe";
import { startFakeRealtime, type FakeRealtime } from "../fakes/openai-realtime";
import { startFakeStripe, type FakeStripe } from "../fakes/stripe";
import { startFakeTwilio, type FakeTwilio } from "../fakes/twilio";
import { createIsolatedDatabase } from "../support/database";
import { httpClient } from "../support/http-client";
import { waitFor } from "../support/wait";
import { freePort } from "../support/ports";

// `npm run test:cluster`: Sakina as deploy/ describes it on one machine: nginx in front of two web
// processes and one call-audio bridge process, all started at the same time on a fresh PostgreSQL
// database, the providers being the fakes in tests/fakes. Everything is asked through nginx, as a
// visitor would, or of one process directly where the point is that another answers the same.

const root = path.resolve(import.meta.dirname, "../..");
const enabled = process.env.SAKINA_CLUSTER === "1" && Boolean(process.env.DATABASE_URL);
const WEBHOOK_SECRET = "whsec_cluster";

interface Proc {
  name: string;
  url: string;
  child: ChildProcess;
  output: string[];
}

let work = "";
let database: Awaited<ReturnType<typeof createIsolatedDatabase>>;
let stripe: FakeStripe;
let twilio: FakeTwilio;
let realtime: FakeRealtime;
let stripeApi: Stripe;
let nginx: ChildProcess | undefined;
let nginxUrl = "";
const procs: Proc[] = [];
let clusterEnv: Record<string, string> = {};
let bridgePort = 0;
let prometheus: ChildProcess | undefined;
let prometheusUrl = "";
const METRICS_TOKEN = "cluster-metrics-token-0123456789abcdef0123";
/** Each process's metrics listener (METRICS_PORT), by name. */
const metricsPorts: Record<string, number> = {};

function start(name: string, script: string, port: number, env: Record<string, string>): Proc {
  const child = spawn(process.execPath, [script], {
    cwd: root,
    env: { ...process.env, ...env, PORT: String(port), HOST: "127.0.0.1", DATA_DIR: path.join(work, name) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  child.stdout!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => output.push(chunk.toString()));
  const proc = { name, url: `http://127.0.0.1:${port}`, child, output };
  procs.push(proc);
  return proc;
}

async function healthy(url: string) {
  return fetch(`${url}/healthz`).then(
    (response) => response.status === 200,
    () => false,
  );
}

/** deploy/nginx.conf as it is, with its upstreams and listen line set to the processes started here. */
async function startNginx(port: number, web: Proc[], bridge: Proc) {
  const site = (await readFile(path.join(root, "deploy/nginx.conf"), "utf8"))
    .replace(
      /upstream sakina_web \{[^}]*\}/,
      `upstream sakina_web {\n${web.map((p) => `    server ${new URL(p.url).host};`).join("\n")}\n    keepalive 32;\n}`,
    )
    .replace(/upstream sakina_bridge \{[^}]*\}/, `upstream sakina_bridge {\n    server ${new URL(bridge.url).host};\n}`)
    .replace(/listen 80;/, `listen 127.0.0.1:${port};`);
  await writeFile(path.join(work, "sakina.conf"), site);
  const main = [
    "worker_processes 1;",
    "daemon off;",
    "master_process on;",
    `pid ${work}/nginx.pid;`,
    `error_log ${work}/nginx-error.log warn;`,
    "events { worker_connections 1024; }",
    "http {",
    "  access_log off;",
    ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${work}/${kind};`),
    `  include ${work}/sakina.conf;`,
    "}",
  ].join("\n");
  await writeFile(path.join(work, "nginx.conf"), main);
  const test = spawnSync("nginx", ["-t", "-q", "-c", path.join(work, "nginx.conf")], { encoding: "utf8" });
  if (test.status !== 0) throw new Error(`nginx refused the configuration:\n${test.stderr}`);
  nginx = spawn("nginx", ["-c", path.join(work, "nginx.conf")], { stdio: "inherit" });
  nginxUrl = `http://127.0.0.1:${port}`;
  await waitFor(() => healthy(nginxUrl), { what: "nginx", timeoutMs: 10_000 });
}

function nginxBin() {
  return spawnSync("nginx", ["-v"]).status === 0;
}

/** The demo owner's login, printed by the web process that seeded it (the other says it was set earlier). */
function demoLogin() {
  const line = procs.flatMap((p) => p.output.join("").split("\n")).find((l) => l.includes("Demo owner login") && l.includes(" / "))!;
  const [, email, password] = /\(([^ ]+) \/ ([^)]+)\)/.exec(line)!;
  return { email: email!, password: password! };
}

let visitor = 0;
const visitorAddress = () => `198.51.${100 + Math.floor(++visitor / 250)}.${(visitor % 250) + 1}`;

/** A free haircut time at the demo salon from `fromDay` days ahead, asked of `url`. */
async function freeHaircut(url: string, fromDay = 2) {
  const list = (await (await fetch(`${url}/api/booking/services/demo-salon`)).json()) as { id: number; name: string }[];
  const haircut = list.find((s) => s.name === "Haircut")!;
  for (let day = fromDay; day < 30; day++) {
    const date = new Date(Date.now() + day * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${url}/api/booking/availability/demo-salon/${date}/${haircut.id}`);
    const slots = response.status === 200 ? ((await response.json()) as { time: string; available: boolean }[]) : [];
    const free = slots.filter((slot) => slot.available);
    if (free.length > 1) return { serviceId: haircut.id, date, time: free[0]!.time, later: free[1]!.time };
  }
  throw new Error("no free haircut in the window");
}

/** The person on each call in progress hangs up (calls nobody answers for stay up, as real ones do). */
async function hangUpAll() {
  const live = () => [...twilio.calls.values()].filter((c) => c.status === "in-progress" || c.status === "ringing");
  // A call waiting for a line may start ringing as another ends: hang up until none is live.
  await waitFor(
    () => {
      for (const call of live()) twilio.hangup(call.sid);
      return live().length === 0;
    },
    { what: "every call to end", timeoutMs: 30_000 },
  );
}

/** The process that holds a TCP connection from this local port (ss, as root or for our own processes). */
function pidOfClientPort(port: number) {
  const out = spawnSync("ss", ["-tnpH", `sport = :${port}`], { encoding: "utf8" }).stdout;
  return Number(/pid=(\d+)/.exec(out)?.[1] ?? 0);
}

async function query<T extends pg.QueryResultRow>(text: string, values: unknown[] = []) {
  const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
  await client.connect();
  try {
    return (await client.query<T>(text, values)).rows;
  } finally {
    await client.end();
  }
}

const booking = (serviceId: number, date: string, time: string, phone: string) => ({
  businessLink: "demo-salon",
  serviceId,
  appointmentDate: `${date}T${time}`,
  customerInfo: { name: "Cluster Visitor", phone },
  requestCall: false,
});

describe.runIf(enabled)("two web processes and a bridge behind nginx, on one PostgreSQL", () => {
  beforeAll(async () => {
    if (!nginxBin()) throw new Error("nginx is not installed: apt-get install -y nginx (the cluster test runs Debian's nginx)");
    work = await mkdtemp(path.join(os.tmpdir(), "sakina-cluster-"));
    database = await createIsolatedDatabase();
    [stripe, twilio, realtime] = await Promise.all([startFakeStripe(), startFakeTwilio(), startFakeRealtime({ audioSpeed: 10 })]);
    const stripeUrl = new URL(stripe.url);
    stripeApi = new Stripe(stripe.secretKey, { host: stripeUrl.hostname, port: Number(stripeUrl.port), protocol: "http" });
    const [nginxPort, web1, web2, bridge] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
    for (const name of ["web-1", "web-2", "bridge"]) metricsPorts[name] = await freePort();
    bridgePort = bridge;
    const origin = `http://127.0.0.1:${nginxPort}`;
    const env = {
      ...database.env,
      NODE_ENV: "production",
      APP_URL: origin,
      MEDIA_STREAM_ORIGIN: origin,
      TRUST_PROXY: "loopback",
      SEED_DEMO_DATA: "true",
      STRIPE_SECRET_KEY: stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      STRIPE_API_URL: stripe.url,
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_FROM_NUMBER: twilio.ownedNumbers[0]!,
      TWILIO_API_URL: twilio.url,
      OPENAI_API_KEY: realtime.apiKey,
      OPENAI_BASE_URL: realtime.url,
      CALL_DELIVERED_MIN_SECONDS: "1",
      // Two lines for the whole cluster, so the cap can be seen holding across both web processes.
      MAX_CONCURRENT_CALLS: "2",
      METRICS_TOKEN,
    };
    clusterEnv = env;
    // All three at the same moment, on a database nothing has migrated yet.
    const started = [
      start("web-1", "server.js", web1, { ...env, METRICS_PORT: String(metricsPorts["web-1"]) }),
      start("web-2", "server.js", web2, { ...env, METRICS_PORT: String(metricsPorts["web-2"]) }),
      start("bridge", "bridge.js", bridgePort, { ...env, METRICS_PORT: String(metricsPorts.bridge) }),
    ];
    for (const proc of started) {
      await waitFor(
        async () => {
          if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}):\n${proc.output.join("")}`);
          return healthy(proc.url);
        },
        { what: `${proc.name} to answer /healthz`, timeoutMs: 60_000 },
      );
    }
    await startNginx(nginxPort, started.slice(0, 2), started[2]!);
    stripe.setWebhook(`${origin}/webhooks/stripe`, WEBHOOK_SECRET);
  });

  afterAll(async () => {
    prometheus?.kill("SIGTERM");
    nginx?.kill("SIGQUIT");
    for (const proc of procs) proc.child.kill("SIGTERM");
    // A process still finishing its calls after 10 s is stopped the hard way.
    const hard = setTimeout(() => procs.forEach((proc) => proc.child.kill("SIGKILL")), 10_000);
    await Promise.all(
      procs.map((proc) =>
        proc.child.exitCode !== null || proc.child.signalCode !== null ? null : new Promise((resolve) => proc.child.once("exit", resolve)),
      ),
    );
    clearTimeout(hard);
    for (const [sid, call] of twilio?.calls ?? []) {
      if (call.status === "in-progress" || call.status === "ringing") twilio.hangup(sid);
    }
    await Promise.all([twilio?.close(), realtime?.close(), stripe?.close()]);
    await database?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("Debian's prometheus scrapes every process with the token (deploy/prometheus/), and sees live calls from both web processes", async () => {
    // The metrics are on each process's own port, with the token; never through nginx.
    expect((await fetch(`${nginxUrl}/metrics`)).status).toBe(404);
    expect((await fetch(`http://127.0.0.1:${metricsPorts["web-1"]}/metrics`)).status).toBe(401);
    // deploy/prometheus/prometheus.yml as it is, its targets set to the processes started here.
    const config = (await readFile(path.join(root, "deploy/prometheus/prometheus.yml"), "utf8"))
      .replace("scrape_interval: 15s", "scrape_interval: 1s")
      .replace("evaluation_interval: 15s", "evaluation_interval: 1s")
      .replace('["127.0.0.1:13000", "127.0.0.1:13001"]', `["127.0.0.1:${metricsPorts["web-1"]}", "127.0.0.1:${metricsPorts["web-2"]}"]`)
      .replace('["127.0.0.1:13100"]', `["127.0.0.1:${metricsPorts.bridge}"]`)
      .replace(/\n {2}- job_name: sakina_worker\n[\s\S]*$/, "\n");
    const promDir = path.join(work, "prometheus");
    await mkdir(promDir, { recursive: true });
    await writeFile(path.join(promDir, "prometheus.yml"), config);
    await writeFile(path.join(promDir, "metrics-token"), METRICS_TOKEN);
    await copyFile(path.join(root, "deploy/prometheus/alerts.yml"), path.join(promDir, "alerts.yml"));
    const port = await freePort();
    prometheusUrl = `http://127.0.0.1:${port}`;
    const promOutput: string[] = [];
    prometheus = spawn(
      "prometheus",
      [
        `--config.file=${path.join(promDir, "prometheus.yml")}`,
        `--storage.tsdb.path=${path.join(promDir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    prometheus.stdout!.on("data", (chunk: Buffer) => promOutput.push(chunk.toString()));
    prometheus.stderr!.on("data", (chunk: Buffer) => promOutput.push(chunk.toString()));
    await waitFor(
      () =>
        fetch(`${prometheusUrl}/-/ready`).then(
          (r) => r.status === 200,
          () => false,
        ),
      {
        what: `prometheus to be ready:\n${promOutput.join("")}`,
        timeoutMs: 30_000,
      },
    );
    type Result = { metric: Record<string, string>; value: [number, string] }[];
    const ask = async (query: string) => {
      const answer = (await (await fetch(`${prometheusUrl}/api/v1/query?query=${encodeURIComponent(query)}`)).json()) as {
        status: string;
        data: { result: Result };
      };
      expect(answer.status).toBe("success");
      return answer.data.result;
    };
    // Every target up: prometheus sent the token the processes ask for.
    const up = await waitFor(
      async () => {
        const result = await ask("up");
        return result.length === 3 && result.every((series) => series.value[1] === "1") && result;
      },
      { what: "every target scraped", timeoutMs: 30_000 },
    );
    expect(up.map((series) => series.metric.job).sort()).toEqual(["sakina_bridge", "sakina_web", "sakina_web"]);
    const live = await waitFor(
      async () => {
        const result = await ask('sakina_calls_live{job="sakina_web",purpose="empathy"}');
        return result.length === 2 && result;
      },
      { what: "the live-calls series of both web processes", timeoutMs: 30_000 },
    );
    expect(new Set(live.map((series) => series.metric.instance))).toEqual(
      new Set([`127.0.0.1:${metricsPorts["web-1"]}`, `127.0.0.1:${metricsPorts["web-2"]}`]),
    );
    // The bridge reports its own streams; the rules loaded, and none fires on a healthy cluster.
    expect((await ask('sakina_bridge_streams_live{job="sakina_bridge"}')).length).toBeGreaterThanOrEqual(0);
    const rules = (await (await fetch(`${prometheusUrl}/api/v1/rules`)).json()) as {
      data: { groups: { rules: { name: string; state: string }[] }[] };
    };
    const loaded = rules.data.groups.flatMap((group) => group.rules);
    expect(loaded.map((rule) => rule.name)).toContain("SakinaNoLiveBridge");
    expect(loaded.filter((rule) => rule.state === "firing").map((rule) => rule.name)).toEqual([]);
    // Every panel of the Grafana dashboard (deploy/grafana/) is a query this Prometheus answers.
    const dashboard = JSON.parse(await readFile(path.join(root, "deploy/grafana/sakina-operations.json"), "utf8")) as {
      panels: { title: string; targets: { expr: string }[] }[];
    };
    for (const panel of dashboard.panels) for (const target of panel.targets) await ask(target.expr);
  });

  it("all start together on a fresh database, and the demo salon exists once", async () => {
    for (const proc of procs) expect(proc.child.exitCode, proc.output.join("")).toBeNull();
    const list = await fetch(`${nginxUrl}/api/booking/services/demo-salon`);
    expect(list.status).toBe(200);
    // One of them seeded it, and only that one knows its password.
    const told = procs.filter((p) => /Demo owner login: \S+\/login {2}\(demo@sakina\.app \/ demo-/.test(p.output.join("")));
    expect(told).toHaveLength(1);
    const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>("select count(*) as n from businesses where booking_link = 'demo-salon'");
      expect(Number(rows[0]!.n)).toBe(1);
    } finally {
      await client.end();
    }
  });

  it("holds the call cap with calls asked of both processes: two lines, the others wait their turn", async () => {
    const phones = ["+12125569201", "+12125569202", "+12125569203", "+12125569204"];
    const inProgress = () => [...twilio.calls.values()].filter((c) => phones.includes(String(c.params.To)) && c.status === "in-progress");
    let most = 0;
    const watch = setInterval(() => (most = Math.max(most, inProgress().length)), 5);
    try {
      // Asked of both web processes directly, two each.
      const [web1, web2] = procs.filter((p) => p.name.startsWith("web"));
      const asked = await Promise.all(
        phones.map((to, i) =>
          httpClient((i % 2 ? web2 : web1)!.url, { forwardedFor: visitorAddress() }).postJson("/api/calls/make-call", { to }),
        ),
      );
      expect(asked.map((r) => r.status)).toEqual([202, 202, 202, 202]);
      await waitFor(() => inProgress().length === 2, { what: "two calls in progress", timeoutMs: 30_000 });
      // The other two are parked waiting for a line (the event that rules out their dial).
      await waitFor(
        async () =>
          (await query("select id from calls where to_number = any($1) and status = 'queued' and waiting_since is not null", [phones]))
            .length === 2,
        { what: "two calls waiting for a line", timeoutMs: 30_000 },
      );
      expect(inProgress()).toHaveLength(2);
      // A line frees: the next call rings, and still no more than two at once.
      twilio.hangup(inProgress()[0]!.sid);
      await waitFor(
        () => [...twilio.calls.values()].filter((c) => phones.includes(String(c.params.To))).length === 3 && inProgress().length === 2,
        { what: "the third call on the freed line", timeoutMs: 30_000 },
      );
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      clearInterval(watch);
      await hangUpAll();
    }
    // Hung up with no one speaking, the last waiting call gets its line too: let it ring and end.
    await waitFor(() => [...twilio.calls.values()].filter((c) => phones.includes(String(c.params.To))).length === 4, {
      what: "the fourth call",
      timeoutMs: 30_000,
    });
    await hangUpAll();
    expect(most).toBeLessThanOrEqual(2);
  });

  it("books one slot once when 100 visitors ask for it at the same moment, with no 5xx", async () => {
    const { serviceId, date, time } = await freeHaircut(nginxUrl);
    const responses = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        httpClient(nginxUrl, { forwardedFor: visitorAddress() }).postJson(
          "/api/booking/create",
          booking(serviceId, date, time, `+1212556${String(1000 + i).padStart(4, "0")}`),
        ),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
  });

  it("keeps a session made on one process on the other, and a sign-out on the other ends it on the first", async () => {
    const [web1, web2] = procs.filter((p) => p.name.startsWith("web"));
    const { email, password } = demoLogin();
    const first = httpClient(web1!.url);
    const signedIn = await first.postForm("/login", { email, password });
    expect(signedIn.status).toBe(302);
    // The demo owner's first sign-in on a server asks for a password of their own.
    const forced = signedIn.headers.get("Location")!;
    if (forced.startsWith("/change-password")) {
      const changed = await first.postForm(
        "/change-password",
        { password: "cluster-owner-pass-1", confirm: "cluster-owner-pass-1", redirectTo: "/dashboard" },
        { tokenFrom: forced },
      );
      expect(changed.status).toBe(302);
    }
    const second = httpClient(web2!.url);
    for (const [name, value] of first.jar) second.jar.set(name, value);
    const dashboard = await second.get("/dashboard");
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toContain("Sakina Demo Salon");
    const out = await second.postForm("/logout", {}, { tokenFrom: "/dashboard" });
    expect(out.status).toBe(302);
    // The first process, with the cookie the browser had before signing out: the session is gone.
    const stale = httpClient(web1!.url);
    for (const [name, value] of first.jar) stale.jar.set(name, value);
    const after = await stale.get("/telephony");
    expect(after.status).toBe(302);
    expect(after.headers.get("Location")).toBe("/login?redirectTo=%2Ftelephony");
  });

  it("stops offering a slot on one process within a second of its booking on the other", async () => {
    const [web1, web2] = procs.filter((p) => p.name.startsWith("web"));
    const { serviceId, date, later } = await freeHaircut(web2!.url, 3);
    const day = `${web2!.url}/api/booking/availability/demo-salon/${date}/${serviceId}`;
    const slotOf = async () => ((await (await fetch(day)).json()) as { time: string; available: boolean }[]).find((s) => s.time === later);
    expect((await slotOf())?.available).toBe(true);
    const booked = await httpClient(web1!.url, { forwardedFor: visitorAddress() }).postJson(
      "/api/booking/create",
      booking(serviceId, date, later, "+12125569001"),
    );
    expect(booked.status).toBe(201);
    const deadline = Date.now() + 1000;
    let slot = await slotOf();
    while (slot?.available && Date.now() < deadline) slot = await slotOf();
    expect(slot?.available).toBe(false);
  });

  it("gives one paid call one call and one realtime session, its audio through nginx to the bridge", async () => {
    const phone = "+12125569100";
    // The bookings' confirmation calls above hold the cluster's two lines until their people hang up.
    await hangUpAll();
    const response = await httpClient(nginxUrl, { forwardedFor: visitorAddress() }).postJson("/api/create-payment-intent", {
      amount: 5,
      phone,
      language: "english",
      voice: "female",
      adult: true,
      recordingAccepted: true,
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const { paymentIntentId } = (await response.json()) as { paymentIntentId: string };
    await stripeApi.paymentIntents.confirm(paymentIntentId, { payment_method: "pm_card_visa", return_url: `${nginxUrl}/` });
    // A booking's confirmation call queued by an earlier test may still take a line after
    // hangUpAll (its job runs when it runs): its person hangs up too, so the line frees.
    const placed = await waitFor(
      () => {
        for (const call of twilio.calls.values()) {
          if (call.params.To !== phone && (call.status === "in-progress" || call.status === "ringing")) twilio.hangup(call.sid);
        }
        return [...twilio.calls.values()].find((c) => c.params.To === phone);
      },
      { what: "the paid call at the provider", timeoutMs: 30_000 },
    );
    await twilio.waitForStatus(placed.sid, "in-progress", 20_000);
    const stream = await twilio.stream(placed.sid, 10_000);
    expect(new URL(stream.url).host).toBe(new URL(nginxUrl).host);
    // A real conversation with the listener (other calls of the cluster have sessions of their own):
    // the greeting heard, the caller heard, two seconds on the line.
    await waitFor(() => stream.marksEchoed.length > 0, { what: "the greeting heard", timeoutMs: 20_000 });
    const listenerSession = realtime.sessions.findIndex((x) => String(x.session.instructions ?? "").includes("Sakina's AI listener"));
    expect(listenerSession).toBeGreaterThanOrEqual(0);
    stream.sendSpeech(800);
    await realtime.waitForServerEvent(listenerSession, "input_audio_buffer.speech_started", undefined, 20_000);
    await waitFor(() => (placed.startedAt && Date.now() - placed.startedAt.getTime() > 2300 ? true : null), {
      what: "two seconds on the call",
    });
    await stream.hangup();
    // The request's end rules a second call in or out: completed (delivered) or a retry queued.
    const client = new pg.Client({ connectionString: database.env.DATABASE_URL });
    await client.connect();
    try {
      const final = await waitFor(
        async () => {
          const { rows } = await client.query<{ status: string }>("select status from empathy_requests where status <> 'awaiting_payment'");
          return rows.length === 1 && ["completed", "refunded", "retrying"].includes(rows[0]!.status) ? rows[0]!.status : null;
        },
        { what: "the paid call's request to settle", timeoutMs: 30_000 },
      );
      expect(final).toBe("completed");
    } finally {
      await client.end();
    }
    expect([...twilio.calls.values()].filter((c) => c.params.To === phone)).toHaveLength(1);
    // The paid call's sessions are the listener's (the bookings above have confirmation calls of their own).
    const listener = realtime.sessions.filter((x) => String(x.session.instructions ?? "").includes("Sakina's AI listener"));
    expect(listener).toHaveLength(1);
  });

  it("answers a call to the demo salon's own number: the receptionist on the bridge process, its audio through nginx", async () => {
    await hangUpAll();
    const number = "+15005550030";
    const [demo] = await query<{ id: number }>("select id from businesses where booking_link = 'demo-salon'");
    await query("insert into business_numbers (business_id, phone_number, provider_sid) values ($1, $2, $3)", [
      demo!.id,
      number,
      `PN${"e".repeat(32)}`,
    ]);
    const call = await twilio.inboundCall({
      from: "+12125569500",
      to: number,
      url: `${nginxUrl}/webhooks/twilio/voice/inbound`,
      statusCallback: `${nginxUrl}/webhooks/twilio/voice/inbound/status`,
    });
    expect(call.twiml).toContain("<Connect");
    const stream = await twilio.stream(call.sid, 10_000);
    expect(new URL(stream.url).host).toBe(new URL(nginxUrl).host);
    await waitFor(() => stream.marksEchoed.length > 0, { what: "the receptionist's greeting heard", timeoutMs: 20_000 });
    expect(realtime.sessions.some((x) => String(x.session.instructions ?? "").includes("You are the AI receptionist"))).toBe(true);
    await stream.hangup();
    const ended = await waitFor(
      async () => {
        const [row] = await query<{ status: string; direction: string; duration_seconds: number | null }>(
          "select status, direction, duration_seconds from calls where provider_call_id = $1",
          [call.sid],
        );
        return row?.status === "completed" && row.duration_seconds !== null ? row : null;
      },
      { what: "the inbound call's end from its status callback", timeoutMs: 30_000 },
    );
    expect(ended.direction).toBe("inbound");
  });

  it("places exactly one call when the process dialling it is killed mid-dial", async () => {
    await hangUpAll();
    const phone = "+12125569300";
    const held = twilio.hangNext({ to: phone, ms: 120_000 });
    const asked = await httpClient(nginxUrl, { forwardedFor: visitorAddress() }).postJson("/api/calls/make-call", { to: phone });
    expect(asked.status).toBe(202);
    // The dial reached the provider; the process that sent it is killed before the answer comes.
    const { remotePort } = await held.arrived;
    const victim = procs.find((p) => p.child.pid === pidOfClientPort(remotePort));
    expect(victim?.name).toMatch(/^web-/);
    const gone = new Promise((resolve) => victim!.child.once("exit", resolve));
    victim!.child.kill("SIGKILL");
    await gone;
    const killedAt = Date.now();
    // The provider places the call all the same; its answer goes nowhere.
    held.release();
    const placed = await waitFor(() => [...twilio.calls.values()].find((c) => String(c.params.To) === phone), {
      what: "the call at the provider",
      timeoutMs: 10_000,
    });
    // The surviving process learns the call from its signed callbacks, and the dial job, retried once
    // the dead worker's hold on it expires, finds the call placed: it has finished without dialling.
    await waitFor(
      async () =>
        (await query<{ provider_call_id: string | null }>("select provider_call_id from calls where to_number = $1", [phone]))[0]
          ?.provider_call_id === placed.sid,
      { what: "the call adopted by the other process", timeoutMs: 60_000 },
    );
    const [row] = await query<{ id: number }>("select id from calls where to_number = $1", [phone]);
    await waitFor(
      async () => {
        const jobs = await query<{ state: string }>("select state from pgboss.job where name = 'call-place' and data->>'callId' = $1", [
          String(row!.id),
        ]);
        return jobs.length > 0 && jobs.every((job) => ["completed", "failed", "cancelled"].includes(job.state));
      },
      { what: "the dead worker's dial job retried and finished", timeoutMs: 90_000 },
    );
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    expect([...twilio.calls.values()].filter((c) => String(c.params.To) === phone)).toHaveLength(1);
    await hangUpAll();
  }, 150_000);

  it("hangs up a live call whose bridge died, frees its line, and dials nobody until a bridge is back", async () => {
    await hangUpAll();
    const phone = "+12125569400";
    // The bridge's host vanishes without a word: no close reaches Twilio, which keeps the call up.
    twilio.silentStreamDrops.add(phone);
    const asked = await httpClient(nginxUrl, { forwardedFor: visitorAddress() }).postJson("/api/calls/make-call", { to: phone });
    expect(asked.status).toBe(202);
    const live = await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === phone), {
      what: "the call",
      timeoutMs: 30_000,
    });
    const stream = await twilio.stream(live.sid, 20_000);
    await waitFor(() => stream.marksEchoed.length > 0, { what: "the greeting heard", timeoutMs: 20_000 });
    const bridge = procs.find((p) => p.name === "bridge")!;
    const gone = new Promise((resolve) => bridge.child.once("exit", resolve));
    bridge.child.kill("SIGKILL");
    await gone;
    const killedAt = Date.now();

    // A web process finds the call nobody bridges, hangs it up at Twilio and ends it: its line is free.
    await waitFor(() => live.status === "completed", { what: "the call hung up", timeoutMs: 60_000, intervalMs: 200 });
    expect(live.hangupBy).toBe("app");
    const [ended] = await query<{ status: string }>("select status from calls where provider_call_id = $1", [live.sid]);
    expect(ended?.status).toBe("completed");
    expect(Date.now() - killedAt).toBeLessThan(60_000);
    const told = procs.filter((p) => p.name.startsWith("web") && /no bridge renewed its lease/.test(p.output.join("")));
    expect(told.length).toBeGreaterThan(0);

    // No bridge's heartbeat is fresh any more: a call asked now waits in the queue, undialled...
    const next = "+12125569401";
    await waitFor(
      async () => (await query("select 1 from live_leases where kind = 'bridge:heartbeat' and expires_at > now()")).length === 0,
      {
        what: "the dead bridge's heartbeat to lapse",
        timeoutMs: 30_000,
      },
    );
    const queued = await httpClient(nginxUrl, { forwardedFor: visitorAddress() }).postJson("/api/calls/make-call", { to: next });
    expect(queued.status).toBe(202);
    await waitFor(
      async () =>
        (await query("select 1 from calls where to_number = $1 and status = 'queued' and waiting_since is not null", [next])).length === 1,
      { what: "the call waiting for a bridge", timeoutMs: 30_000 },
    );
    expect([...twilio.calls.values()].filter((c) => c.params.To === next)).toEqual([]);
    // ...and rings once the bridge is back.
    const restarted = start("bridge", "bridge.js", bridgePort, clusterEnv);
    await waitFor(() => healthy(restarted.url), { what: "the bridge back", timeoutMs: 60_000 });
    await waitFor(() => [...twilio.calls.values()].find((c) => c.params.To === next), {
      what: "the waiting call placed",
      timeoutMs: 30_000,
    });
    await hangUpAll();
  }, 150_000);
});
