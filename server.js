// The Node entry: one HTTP server for pages, APIs and WebSocket upgrades (the phone-call audio
// bridge). `node server.js` serves the production build; `node server.js --dev` runs Vite in
// middleware mode with hot reload.
import http from "node:http";

const dev = process.argv.includes("--dev");

// The app's logger (JSON lines, redacted: app/platform/observability/log.server.ts) once the app
// is loaded; before that, what can go wrong is a message for the person starting the server.
let log = {
  info: (message) => console.log(message),
  error: (fields, message) => console.error(message ?? fields, message ? (fields?.err?.stack ?? fields?.err ?? "") : ""),
};
const errorFields = (error) => ({ err: error instanceof Error ? error : { message: String(error) } });

// One failed promise somewhere (a call's database write, a job) must not end every visitor's
// requests: it is logged with what failed, and the server goes on. An uncaught exception leaves
// the process in an unknown state, so it is logged and the process exits (a supervisor restarts it).
process.on("unhandledRejection", (reason) => {
  log.error(errorFields(reason), "Unhandled promise rejection (the server keeps running)");
});
process.on("uncaughtException", (error, origin) => {
  log.error(errorFields(error), `Uncaught exception (${origin}); stopping`);
  process.exit(1);
});
if (!process.env.NODE_ENV) process.env.NODE_ENV = dev ? "development" : "production";

let appServer;
try {
  if (dev) {
    const vite = await import("vite").then((m) => m.createServer({ server: { middlewareMode: true }, appType: "custom" }));
    const mod = await vite.ssrLoadModule("./app/server/http.server.ts");
    log = mod.log;
    appServer = await mod.createAppServer({
      build: () => vite.ssrLoadModule("virtual:react-router/server-build"),
      devMiddleware: vite.middlewares,
    });
  } else {
    const mod = await import("./build/server/index.js");
    log = mod.log;
    appServer = await mod.createProductionServer();
  }
} catch (error) {
  // A bad environment variable is a message for the person starting the server, not a stack.
  if (String(error?.message).startsWith("Invalid environment variables")) {
    console.error(error.message);
  } else {
    log.error(errorFields(error), "The server could not start");
  }
  process.exit(1);
}

const port = Number(process.env.PORT ?? 3000);
// Unset, Node listens on every interface (as hosting platforms expect); HOST=127.0.0.1 keeps it local.
const host = process.env.HOST || undefined;
const server = http.createServer(appServer.handler);
server.on("upgrade", (request, socket, head) => appServer.upgrade(request, socket, head));
server.on("error", async (error) => {
  if (error.code === "EADDRINUSE")
    log.error(`Port ${port} is already in use. Stop the other server or choose another port: PORT=3001 npm start`);
  else log.error(errorFields(error), "The server stopped");
  await appServer.close().catch(() => {});
  process.exit(1);
});
server.listen(port, host, () => {
  const { address, port: boundPort } = server.address();
  // The start-up banner is for the person starting the server (the address to open, the demo
  // owner's first password): plain text on the terminal, never a log event a shipper would keep.
  // The event itself is logged.
  for (const line of appServer.describe({ address, port: boundPort })) console.log(line);
  log.info({ address, port: boundPort }, "listening");
});

let closing = false;
async function shutdown(signal) {
  if (closing) return;
  closing = true;
  log.info(`${signal} received: finishing work in progress and stopping.`);
  server.close();
  server.closeAllConnections?.();
  await appServer.close().catch((error) => log.error(errorFields(error), "Stopping failed"));
  process.exit(0);
}
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));
