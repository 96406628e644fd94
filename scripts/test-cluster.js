// `npm run test:cluster`: the deployment in deploy/ on this machine (nginx, two web processes and a
// bridge process on one PostgreSQL database) started and tried through nginx against the fake
// providers (tests/cluster/), and scraped by Prometheus. Needs Debian's nginx and prometheus and
// a PostgreSQL server: DATABASE_URL, by default the local one at 127.0.0.1:5432. Builds what the processes run (the app's build when it
// is missing, the bridge's always: a few seconds), then ends with one line "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const env = {
  ...process.env,
  DATABASE_URL: process.env.DATABASE_URL || "postgres://postgres@127.0.0.1:5432/postgres",
  SAKINA_CLUSTER: "1",
};
const run = (cmd, args) => spawnSync(cmd, args, { cwd: root, stdio: "inherit", env }).status ?? 1;
const fail = (why) => {
  console.error(why);
  console.log("0 passed, 1 failed");
  process.exit(1);
};

if (spawnSync("nginx", ["-v"]).status !== 0) fail("nginx is not installed: sudo apt-get install -y nginx");
if (spawnSync("prometheus", ["--version"]).status !== 0) fail("prometheus is not installed: sudo apt-get install -y prometheus");
if (!existsSync(path.join(root, "build/server/index.js")) && run("npx", ["react-router", "build"]) !== 0) fail("The app's build failed.");
if (run("npx", ["vite", "build", "--mode", "bridge", "--logLevel", "warn"]) !== 0) fail("The bridge's build failed.");

const report = path.join(os.tmpdir(), `sakina-cluster-${process.pid}.json`);
const status = run("npx", ["vitest", "run", "tests/cluster", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`]);
let passed = 0;
let failed = status === 0 ? 0 : 1;
if (existsSync(report)) {
  const result = JSON.parse(readFileSync(report, "utf8"));
  passed = result.numPassedTests;
  failed = Math.max(result.numFailedTests + (result.numRuntimeErrorTestSuites ?? 0), status === 0 ? 0 : 1);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
