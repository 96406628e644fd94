// The call-audio bridge on a process of its own: Twilio's media streams and the realtime model,
// without the web app (see app/server/bridge-server.ts). `node bridge.js` runs the production
// build (`npm run build` makes build/bridge/index.js); `node bridge.js --dev` loads the sources
// through Vite. The web server (server.js) serves /media-stream too; MEDIA_STREAM_ORIGIN tells it
// to send Twilio here instead.

// A failed promise in one call (a database write) must not end the others: it is logged and the
// process goes on. An uncaught exception leaves it in an unknown state: logged, and it exits (a
// supervisor restarts it).
// The app's logger (JSON lines, redacted) once the bridge is loaded; before that, plain messages.
let log = {
  info: (message) => console.log(message),
  error: (fields, message) => console.error(message ?? fields, message ? (fields?.err?.stack ?? fields?.err ?? "") : ""),
};
const errorFields = (error) => ({ err: error instanceof Error ? error : { message: String(error) } });
process.on("unhandledRejection", (reason) => {
  log.error(errorFields(reason), "Unhandled promise rejection (the bridge keeps running)");
});
process.on("uncaughtException", (error, origin) => {
  log.error(errorFields(error), `Uncaught exception (${origin}); stopping`);
  process.exit(1);
});

const dev = process.argv.includes("--dev");
let vite;
let bridge;
try {
  let mod;
  if (dev) {
    vite = await import("vite").then((m) => m.createServer({ server: { middlewareMode: true }, appType: "custom" }));
    mod = await vite.ssrLoadModule("./app/server/bridge-server.ts");
  } else {
    mod = await import("./build/bridge/index.js").catch((error) => {
      if (error?.code !== "ERR_MODULE_NOT_FOUND") throw error;
      throw new Error("There is no build of the bridge (build/bridge/index.js): run `npm run build` first.");
    });
  }
  log = mod.log;
  bridge = await mod.startBridgeServer();
} catch (error) {
  // A bad setting, a missing build or a taken port is a message for the person starting it, not a stack.
  const expected = /^(Invalid environment variables|There is no build|Port \d+ is already in use)/.test(String(error?.message));
  if (expected) console.error(error.message);
  else log.error(errorFields(error), "The bridge could not start");
  await vite?.close();
  process.exit(1);
}
// The start-up banner is for the person starting it: plain text; the event itself is logged.
for (const line of bridge.summary) console.log(line);
log.info("the bridge is listening");

let closing = false;
async function shutdown(signal) {
  if (closing) return;
  closing = true;
  log.info(`${signal} received: closing the calls' streams and stopping.`);
  await bridge.close().catch((error) => log.error(errorFields(error), "Stopping failed"));
  await vite?.close();
  process.exit(0);
}
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));
