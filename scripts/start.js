// `npm start`: build when the sources are newer than the last build, then serve. The server
// migrates the database and seeds the demo data itself. The build's own output (and the
// deprecation notices of the tools under it) is shown only when it fails, or with --verbose.
import "./node-version.js";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { reactRouterCli } from "./react-router-cli.js";

const root = path.resolve(import.meta.dirname, "..");
const buildMarker = path.join(root, "build/server/index.js");

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const sources = ["app", "models", "emails", "public"].map((d) => path.join(root, d)).filter(existsSync);
const configFiles = ["vite.config.ts", "react-router.config.ts", "package.json"].map((f) => path.join(root, f));
const sourceTime = Math.max(...sources.map(newestMtime), ...configFiles.map((f) => statSync(f).mtimeMs));
const needsBuild = !existsSync(buildMarker) || statSync(buildMarker).mtimeMs < sourceTime;

const verbose = process.argv.includes("--verbose");
if (needsBuild) {
  const started = Date.now();
  console.log("Building Sakina… (first start, or the sources changed)");
  const result = spawnSync(process.execPath, [reactRouterCli(root), "build"], {
    cwd: root,
    stdio: verbose ? "inherit" : "pipe",
    encoding: "utf8",
  });
  if (result.status !== 0) {
    if (!verbose) process.stderr.write(`${result.stdout ?? ""}${result.stderr ?? ""}`);
    console.error("The build failed (its output is above).");
    process.exit(result.status ?? 1);
  }
  console.log(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.`);
}

await import(path.join(root, "server.js"));
