import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { createRequestHandler } from "@react-router/express";
import { RouterContextProvider, type ServerBuild } from "react-router";
import { clientIpContext, nonceContext, servicesContext } from "./context";
import { parseEnv } from "./env.server";
import { createServices } from "./services.server";
import { securityHeaders } from "./security-headers.server";

export interface AppServer {
  app: express.Express;
  /** WebSocket upgrades (the call audio bridge plugs in here); anything unknown is refused. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  services: Awaited<ReturnType<typeof createServices>>;
  close(): Promise<void>;
}

/**
 * The production HTTP app: static assets, security headers and the React Router handler, with
 * the app's services in the router context. server.js owns the listening socket.
 */
export async function createAppServer(options: {
  build: ServerBuild | (() => Promise<ServerBuild>);
  /** Vite's dev middleware; without it the built client assets are served. */
  devMiddleware?: express.RequestHandler;
}): Promise<AppServer> {
  const env = parseEnv();
  const services = await createServices(env);
  const app = express();
  app.disable("x-powered-by");
  app.set("trust proxy", env.TRUST_PROXY);
  app.use(
    securityHeaders({
      stripeJsUrl: env.STRIPE_JS_URL,
      stripeApiUrl: env.STRIPE_API_URL,
      dev: Boolean(options.devMiddleware),
      hsts: env.APP_URL?.startsWith("https://") ?? false,
    }),
  );

  if (options.devMiddleware) {
    app.use(options.devMiddleware);
  } else {
    const clientDir = fileURLToPath(new URL("../client", import.meta.url));
    app.use(
      "/assets",
      express.static(path.join(clientDir, "assets"), { immutable: true, maxAge: "1y" }),
    );
    app.use(express.static(clientDir, { maxAge: "1h", index: false }));
  }

  app.use(
    createRequestHandler({
      build: options.build,
      mode: options.devMiddleware ? "development" : "production",
      getLoadContext(req, res) {
        const context = new RouterContextProvider();
        context.set(servicesContext, services);
        context.set(nonceContext, String(res.locals.nonce ?? ""));
        context.set(clientIpContext, req.ip ?? req.socket.remoteAddress ?? "unknown");
        return context;
      },
    }),
  );

  return {
    app,
    services,
    upgrade(_request, socket) {
      socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
    },
    close: () => services.close(),
  };
}

export async function createProductionServer() {
  const build = (await import("virtual:react-router/server-build")) as unknown as ServerBuild;
  return createAppServer({ build });
}
