import { errorFields, log } from "~/platform/observability/log.server";
import type { IncomingMessage, RequestListener } from "node:http";
import type { Duplex } from "node:stream";
import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import compression from "compression";
import express from "express";
import { createRequire } from "node:module";
import type { RouterContextProvider as RouterContextProviderType, ServerBuild } from "react-router";
import { clientIpContext, nonceContext, servicesContext, socketPeerContext } from "~/platform/context";
import { parseEnv } from "~/platform/env.server";
import { createServices } from "./services.server";
import { listeningOrigin, startupSummary } from "./startup.server";
import { securityHeaderValues, securityHeaders } from "~/platform/http/security-headers.server";
import { createPageCache } from "~/platform/http/page-cache.server";
import { precompressedFiles } from "~/platform/http/precompressed.server";
import { followCacheChanges, writeAnnouncer } from "~/platform/data/cache-sync.server";
import { boundedBodies } from "~/platform/http/request-limits.server";
import { healthCheck } from "~/platform/http/health.server";
import { createRequestHandler } from "~/platform/http/request-handler.server";
import { mediaStreamEndpoint, webCallStreamEndpoint } from "./bridge-streams.server";
import { startMetricsListener } from "./metrics.server";
import { observeRequests, routePatterns } from "./request-observer.server";
import { availabilityFastPath } from "~/features/booking/availability-fast-path.server";
import { isSignedInAdmin, mayConcernAdminArea, strangersBuild } from "~/features/admin/hidden-area.server";

// The context must be an instance of the RouterContextProvider the Express adapter checks
// against: the react-router module the adapter itself loads (with require), which under some
// loaders (vitest) is not the one a static import here would get.
const { RouterContextProvider } = createRequire(import.meta.url)("react-router") as {
  RouterContextProvider: new () => RouterContextProviderType;
};

/** The pages a first-time visitor sees the same as any other (see page-cache.server.ts). */
const PUBLIC_PAGES = [
  /^\/$/,
  /^\/business$/,
  /^\/book\/[a-z0-9-]{1,80}$/,
  /^\/(privacy|terms|cookies|how-it-works|languages|faq|safety|accessibility)$/,
];
/** The longest a cached page is kept; another process's write empties it within a second (cache-sync.server.ts). */
const PAGE_CACHE_TTL_MS = 5_000;

export interface AppServer {
  app: express.Express;
  /** What the HTTP server calls for every request: /healthz answered in front, everything else to `app`. */
  handler: RequestListener;
  /** WebSocket upgrades (the call audio bridge plugs in here); anything unknown is refused. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  services: Awaited<ReturnType<typeof createServices>>;
  /** The Prometheus metrics' own listener (METRICS_PORT), or null. */
  metrics: { url: string } | null;
  /** The lines to print once the server listens on `bound`. */
  describe(bound: { address: string; port: number }): string[];
  close(): Promise<void>;
}

/**
 * The production HTTP app: static assets, security headers and the React Router handler, with
 * the app's services in the router context. server.js owns the listening socket.
 */
/**
 * server.js logs an unexpected rejection and keeps serving; when the app runs inside another
 * process (the in-process tests) without server.js, the same handler is installed here, once.
 */
function keepServingOnUnhandledRejection() {
  if (process.listenerCount("unhandledRejection") > 0) return;
  process.on("unhandledRejection", (reason) => {
    log.error(errorFields(reason), "Unhandled promise rejection (the server keeps running)");
  });
}

export async function createAppServer(options: {
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Vite's dev middleware; without it the built client assets are served. */
  devMiddleware?: express.RequestHandler;
}): Promise<AppServer> {
  keepServingOnUnhandledRejection();
  const env = parseEnv();
  const services = await createServices(env);
  const app = express();
  app.disable("x-powered-by");
  // false, a hop count or proxy addresses (never "everything"): req.ip is the right-most untrusted hop.
  app.set("trust proxy", env.TRUST_PROXY);
  // Pages and API answers go out compressed (compress.server.ts), the build's scripts and styles as
  // compressed when it was built (precompressed.server.ts); the call audio does not come through
  // here (WebSocket upgrades bypass Express).
  app.use(compression());
  const security = {
    stripeJsUrl: env.STRIPE_JS_URL,
    stripeApiUrl: env.STRIPE_API_URL,
    dev: Boolean(options.devMiddleware),
    hsts: env.APP_URL?.startsWith("https://") ?? false,
  };
  app.use(securityHeaders(security));
  // First visits to the public pages, answered from their last render (not in development, where
  // the code changes under it).
  const pageCache = options.devMiddleware
    ? undefined
    : createPageCache({
        paths: PUBLIC_PAGES,
        ttlMs: PAGE_CACHE_TTL_MS,
        securityHeaders: securityHeaderValues(security),
        csrfCookie: (token) => services.cookies.csrf.serialize(token),
      });

  if (options.devMiddleware) {
    app.use(options.devMiddleware);
  } else {
    const clientDir = fileURLToPath(new URL("../client", import.meta.url));
    const assetsDir = path.join(clientDir, "assets");
    const assets = precompressedFiles(assetsDir, express.static(assetsDir, { immutable: true, maxAge: "1y" }));
    // The full route manifest (admin area included) is never loaded by a page, since routes are
    // discovered through /__manifest: it is not served, and its address answers as unknown ones do.
    app.use("/assets", (req, res, next) => (/^\/manifest-[\w-]+\.js$/.test(req.path) ? next() : assets(req, res, next)));
    // The few files at the client root (favicon…), looked up in a set made once: asking the file
    // system about every page's address (and building a "not found" error each time) was a
    // large share of every request.
    const rootFiles = new Set(
      readdirSync(clientDir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => `/${e.name}`),
    );
    const rootStatic = express.static(clientDir, { maxAge: "1h", index: false, redirect: false });
    app.use((req, res, next) => (rootFiles.has(req.path) ? rootStatic(req, res, next) : next()));
  }

  // A write on any process (this one too) empties this one's cached pages and reads at once.
  const clearCaches = () => {
    pageCache?.clear();
    services.readCache.clear();
  };
  await followCacheChanges(services.database, clearCaches);
  const writes = writeAnnouncer(services.database, {
    clearHere: clearCaches,
    onError: (error) => log.error("Could not tell other processes of a write: %s", error.message),
  });

  app.use(boundedBodies());
  const handlerOptions = {
    mode: options.devMiddleware ? "development" : "production",
    ...(pageCache ? { pageCache: { cache: pageCache, csrfCookieName: services.cookies.csrf.name } } : {}),
    publicOrigin: services.publicOrigin,
    onWrite: clearCaches,
    afterWrite: writes.announce,
    getLoadContext(req: express.Request, res: express.Response) {
      const context = new RouterContextProvider();
      context.set(servicesContext, services);
      context.set(nonceContext, String(res.locals.nonce ?? ""));
      context.set(clientIpContext, req.ip ?? req.socket.remoteAddress ?? "unknown");
      context.set(socketPeerContext, req.socket.remoteAddress ?? "unknown");
      return context;
    },
  };
  const everyone = createRequestHandler({ build: options.build, ...handlerOptions });
  // Strangers get the app without the admin area (see hidden-area.server.ts).
  const strangers = createRequestHandler({ build: strangersBuild(options.build), ...handlerOptions });
  app.use(async (req, res, next) => {
    try {
      // A target no URL can hold (e.g. "//[") is answered as a stranger's: the handler copes with it.
      const url = URL.canParse(req.originalUrl, "http://path.only") ? new URL(req.originalUrl, "http://path.only") : null;
      const concerns = url === null || mayConcernAdminArea(url);
      // The answer depends on who asks (React Router marks /__manifest answers public and immutable):
      // a cache in front keeps one per cookie, so no admin's answer reaches a stranger, nor the reverse.
      if (concerns) res.vary("Cookie");
      const seesAdminArea = !concerns || (url !== null && (await isSignedInAdmin(services, url, req.headers.cookie)));
      await (seesAdminArea ? everyone : strangers)(req, res, next);
    } catch (error) {
      next(error);
    }
  });

  // Calls' streams come here unless a bridge process of its own serves them (MEDIA_STREAM_ORIGIN).
  const mediaStreams = mediaStreamEndpoint(services, { heartbeat: !services.env.MEDIA_STREAM_ORIGIN });
  await mediaStreams.started;
  // An upgrade bypasses Express, so its visitor's address is read with the same trusted-proxy rule.
  const trustProxy = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
  const webCallStreams = webCallStreamEndpoint(services, (request) => upgradeClientIp(request, trustProxy));
  // A health check needs none of what pages need (router, headers, compression, sessions).
  const answerHealth = healthCheck(services);
  // Nor does a booking page's repeated question for a day whose slots are already known.
  const answerAvailability = availabilityFastPath(services, securityHeaderValues(security));
  // Metrics on a socket of their own, never through this handler (the public port).
  const metrics = await startMetricsListener(env, services);
  return {
    app,
    handler: observeRequests((req, res) => {
      if (answerHealth(req, res) || answerAvailability(req, res) || pageCache?.serve(req, res)) return;
      app(req, res);
    }, routePatterns(options.build)),
    services,
    metrics: metrics && { url: metrics.url },
    describe(bound) {
      // Without APP_URL, links and callbacks point at the address the server really listens on.
      services.setListeningOrigin(listeningOrigin(bound));
      return [
        ...startupSummary(services, bound),
        ...(metrics ? [`  Metrics:   ${metrics.url} (Authorization: Bearer METRICS_TOKEN)`] : []),
      ];
    },
    upgrade(request, socket, head) {
      if (!webCallStreams.upgrade(request, socket, head)) mediaStreams.upgrade(request, socket, head);
    },
    async close() {
      await writes.stop();
      await Promise.all([webCallStreams.close(), mediaStreams.close(), metrics?.close()]);
      await services.close();
    },
  };
}

/** As Express's req.ip: the right-most X-Forwarded-For hop that no trusted proxy added. */
function upgradeClientIp(request: IncomingMessage, trust: (address: string, hop: number) => boolean) {
  const forwarded = String(request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean)
    .reverse();
  const hops = [request.socket.remoteAddress ?? "unknown", ...forwarded];
  let hop = 0;
  while (hop < hops.length - 1 && trust(hops[hop]!, hop)) hop += 1;
  return hops[hop]!;
}

export async function createProductionServer() {
  const build = (await import("virtual:react-router/server-build")) as unknown as ServerBuild;
  return createAppServer({ build });
}

/** The process's logger, for server.js (its start-up lines, its last words). */
export { log } from "~/platform/observability/log.server";
