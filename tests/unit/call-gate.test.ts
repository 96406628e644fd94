import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { callPurpose } from "#models/schema";

// Every call is made through one function, queueCall in app/calls/gate.server.ts: it applies the
// dialling policy and the caps with the origin of the request (or job) behind the call, and keeps
// that origin on the call. A path that inserted a call or queued its dialling job itself would
// skip them, so the sources are read here: the low-level ways in appear only where they belong,
// and every path that asks the gate for a call is listed below with its purpose. A new path fails
// this test until it is added to the list, on purpose.
const root = path.resolve(import.meta.dirname, "../..");
const GATE = "app/calls/gate.server.ts";
const ENGINE = "app/calls/engine.server.ts";

/** Each file that asks the gate for a call, and the purpose of each request, in order. */
const CALL_PATHS: Record<string, string[]> = {
  // The free demo call from the business page and the API.
  "app/calls/demo-calls.server.ts": ["demo"],
  // "Call me now" (page and API): the customer-service agent phones the visitor.
  "app/features/agent/call-me.server.ts": ["customer_service"],
  // The owner's (or admin's) test call from /telephony and the dashboard.
  "app/features/business/call-centre.server.ts": ["test"],
  // A booking's confirmation (booking page, API, manage page and owner's moves, the agent's bookings
  // in text chat, browser voice and on the phone), then its next attempt after no answer.
  "app/features/booking/booking.server.ts": ["booking_confirmation"],
  "app/features/booking/confirmation-call.server.ts": ["booking_confirmation"],
  // The AI reminder before the appointment.
  "app/features/booking/reminders.server.ts": ["booking_reminder"],
  // The paid call, its first attempt and the next ones.
  "app/features/empathy/empathy.server.ts": ["empathy"],
  // A subscriber's call, asked for on the dashboard or by their schedule.
  "app/features/subscriptions/support-calls.server.ts": ["support"],
};

/**
 * Calls nobody dials: someone rang a business's own number (ADR 0041). The gate records them
 * (recordInboundCall: the lines and the plan, no dialling policy), asked by these files only.
 */
const INBOUND_PATHS: Record<string, string[]> = {
  "app/features/receptionist/inbound.server.ts": ["receptionist"],
};

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

const files = [...sources("app"), ...sources("models").filter((file) => !file.startsWith("models/migrations/"))];
const read = (file: string) => readFileSync(path.join(root, file), "utf8");

/** Where `pattern` occurs, as `file:line`, outside the files allowed to use it. */
function usesOutside(pattern: RegExp, allowed: string[]) {
  const found: string[] = [];
  for (const file of files) {
    if (allowed.includes(file)) continue;
    read(file)
      .split("\n")
      .forEach((line, index) => {
        if (pattern.test(line)) found.push(`${file}:${index + 1}: ${line.trim()}`);
      });
  }
  return found;
}

describe("the call gate", () => {
  it("is the only code that inserts a call row", () => {
    expect(usesOutside(/\bcreateCallOnce\b|\bcreateCall\b/, [GATE, "models/calls.ts"])).toEqual([]);
    // models/calls.ts inserts in createCallOnce (and createCall, which tests use to set up rows) only.
    const inserts = read("models/calls.ts").match(/\.insert\(calls\)/g) ?? [];
    expect(inserts).toHaveLength(2);
    expect(usesOutside(/\.insert\(calls\)|insert into "?calls"?\b/i, ["models/calls.ts"])).toEqual([]);
  });

  it("and the engine are the only code that queues a dialling job", () => {
    expect(usesOutside(/enqueue\(\s*placeCallJob\b/, [GATE, ENGINE])).toEqual([]);
    expect(usesOutside(/["']call-place["']/, [ENGINE])).toEqual([]);
    // The engine re-queues calls that exist (a line freed, a deferral, a retry of the dial, "call me
    // again now"): it never makes one.
    expect(read(ENGINE)).not.toMatch(/createCallOnce|insert\(calls\)/);
  });

  it("is asked for a call by exactly the listed paths, each with its purpose and an origin", () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      if (file === GATE) continue;
      const text = read(file);
      for (const match of text.matchAll(/\bqueueCall\(/g)) {
        // The request object follows within the call; its purpose literal names the path.
        const request = text.slice(match.index, match.index + 900);
        const purpose = /purpose: "(\w+)"/.exec(request)?.[1] ?? "(no purpose literal)";
        expect(request, `${file}: a call without its origin`).toMatch(/\borigin\b/);
        (found[file] ??= []).push(purpose);
      }
    }
    expect(found).toEqual(CALL_PATHS);
  });

  it("records the calls made to a business's number through one function, from the listed paths only", () => {
    const found: Record<string, string[]> = {};
    for (const file of files) {
      if (file === GATE) continue;
      if (/\brecordInboundCall\(/.test(read(file))) (found[file] ??= []).push("receptionist");
    }
    expect(found).toEqual(INBOUND_PATHS);
    // The gate's inbound recording sets the purpose itself: nothing else can make an inbound call.
    expect(read(GATE)).toMatch(/purpose: "receptionist",\s+status: "in-progress"/);
  });

  it("lists a path for every call purpose", () => {
    const listed = new Set([...Object.values(CALL_PATHS), ...Object.values(INBOUND_PATHS)].flat());
    for (const purpose of callPurpose.enumValues) expect(listed, `no path for ${purpose}`).toContain(purpose);
  });
});
