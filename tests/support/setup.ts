import { appendFileSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { afterAll, afterEach, beforeAll, expect, vi } from "vitest";
import { endExpectations, isExpected, noteUnexpected, takeUnexpected, type LogLevel } from "./console";
import { runningApps } from "./running-apps";

const WRAPPED = Symbol.for("sakina.console-checked");

// React's production build, as the app has under `npm start`, whatever a test imports first: the
// development build records where every element was made, which made each page rendered by an
// in-process app (tests/support/app-in-process.ts) several times slower. Loaded before anything
// else, under the NODE_ENV that picks those files; the rest of the test keeps vitest's "test".
{
  const require = createRequire(import.meta.url);
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = "production";
  try {
    for (const name of ["react", "react/jsx-runtime", "react-dom", "react-dom/server"]) require(name);
  } finally {
    process.env.NODE_ENV = nodeEnv;
  }
}

// A warning or an error logged during a test fails it, unless the test declared it with
// expectLog(): it means something broke, or a setting was refused, and nobody asserted on it.
// Wrapped once per process: a worker runs several files (vitest.config's isolate: false), and this
// file again before each of them.
for (const level of ["warn", "error"] as const satisfies LogLevel[]) {
  const current = console[level] as ((...args: unknown[]) => void) & { [WRAPPED]?: true };
  if (current[WRAPPED]) continue;
  const original = current.bind(console);
  console[level] = Object.assign(
    (...args: unknown[]) => {
      const line = args.map((a) => (a instanceof Error ? (a.stack ?? a.message) : String(a))).join(" ");
      if (!isExpected(level, line)) noteUnexpected(`console.${level}: ${line}`);
      original(...args);
    },
    { [WRAPPED]: true as const },
  );
}

// The app's own log lines (pino, app/platform/observability/log.server.ts) come here instead of
// the terminal: a warning or an error fails the test as a console one does, unless expected;
// lines below that are not printed. Each line, as the logger wrote it (redacted), is also kept in
// SAKINA_LOG_DIR when `npm test` sets it: tests/log-scan checks afterwards that none holds a phone
// number, an e-mail address, a token or a customer's name.
const LOG_SINK = Symbol.for("sakina.log-sink");
const logFile = process.env.SAKINA_LOG_DIR ? path.join(process.env.SAKINA_LOG_DIR, `worker-${process.pid}.jsonl`) : null;
if (logFile) mkdirSync(path.dirname(logFile), { recursive: true });
(globalThis as { [LOG_SINK]?: (line: string, level: number) => boolean })[LOG_SINK] ??= (line, level) => {
  if (logFile) appendFileSync(logFile, line.endsWith("\n") ? line : `${line}\n`);
  if (level < 40) return true;
  const kind: LogLevel = level >= 50 ? "error" : "warn";
  const text = logLineText(line);
  if (!isExpected(kind, text)) noteUnexpected(`log.${kind}: ${text}`);
  process.stderr.write(`log.${kind}: ${text}\n`);
  return true;
};

/** A JSON log line as the text a test's expectLog matches: its message, then its error's stack (or message). */
function logLineText(line: string) {
  try {
    const entry = JSON.parse(line) as { msg?: string; err?: { stack?: string; message?: string } };
    return [entry.msg, entry.err?.stack ?? entry.err?.message].filter(Boolean).join(" ");
  } catch {
    return line.trim();
  }
}

// The files this worker ran, in order: a line logged by work an earlier file left behind (a call
// its app still bridged) names the files that could have left it.
const FILES_RUN = Symbol.for("sakina.files-run");
const filesRun: string[] = ((globalThis as { [FILES_RUN]?: string[] })[FILES_RUN] ??= []);
beforeAll(() => {
  filesRun.push(path.relative(process.cwd(), expect.getState().testPath ?? "?"));
});

afterEach(() => {
  const seen = takeUnexpected();
  const missed = endExpectations();
  vi.restoreAllMocks();
  if (seen.length > 0) {
    const earlier = filesRun.slice(0, -1);
    throw new Error(
      `Unexpected log lines during the test:\n${seen.join("\n")}` +
        (earlier.length > 0 ? `\n(files this worker ran before this one, latest last: ${earlier.slice(-8).join(", ")})` : ""),
    );
  }
  if (missed.length > 0) {
    throw new Error(`Expected log lines that never came:\n${missed.map((e) => `console.${e.level}: ${e.pattern}`).join("\n")}`);
  }
});

// Browser suites: axe checks each page state the test's browsers showed (tests/support/browser.ts).
type AxeCheck = {
  check: () => Promise<string>;
  stats: { captured: number; checked: number; checkedWithoutJavaScript: number; known: number; milliseconds: number };
};
const axeCheck = () => (globalThis as { sakinaAxeCheck?: AxeCheck }).sakinaAxeCheck;
afterEach(async () => {
  const failures = await axeCheck()?.check();
  if (failures) throw new Error(`Accessibility violations (axe, WCAG 2.1 AA) in states this test showed:\n${failures}`);
});
afterAll(() => {
  const stats = axeCheck()?.stats;
  if (stats && stats.captured > 0) {
    console.log(
      `axe: ${stats.checked} distinct states checked (${stats.checkedWithoutJavaScript} without JavaScript) and ${stats.known} known from earlier files or runs, of ${stats.captured} seen, ${(stats.milliseconds / 1000).toFixed(1)} s`,
    );
  }
  // The next file in this worker counts its own.
  if (stats) Object.assign(stats, { captured: 0, checked: 0, checkedWithoutJavaScript: 0, known: 0, milliseconds: 0 });
});

// The next file in this worker starts clean: an app this file started and left running is
// stopped, and fails the file.
afterAll(async () => {
  const left = [...runningApps.values()];
  runningApps.clear();
  await Promise.allSettled(left.map((app) => app.stop()));
  if (left.length > 0) {
    throw new Error(
      `In-process apps started and never stopped (by ${[...new Set(left.map((app) => app.file))].join(", ")}): stop each in afterAll.`,
    );
  }
});
