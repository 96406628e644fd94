/**
 * Log lines a test expects. Every console.warn and console.error during a test fails it (see
 * setup.ts) unless the test declared the line here first: a setting a provider rejects, or a
 * failure nobody asserted on, can never pass silently.
 */
export type LogLevel = "warn" | "error";

interface Expectation {
  level: LogLevel;
  pattern: RegExp;
  seen: number;
  /** A line that may or may not come (see allowLog). */
  optional?: boolean;
}

let expectations: Expectation[] = [];

/**
 * Allows log lines of `level` matching `pattern` for the rest of the current test, and requires
 * one. Returns how many came so far (`.seen`), for a test that waits for the line.
 */
export function expectLog(level: LogLevel, pattern: RegExp): { readonly seen: number } {
  const expectation = { level, pattern, seen: 0 };
  expectations.push(expectation);
  return expectation;
}

/**
 * Allows log lines of `level` matching `pattern` for the rest of the current test without
 * requiring one: for what the app rightly says about work the test started but does not drive
 * (a call the route fuzz placed and left silent is ended after 60 s, if the fuzz runs that long).
 */
export function allowLog(level: LogLevel, pattern: RegExp) {
  expectations.push({ level, pattern, seen: 0, optional: true });
}

/** True when the line was expected (and counts it). */
export function isExpected(level: LogLevel, line: string) {
  const match = expectations.find((e) => e.level === level && e.pattern.test(line));
  if (match) match.seen += 1;
  return Boolean(match);
}

/** Ends the test's expectations; returns those that never happened. */
export function endExpectations() {
  const missed = expectations.filter((e) => e.seen === 0 && !e.optional);
  expectations = [];
  return missed;
}

let unexpected: string[] = [];

/** Notes a line no test expected (tests/support/setup.ts fails the test with it). */
export function noteUnexpected(line: string) {
  unexpected.push(line);
}

/** The unexpected lines since the last call. */
export function takeUnexpected() {
  const seen = unexpected;
  unexpected = [];
  return seen;
}
