import http from "node:http";
import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { Gauge, Registry } from "prom-client";
import { liveCallCounts } from "#models/calls";
import { refundFigures } from "#models/empathy";
import { callPurpose } from "#models/schema";
import type { Db } from "#models/db";
import type { Env } from "~/platform/env.server";
import type { Jobs } from "~/platform/data/jobs.server";
import { log } from "~/platform/observability/log.server";
import { metricsRegistry } from "~/platform/observability/metrics.server";
import { liveBridgeCount } from "~/voice/bridge-leases.server";

/**
 * The figures the database holds, read at each scrape: calls live, bridges up, refunds owed, the
 * job queue. Every process reports them (the same values: alerts take the max over the cluster);
 * the counters next to them are this process's own (metrics.server.ts). A read that fails leaves
 * the figure out of that scrape (and is logged): the scrape itself still answers.
 */
function databaseGauges(services: { db: Db; jobs: Jobs }) {
  const registry = new Registry();
  const registers = [registry];
  const failed = (what: string) => (error: unknown) => log.warn(`metrics: could not read ${what}: ${(error as Error).message}`);
  new Gauge({
    name: "sakina_calls_live",
    help: "Calls dialled and not ended (initiated, ringing, in progress), by purpose; the whole cluster's, from the database",
    labelNames: ["purpose"],
    registers,
    async collect() {
      this.reset();
      const rows = await liveCallCounts(services.db).catch(failed("the live calls"));
      if (!rows) return;
      // Every purpose, 0 included: "no calls" is a value, not a missing series.
      for (const purpose of callPurpose.enumValues) this.set({ purpose }, 0);
      for (const row of rows) this.set({ purpose: row.purpose }, Number(row.count));
    },
  });
  new Gauge({
    name: "sakina_bridges_live",
    help: "Bridge processes up (a fresh heartbeat in the database)",
    registers,
    async collect() {
      const count = await liveBridgeCount(services.db).catch(failed("the bridges' heartbeats"));
      if (count !== undefined) this.set(count);
    },
  });
  const refunds = async () => refundFigures(services.db).catch(failed("the refunds"));
  new Gauge({
    name: "sakina_refunds_waiting",
    help: "Paid calls whose refund is on its way (refunding)",
    registers,
    async collect() {
      const figures = await refunds();
      if (figures) this.set(figures.waiting);
    },
  });
  new Gauge({
    name: "sakina_refund_oldest_waiting_seconds",
    help: "How long the oldest refund on its way has waited (0: none waits)",
    registers,
    async collect() {
      const figures = await refunds();
      if (figures) this.set(figures.oldestSeconds);
    },
  });
  new Gauge({
    name: "sakina_refund_failed_requests",
    help: "Paid calls in refund_failed: the refund job used its last try, an admin refunds by hand",
    registers,
    async collect() {
      const figures = await refunds();
      if (figures) this.set(figures.failed);
    },
  });
  const jobStats = async () => services.jobs.stats().catch(failed("the job queue"));
  new Gauge({
    name: "sakina_jobs",
    help: "Jobs in the queue by queue and state (waiting: due and not taken; retrying; active; failed: given up, kept a day)",
    labelNames: ["queue", "state"],
    registers,
    async collect() {
      this.reset();
      for (const row of (await jobStats()) ?? []) {
        for (const state of ["waiting", "retrying", "active", "failed"] as const) this.set({ queue: row.queue, state }, row[state]);
      }
    },
  });
  new Gauge({
    name: "sakina_job_oldest_waiting_seconds",
    help: "How long the oldest job due and not taken has waited, by queue (0: none waits)",
    labelNames: ["queue"],
    registers,
    async collect() {
      this.reset();
      for (const row of (await jobStats()) ?? []) this.set({ queue: row.queue }, row.oldestWaitingSeconds);
    },
  });
  return registry;
}

/** The metrics in Prometheus's text format: this process's counters and the database's figures. */
export function metricsSource(services: { db: Db; jobs: Jobs }) {
  const registry = Registry.merge([metricsRegistry, databaseGauges(services)]);
  return { contentType: registry.contentType, text: () => registry.metrics() };
}

function sameToken(given: string, expected: string) {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The metrics listener: GET /metrics with `Authorization: Bearer METRICS_TOKEN`, on METRICS_PORT
 * (METRICS_HOST, this machine by default), a socket of its own that nginx never proxies. Null when
 * METRICS_PORT is unset.
 */
export async function startMetricsListener(
  env: Pick<Env, "METRICS_PORT" | "METRICS_HOST" | "METRICS_TOKEN">,
  services: { db: Db; jobs: Jobs },
) {
  if (env.METRICS_PORT === undefined || !env.METRICS_TOKEN) return null;
  const token = env.METRICS_TOKEN;
  const source = metricsSource(services);
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://metrics").pathname;
    if (path !== "/metrics") return void response.writeHead(404, { "Content-Type": "text/plain" }).end("Not found: GET /metrics\n");
    const given = /^Bearer (.+)$/.exec(request.headers.authorization ?? "")?.[1] ?? "";
    if (!sameToken(given, token)) {
      return void response
        .writeHead(401, { "Content-Type": "text/plain", "WWW-Authenticate": 'Bearer realm="metrics"' })
        .end("The metrics need Authorization: Bearer <METRICS_TOKEN>.\n");
    }
    if (request.method !== "GET" && request.method !== "HEAD") return void response.writeHead(405, { Allow: "GET, HEAD" }).end();
    source.text().then(
      (text) => response.writeHead(200, { "Content-Type": source.contentType }).end(request.method === "HEAD" ? undefined : text),
      (error: Error) => {
        log.error(`metrics: the scrape failed: ${error.message}`);
        response.writeHead(500, { "Content-Type": "text/plain" }).end("The metrics could not be read.\n");
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(error.code === "EADDRINUSE" ? new Error(`Port ${env.METRICS_PORT} is already in use (METRICS_PORT)`) : error),
    );
    server.listen(env.METRICS_PORT, env.METRICS_HOST, resolve);
  });
  const bound = server.address() as AddressInfo;
  const host = bound.family === "IPv6" ? `[${bound.address}]` : bound.address;
  return {
    url: `http://${host}:${bound.port}/metrics`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
