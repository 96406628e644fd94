import http from "node:http";
import type { AddressInfo } from "node:net";
import { mediaStreamUrl } from "~/voice/bridge.server";
import type { BridgeServices } from "~/voice/model-session.server";
import { openDatabase } from "~/platform/db.server";
import { startJobQueue } from "~/platform/data/jobs.server";
import { allJobs } from "./all-jobs.server";
import { callSweeperJob } from "~/calls/engine.server";
import { healthCheck } from "~/platform/http/health.server";
import { EnvError, parseEnv } from "~/platform/env.server";
import { createTelephony } from "~/providers/telephony.server";
import { createVoiceModel } from "~/providers/voice-model.server";
import { mediaStreamEndpoint } from "./bridge-streams.server";
import { callPurposes } from "./call-purposes.server";
import { listeningOrigin } from "./startup.server";
import { startMetricsListener } from "./metrics.server";
import { observeRequests } from "./request-observer.server";

/**
 * The call-audio bridge on a process of its own (`npm run start:bridge`, bridge.js): the
 * `/media-stream/{id}` WebSocket and `/healthz`, with only the services a call's audio needs (the
 * database, the realtime model, the telephony provider, and the job queue to hand work to: a
 * booking the phone agent makes here queues its e-mails and confirmation call, as the booking
 * page's does, and the web server's workers run them). No pages, no React Router build, no job
 * workers: a process that carries many calls carries little else. Twilio reaches it through
 * MEDIA_STREAM_ORIGIN, set to the same value for the web server, which builds the stream URLs.
 * Listens on PORT (and HOST).
 */
export async function startBridgeServer() {
  const env = parseEnv();
  if (!env.DATABASE_URL) {
    throw new EnvError(
      "Invalid environment variables:\n  DATABASE_URL: the bridge process shares the web server's database, which must be PostgreSQL (the embedded PGlite belongs to one process)",
    );
  }
  const database = await openDatabase({ databaseUrl: env.DATABASE_URL });
  // parseEnv requires SESSION_SECRET with DATABASE_URL: the jobs are sealed with it, as on the web server.
  const signingSecret = env.SESSION_SECRET!;
  const jobs = await database.exclusively("sakina:job-queue", async () => {
    const queue = await startJobQueue(database, { signingSecret });
    await queue.prepare(allJobs);
    return queue;
  });
  let origin = `http://localhost:${env.PORT}`;
  const configuredOrigin = env.APP_URL ? new URL(env.APP_URL).origin : null;
  const services: BridgeServices = {
    env,
    db: database.db,
    jobs,
    signingSecret,
    telephony: createTelephony(env),
    voiceModel: createVoiceModel(env),
    publicOrigin: () => configuredOrigin ?? origin,
    callPurposes,
  };
  const mediaStreams = mediaStreamEndpoint(services, { heartbeat: true });
  await mediaStreams.started;
  // Calls held back while no bridge was up are dialled now, not at the next minute's sweep.
  await jobs.enqueue(callSweeperJob, {});

  const answerHealth = healthCheck({ db: database.db, database });
  const server = http.createServer(
    observeRequests(
      (request, response) => {
        if (answerHealth(request, response)) return;
        response.writeHead(404, { "Content-Type": "text/plain" }).end("Not found: this process serves the call audio only.\n");
      },
      (pathname) => (pathname === "/healthz" ? "/healthz" : "unmatched"),
    ),
  );
  server.on("upgrade", mediaStreams.upgrade);
  await new Promise<void>((resolve, reject) => {
    server.once("error", async (error: NodeJS.ErrnoException) => {
      await jobs.stop().catch(() => {});
      await database.close().catch(() => {});
      reject(
        error.code === "EADDRINUSE"
          ? new Error(`Port ${env.PORT} is already in use. Choose another: PORT=3001 npm run start:bridge`)
          : error,
      );
    });
    server.listen(env.PORT, env.HOST, resolve);
  });
  const bound = server.address() as AddressInfo;
  origin = listeningOrigin(bound);
  const metrics = await startMetricsListener(env, { db: database.db, jobs });

  const configured = (name: string, yes: boolean, variables: string) => `${name}: ${yes ? "configured" : `not configured (${variables})`}`;
  return {
    /** What to print once it listens. */
    summary: [
      `Sakina's call-audio bridge is listening on ${bound.address}:${bound.port}`,
      `  Streams:   ${mediaStreamUrl(services, "{id}")}${env.MEDIA_STREAM_ORIGIN ? "" : " (MEDIA_STREAM_ORIGIN is not set)"}`,
      `  Database:  PostgreSQL at ${new URL(env.DATABASE_URL).host}${new URL(env.DATABASE_URL).pathname}`,
      ...(metrics ? [`  Metrics:   ${metrics.url} (Authorization: Bearer METRICS_TOKEN)`] : []),
      `  Providers: ${configured("phone calls", services.telephony.configured, "TWILIO_*")} · ${configured("voice", services.voiceModel.configured, "OPENAI_API_KEY")}`,
    ],
    /** Ends the calls in progress (their sockets close), then the server and the database. */
    /** The Prometheus metrics' own listener (METRICS_PORT), or null. */
    metrics: metrics && { url: metrics.url },
    async close() {
      await metrics?.close();
      await mediaStreams.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs.stop();
      await database.close();
    },
  };
}

/** The process's logger, for bridge.js (its start-up lines, its last words). */
export { log } from "~/platform/observability/log.server";
