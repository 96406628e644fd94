// The call-audio bridge on a process of its own: Twilio's media streams and the realtime model,
// without the web app (see app/server/bridge-server.ts). `node bridge.js` runs the production
// build (`npm run build` makes build/bridge/index.js); `node bridge.js --dev` loads the sources
// through Vite. The web server (server.js) serves /media-stream too; MEDIA_STREAM_ORIGIN tells it
// to send Twilio here instead.

// A failed promise in one call (a database write) must not end the others: it is logged and the
// process goes on. An uncaught exception leaves it in an unknown state: logged, and it exits (a
// supervisor restarts it).
process.on("unhandledRejection", (reason) => {
  console.error(
    "Unhandled promise rejection (the bridge keeps running):",
    reason instanceof Error ? (reason.stack ?? reason.message) : reason,
  );
});
process.on("uncaughtException", (error, origin) => {
  console.error(`Uncaught exception (${origin}); stopping:`, error?.stack ?? error);
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
  bridge = await mod.startBridgeServer();
} catch (error) {
  // A bad setting, a missing build or a taken port is a message for the person starting it, not a stack.
  const expected = /^(Invalid environment variables|There is no build|Port \d+ is already in use)/.test(String(error?.message));
  console.error(expected ? error.message : error);
  await vite?.close();
  process.exit(1);
}
for (const line of bridge.summary) console.log(line);

let closing = false;
async function shutdown(signal) {
  if (closing) return;
  closing = true;
  console.log(`${signal} received: closing the calls' streams and stopping.`);
  await bridge.close().catch((error) => console.error(error));
  await vite?.close();
  process.exit(0);
}
process.on("SIGINT", () => shutdown("SIGINT"));
process.on("SIGTERM", () => shutdown("SIGTERM"));
