// `npm test`: type-check, build the production bundle (the browser tests run it as users do),
// then every vitest suite. It ends with one line "N passed, N failed".
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const run = (cmd, args, env = {}) =>
  spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;

const chromium = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find(
  (p) => p && existsSync(p),
);
const banner = (lines) => {
  const bar = "!".repeat(78);
  console.error(`\n${bar}\n${lines.map((l) => `!! ${l}`).join("\n")}\n${bar}\n`);
};
const noBrowser = [
  "CHROMIUM NOT FOUND: the browser (end-to-end and accessibility) tests cannot run.",
  "Fix: sudo apt-get install -y chromium   (or set CHROMIUM_PATH to a Chromium binary)",
];
if (!chromium) {
  banner(noBrowser);
  if (process.env.CI) process.exit(1);
}

console.log(`Database for this run: ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : "PGlite (embedded)"}`);
if (run("npx", ["react-router", "typegen"]) !== 0 || run("npx", ["tsc"]) !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
if (chromium && run("npx", ["react-router", "build"]) !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

const report = path.join(os.tmpdir(), `sakina-vitest-${process.pid}.json`);
const vitestArgs = ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`];
if (!chromium) vitestArgs.push("--exclude", "tests/e2e/**");
vitestArgs.push(...process.argv.slice(2));
const status = run("npx", vitestArgs);

let passed = 0;
let failed = 0;
if (existsSync(report)) {
  const result = JSON.parse(readFileSync(report, "utf8"));
  passed = result.numPassedTests;
  failed = result.numFailedTests + (result.numRuntimeErrorTestSuites ?? 0);
  rmSync(report);
}
if (status !== 0 && failed === 0) failed = 1;
if (!chromium) banner([...noBrowser, "The browser tests were SKIPPED."]);
console.log(`${passed} passed, ${failed} failed`);
process.exit(status);
