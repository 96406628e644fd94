import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { AppServer } from "~/server/http.server";
import type { AppServices } from "~/platform/services.server";
import { expect } from "vitest";
import { createIsolatedDatabase } from "./database";
import { runningApps } from "./running-apps";

/**
 * The production build served in this test process, so a test can both drive it over HTTP and
 * reach its services (database, job queue) directly. `npm test` builds first. Given a
 * DATABASE_URL (another app's `databaseUrl`), it shares that database, as a second process would.
 */
export async function startAppInProcess(env: Record<string, string>) {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-inproc-"));
  const database = env.DATABASE_URL
    ? { databaseUrl: env.DATABASE_URL, env: {}, drop: async () => {} }
    : await createIsolatedDatabase({ premigrated: true, dataDir: env.DATA_DIR ? undefined : dataDir });
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const saved = { ...process.env };
  Object.assign(process.env, {
    DATA_DIR: dataDir,
    APP_URL: url,
    SEED_DEMO_DATA: "true",
    ...database.env,
    ...env,
  });
  // React is the production build, as `npm start` has (tests/support/setup.ts loads it so).
  // @ts-expect-error the build has no type declarations
  const mod = (await import("../../build/server/index.js")) as { createProductionServer(): Promise<AppServer> };
  const app = await mod.createProductionServer();
  process.env = saved;
  const running = {};
  server.on("request", app.handler);
  server.on("upgrade", (request, socket, head) => app.upgrade(request, socket, head));
  const started = {
    url,
    dataDir,
    /** Its PostgreSQL database, for a second app on the same one (undefined on PGlite, which one process owns). */
    databaseUrl: database.databaseUrl,
    /** What a second process on the same PostgreSQL database shares with this one (its database and session secret). */
    sharedEnv: {
      DATABASE_URL: database.databaseUrl ?? "",
      SESSION_SECRET: ({ ...database.env, ...env } as Record<string, string>).SESSION_SECRET ?? "",
    },
    /** The app's Prometheus metrics listener (METRICS_PORT), if it has one. */
    metricsUrl: app.metrics?.url,
    /** The app's request handler, to serve it on another address too. */
    handler: app.handler,
    services: app.services as AppServices,
    async stop() {
      // As server.js shuts down: the server stops taking connections, then the app closes its call
      // streams (upgraded sockets, which the server would wait for) and everything else.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await app.close();
      await closed;
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
      runningApps.delete(running);
    },
  };
  runningApps.set(running, { file: startedBy(), stop: () => started.stop() });
  return started;
}

/** The test file that started an app; a script (`npm run screenshots`) runs outside vitest, which then has no state to read. */
function startedBy() {
  try {
    return expect.getState().testPath ?? "a test file";
  } catch {
    return "a script";
  }
}
