// `npm test`: the code checks (lint, formatting, dependency rules), type-check, build the
// production bundle (the browser tests run it as users do), then every vitest suite. It ends with
// each phase's time and one line "N passed, N failed". `npm run test:e2e` (`--e2e`) skips the code
// checks and runs the browser tests only.
//
// The checks, the type-check and the build do not depend on the database: once they passed for a
// tree (the commit plus any uncommitted change, untracked files included), a second run on the same
// tree (CI's run on PostgreSQL after the one on PGlite) skips them and says so. SAKINA_RECHECK=1
// runs them anyway.
import "./node-version.js";
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromiumPath } from "../tests/support/chromium-path.mjs";

const root = path.resolve(import.meta.dirname, "..");
const run = (cmd, args, env = {}) => spawnSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } }).status ?? 1;
/** Runs the commands one after the other, their output held back; resolves with the first failing status (0 if none) and the output. */
function runQuietly(commands) {
  return new Promise((resolve) => {
    let output = "";
    const next = (index) => {
      if (index === commands.length) return resolve({ status: 0, output });
      const [cmd, args] = commands[index];
      const child = spawn(cmd, args, { cwd: root, env: process.env, stdio: ["ignore", "pipe", "pipe"] });
      child.stdout.on("data", (chunk) => (output += chunk));
      child.stderr.on("data", (chunk) => (output += chunk));
      child.on("close", (code) => (code === 0 ? next(index + 1) : resolve({ status: code ?? 1, output })));
    };
    next(0);
  });
}

const phases = [];
/** Runs `work` as a named phase, recording its time for the summary at the end. */
function phase(name, work) {
  const started = performance.now();
  const result = work();
  phases.push([name, (performance.now() - started) / 1000]);
  return result;
}
function printPhases() {
  const total = phases.reduce((sum, [, seconds]) => sum + seconds, 0);
  console.log("\nTime by phase:");
  for (const [name, seconds] of [...phases, ["Total", total]]) console.log(`  ${name.padEnd(44)} ${seconds.toFixed(1).padStart(7)} s`);
}

/**
 * What the tree holds: HEAD, the uncommitted diff and the untracked files' contents. Null outside
 * a git checkout (then nothing is skipped).
 */
function treeKey() {
  const git = (...args) => spawnSync("git", args, { cwd: root, encoding: "buffer", maxBuffer: 512 * 1024 * 1024 });
  const head = git("rev-parse", "HEAD");
  if (head.status !== 0) return null;
  const hash = createHash("sha256").update(head.stdout);
  hash.update(git("diff", "HEAD", "--binary").stdout);
  const untracked = git("ls-files", "--others", "--exclude-standard", "-z").stdout.toString().split("\0").filter(Boolean);
  for (const file of untracked.sort()) {
    hash.update(`\0${file}\0`);
    if (existsSync(path.join(root, file))) hash.update(readFileSync(path.join(root, file)));
  }
  return hash.digest("hex");
}
// Beside the build it vouches for (and per checkout: node_modules may be shared by several).
const stampFile = path.join(root, "build", ".checks-passed");

// The browser the tests will drive (Debian's headless shell before the full browser).
const chromium = chromiumPath();
const banner = (lines) => {
  const bar = "!".repeat(78);
  console.error(`\n${bar}\n${lines.map((l) => `!! ${l}`).join("\n")}\n${bar}\n`);
};
const noBrowser = [
  "CHROMIUM NOT FOUND: the browser (end-to-end and accessibility) tests cannot run.",
  "Fix: sudo apt-get install -y chromium-headless-shell   (or chromium; or set CHROMIUM_PATH to a Chromium binary)",
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
const fail = () => {
  printPhases();
  console.log("0 passed, 1 failed");
  process.exit(1);
};
const key = e2eOnly ? null : treeKey();
const built = existsSync(path.join(root, "build", "server", "index.js"));
const alreadyPassed =
  key !== null && built && !process.env.SAKINA_RECHECK && existsSync(stampFile) && readFileSync(stampFile, "utf8") === key;
if (alreadyPassed) {
  console.log("== Lint, formatting, dependency rules, types and build already passed for this tree: skipped (SAKINA_RECHECK=1 runs them)");
} else {
  if (!e2eOnly) rmSync(stampFile, { force: true });
  // Each check is mostly one busy thread (ESLint, tsc): they run side by side, and beside the
  // production build the tests run, each printing its output when it ends, so the machine's cores
  // are all used.
  const checks = [
    ...(e2eOnly
      ? []
      : [
          ["Lint (ESLint)", [["npx", ["eslint", "--cache", "--cache-location", "node_modules/.cache/eslint", "."]]]],
          ["Formatting (Prettier)", [["npx", ["prettier", "--check", "--log-level", "warn", "."]]]],
          ["Dependency rules (dependency-cruiser)", [["npx", ["depcruise", "app", "models", "emails", "--output-type", "err"]]]],
        ]),
    [
      "Types (typegen, tsc)",
      [
        ["npx", ["react-router", "typegen"]],
        ["npx", ["tsc"]],
      ],
    ],
    ...(chromium ? [["Build (react-router build)", [["npx", ["react-router", "build"]]]]] : []),
  ];
  const started = performance.now();
  const results = await Promise.all(
    checks.map(async ([name, commands]) => {
      const began = performance.now();
      const result = await runQuietly(commands);
      const seconds = (performance.now() - began) / 1000;
      console.log(`== ${name}: ${result.status === 0 ? "passed" : "FAILED"} in ${seconds.toFixed(1)} s`);
      if (result.output.trim()) console.log(result.output.trimEnd());
      return { name, ...result };
    }),
  );
  phases.push([`Checks side by side (${checks.map(([name]) => name.split(" ")[0]).join(", ")})`, (performance.now() - started) / 1000]);
  const failedCheck = results.find((result) => result.status !== 0);
  if (failedCheck) {
    console.log(`${failedCheck.name} failed: fix what it reports above.`);
    fail();
  }
  if (key !== null && chromium) {
    mkdirSync(path.dirname(stampFile), { recursive: true });
    writeFileSync(stampFile, key);
  }
}

// The route fuzz asserts the server stays responsive (health under a second) while it is
// hammered, so it runs after the rest, not beside a browser test competing for the CPU: its two
// files (each an app of its own, taking a share of the requests) side by side.
const FUZZ = ["tests/integration/fuzz.test.ts", "tests/integration/fuzz-routes.test.ts"];
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

// Every line the app's logger writes during the runs below is kept here (tests/support/setup.ts,
// tests/support/server.ts); tests/log-scan then checks that none holds a phone number, an
// e-mail address, a token or a customer's name.
const logDir = path.join(os.tmpdir(), `sakina-test-log-${process.pid}`);
rmSync(logDir, { recursive: true, force: true });
mkdirSync(logDir, { recursive: true });
process.env.SAKINA_LOG_DIR = logDir;
// The whole suite must have logged something for the scan to mean anything; a filtered run may not.
if (!e2eOnly && vitestFilters.length === 0) process.env.SAKINA_LOG_SCAN_FULL = "1";

const mainArgs = ["--project", "rest", "--project", "isolated"];
if (!chromium) mainArgs.push("--exclude", "tests/e2e/**");
let status;
if (e2eOnly) {
  status = phase("Browser tests (vitest)", () => vitest([...mainArgs, "tests/e2e", ...vitestFilters], "e2e"));
} else if (vitestFilters.length > 0) {
  status = phase("Tests (vitest, filtered)", () => vitest([...mainArgs, ...vitestFilters], "filtered"));
} else {
  const rest = phase("Tests (vitest, all but the fuzz)", () =>
    vitest([...mainArgs, ...FUZZ.flatMap((file) => ["--exclude", file])], "main"),
  );
  const fuzz = phase("Route fuzz (vitest)", () => vitest(FUZZ, "fuzz"));
  status = rest || fuzz;
}
// The log the runs wrote, scanned (see above), as a test of its own.
const scanned = phase("Log redaction scan (vitest)", () => vitest(["--project", "log-scan"], "log-scan"));
status = status || scanned;
rmSync(logDir, { recursive: true, force: true });

// The alert rules (deploy/prometheus/): promtool checks them and runs each rule's tests, which
// fire it on sample series and keep it quiet without. Debian's prometheus package has promtool.
if (!e2eOnly) {
  const promtool = spawnSync("promtool", ["--version"], { stdio: "ignore" }).status === 0;
  if (!promtool) {
    banner(["PROMTOOL NOT FOUND: the alert rules' tests cannot run.", "Fix: sudo apt-get install -y prometheus"]);
    if (process.env.CI) {
      failed += 1;
      status = 1;
    }
  } else {
    const rules = phase("Alert rules (promtool check rules, test rules)", () => [
      run("promtool", ["check", "rules", "deploy/prometheus/alerts.yml"]),
      run("promtool", ["test", "rules", "deploy/prometheus/alerts.test.yml"]),
    ]);
    passed += rules.filter((result) => result === 0).length;
    failed += rules.filter((result) => result !== 0).length;
    if (rules.some((result) => result !== 0)) status = 1;
  }
}
if (!chromium) banner([...noBrowser, "The browser tests were SKIPPED."]);
printPhases();
console.log(`${passed} passed, ${failed} failed`);
process.exit(status);
