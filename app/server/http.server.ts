import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import path from "node:path";
import { fileURLToPath } from "node:url";
import express from "express";
import { WebSocketServer } from "ws";
import { createRequestHandler } from "@react-router/express";
import { createRequire } from "node:module";
import type { RouterContextProvider as RouterContextProviderType, ServerBuild } from "react-router";
import { clientIpContext, nonceContext, servicesContext } from "./context";
import { parseEnv } from "./env.server";
import { createServices } from "./services.server";
import { securityHeaders } from "./security-headers.server";
import { bridgeMediaStream } from "./voice/bridge.server";

// The context must be an instance of the RouterContextProvider the Express adapter checks
// against: the react-router module the adapter itself loads (with require), which under some
// loaders (vitest) is not the one a static import here would get.
const { RouterContextProvider } = createRequire(import.meta.url)("react-router") as {
  RouterContextProvider: new () => RouterContextProviderType;
};

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

  const mediaStreams = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  return {
    app,
    services,
    upgrade(request, socket, head) {
      const url = new URL(request.url ?? "/", `http://${request.headers.host ?? "localhost"}`);
      const match = /^\/media-stream\/(\d+)$/.exec(url.pathname);
      if (!match) {
        socket.end("HTTP/1.1 404 Not Found\r\nConnection: close\r\n\r\n");
        return;
      }
      // Twilio signs the handshake over the stream URL it was given; anything else is refused.
      const signature = request.headers["x-twilio-signature"];
      const origins = [
        ...(env.APP_URL ? [env.APP_URL.replace(/\/$/, "").replace(/^http/, "ws")] : []),
        `ws://${request.headers.host}`,
        `wss://${request.headers.host}`,
      ];
      const signed = origins.some((origin) =>
        services.telephony.verifySignature(typeof signature === "string" ? signature : null, `${origin}${url.pathname}`, {}),
      );
      if (!signed) {
        socket.end("HTTP/1.1 403 Forbidden\r\nConnection: close\r\n\r\n");
        return;
      }
      mediaStreams.handleUpgrade(request, socket, head, (ws) => bridgeMediaStream(services, ws, Number(match[1])));
    },
    async close() {
      for (const client of mediaStreams.clients) client.close(1001, "server shutting down");
      mediaStreams.close();
      await services.close();
    },
  };
}

export async function createProductionServer() {
  const build = (await import("virtual:react-router/server-build")) as unknown as ServerBuild;
  return createAppServer({ build });
}
