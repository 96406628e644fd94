// `npm test`: the code checks (lint, formatting, dependency rules), type-check, build the
// production bundle (the browser tests run it as users do), then every vitest suite. It ends with
// one line "N passed, N failed". `npm run test:e2e` (`--e2e`) skips the code checks and runs the
// browser tests only.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;

const chromium = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"].find((p) => p && existsSync(p));
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

const args = process.argv.slice(2);
const e2eOnly = args.includes("--e2e");
const vitestFilters = args.filter((a) => a !== "--e2e");
if (e2eOnly && !chromium) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

console.log(`Database for this run: ${process.env.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : "PGlite (embedded)"}`);
if (!e2eOnly) {
  const checks = [
    ["Lint (ESLint)", ["eslint", "--cache", "--cache-location", "node_modules/.cache/eslint", "."]],
    ["Formatting (Prettier)", ["prettier", "--check", "--log-level", "warn", "."]],
    ["Dependency rules (dependency-cruiser)", ["depcruise", "app", "models", "emails", "--output-type", "err"]],
  ];
  for (const [name, command] of checks) {
    console.log(`== ${name}`);
    if (run("npx", command) !== 0) {
      console.log(`${name} failed: fix what it reports above.`);
      console.log("0 passed, 1 failed");
      process.exit(1);
    }
  }
}
if (run("npx", ["react-router", "typegen"]) !== 0 || run("npx", ["tsc"]) !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}
if (chromium && run("npx", ["react-router", "build"]) !== 0) {
  console.log("0 passed, 1 failed");
  process.exit(1);
}

// The route fuzz asserts the server stays responsive (health under a second) while it is
// hammered, so it runs on its own after the rest, not beside a browser test competing for the CPU.
const FUZZ = "tests/integration/fuzz.test.ts";
let passed = 0;
let failed = 0;
function vitest(args, name) {
  const report = path.join(os.tmpdir(), `sakina-vitest-${process.pid}-${name}.json`);
  const status = run("npx", [
    "vitest",
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    "--passWithNoTests",
    ...args,
  ]);
  let counted = 0;
  if (existsSync(report)) {
    const result = JSON.parse(readFileSync(report, "utf8"));
    passed += result.numPassedTests;
    counted = result.numFailedTests + (result.numRuntimeErrorTestSuites ?? 0);
    rmSync(report);
  }
  failed += status !== 0 && counted === 0 ? 1 : counted;
  return status;
}

const mainArgs = [];
if (!chromium) mainArgs.push("--exclude", "tests/e2e/**");
let status;
if (e2eOnly) {
  status = vitest([...mainArgs, "tests/e2e", ...vitestFilters], "e2e");
} else if (vitestFilters.length > 0) {
  status = vitest([...mainArgs, ...vitestFilters], "filtered");
} else {
  const rest = vitest([...mainArgs, "--exclude", FUZZ], "main");
  const fuzz = vitest([FUZZ], "fuzz");
  status = rest || fuzz;
}
if (!chromium) banner([...noBrowser, "The browser tests were SKIPPED."]);
console.log(`${passed} passed, ${failed} failed`);
process.exit(status);
