// `npm run test:at-date -- "2026-12-31 23:40" [vitest arguments…]`: the vitest suites (or the files
// named) with the clock moved to that time, UTC (libfaketime: `apt-get install -y faketime`). The
// clock moves by an offset, so every process started (the test servers too) agrees on the time and
// it keeps running. A test that picks its days by position, not by what the booking page offers,
// fails on some date; this finds it before a year's end, a Saturday or a change of summer time does.
// The browser keeps the real clock (tests/support/browser.ts), and so does a PostgreSQL server
// (`DATABASE_URL`): run it on PGlite, whose clock is the test process's.
import { spawnSync } from "node:child_process";
import path from "node:path";

const [when, ...vitestArgs] = process.argv.slice(2);
const target = when ? Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(when) ? when : `${when.replace(" ", "T")}Z`) : NaN;
if (Number.isNaN(target)) {
  console.error('Usage: npm run test:at-date -- "YYYY-MM-DD HH:MM" [vitest files or options] (the time is UTC)');
  process.exit(2);
}
if (spawnSync("faketime", ["--help"], { stdio: "ignore" }).error) {
  console.error("faketime is not installed: apt-get install -y faketime");
  process.exit(2);
}
const offsetSeconds = Math.round((target - Date.now()) / 1000);
console.log(`Running the tests at ${new Date(target).toISOString()} (the clock moved by ${offsetSeconds} s).`);
const result = spawnSync("faketime", ["-f", `${offsetSeconds >= 0 ? "+" : ""}${offsetSeconds}s`, "npx", "vitest", "run", ...vitestArgs], {
  cwd: path.resolve(import.meta.dirname, ".."),
  stdio: "inherit",
  // Timers run on the monotonic clock, which keeps its pace.
  env: { ...process.env, FAKETIME_DONT_FAKE_MONOTONIC: "1" },
});
process.exit(result.status ?? 1);
