// `npm start`: build when the sources are newer than the last build, then serve. The server
// migrates the database and seeds the demo data itself.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";

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

if (needsBuild) {
  console.log("Building Sakina…");
  const result = spawnSync("npx", ["react-router", "build"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

await import(path.join(root, "server.js"));
