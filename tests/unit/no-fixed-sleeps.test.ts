import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// A test that sleeps a fixed time either waits too long (slow CI) or not long enough (a flaky
// failure on a loaded machine). Tests wait for the event that rules the outcome in or out
// (tests/support/wait.ts, tests/support/jobs.ts, the fakes' waitFor… methods) instead. Short
// pauses (≤ 100 ms, a poll's interval) and timeouts raced against an event are not waits.
const root = path.resolve(import.meta.dirname, "..");
const LIMIT_MS = 100;
const SLEEPS = [
  /await new Promise\(\(?\w*\)? => setTimeout\(\w+, ([\d_]+)\)\)/g,
  /await (?:sleep|delay|setTimeoutPromise)\(([\d_]+)\)/g,
  /waitForTimeout\(([\d_]+)\)/g,
];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith(".ts") ? [full] : [];
  });
}

describe("the tests", () => {
  it(`sleep no fixed time over ${LIMIT_MS} ms: they wait for what they are waiting for`, () => {
    const found: string[] = [];
    for (const file of testFiles(root)) {
      const lines = readFileSync(file, "utf8").split("\n");
      lines.forEach((line, index) => {
        for (const pattern of SLEEPS) {
          for (const match of line.matchAll(pattern)) {
            if (Number(match[1]!.replace(/_/g, "")) > LIMIT_MS) found.push(`${path.relative(root, file)}:${index + 1}: ${line.trim()}`);
          }
        }
      });
    }
    expect(found).toEqual([]);
  });
});
