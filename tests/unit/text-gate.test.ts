import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// Every text (SMS) goes through queueText (app/texts/gate.server.ts): its job applies the opt-outs,
// the dialling policy and the one-send-per-key rule before Twilio is asked. The sources are read
// here: Twilio's Messages API is called in the messaging provider only, the provider's send only by
// the gate's job, the job is queued only by queueText, and every queueText passes a transaction.
const root = path.resolve(import.meta.dirname, "../..");
const PROVIDER = "app/providers/messaging.server.ts";
const GATE = "app/texts/gate.server.ts";

function sources(dir: string): string[] {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) return sources(relative);
    return /\.(ts|tsx|js)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [relative] : [];
  });
}

const read = (file: string) => readFileSync(path.join(root, file), "utf8");
const all = () => [...sources("app"), ...sources("models"), ...sources("emails"), "server.js", "bridge.js"];

/** The files in which `pattern` occurs. */
const filesWith = (pattern: RegExp) => all().filter((file) => pattern.test(read(file)));

describe("the one way a text is sent", () => {
  it("calls Twilio's Messages API in the messaging provider only", () => {
    expect(filesWith(/\bmessages\s*\.\s*create\s*\(|\/Messages\.json|\bmessages\s*\(\s*\)?\s*\.\s*create/)).toEqual([PROVIDER]);
  });

  it("has the provider's send called by the gate's job only", () => {
    expect(filesWith(/\bmessaging\s*\.\s*send\s*\(|\bmessaging\b[^;]*\[\s*["'`]send/)).toEqual([GATE]);
    // Twilio clients are made in one place, and used only by the providers (the calls' and the numbers' have no messages in them).
    const others = ["app/providers/telephony.server.ts", "app/providers/phone-numbers.server.ts"];
    expect(filesWith(/\btwilio\s*\(/)).toEqual(["app/providers/telephony.server.ts"]);
    expect(filesWith(/\btwilioClient\s*\(/).sort()).toEqual([PROVIDER, ...others].sort());
    for (const other of others) expect(read(other)).not.toMatch(/\bmessages\b/);
  });

  it("queues the send job in queueText only, inside the caller's transaction", () => {
    expect(filesWith(/\bsendTextJob\b/).sort()).toEqual(["app/server/all-jobs.server.ts", GATE].sort());
    const gate = read(GATE);
    expect([...gate.matchAll(/jobs\.enqueue\(sendTextJob,[^)]*\)/g)].map((m) => m[0])).toEqual([
      "jobs.enqueue(sendTextJob, request, { tx, singletonKey: `text-${request.key}` })",
    ]);
    expect(gate).toMatch(/export async function queueText\(services: AppServices, tx: Db, request: TextRequest\)/);
  });

  it("is called with a transaction wherever it is called", () => {
    const calls = all().flatMap((file) =>
      [...read(file).matchAll(/\bqueueText\(([^,]+),\s*([^,]+),/g)]
        .filter((m) => !/function queueText/.test(read(file).slice(Math.max(0, m.index - 20), m.index + 10)))
        .map((m) => ({ file, tx: m[2]!.trim() })),
    );
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((call) => call.tx !== "tx")).toEqual([]);
  });

  it("finds a path around it", () => {
    const sneaky = "await client.messages.create({ to, from, body });";
    expect(/\bmessages\s*\.\s*create\s*\(/.test(sneaky)).toBe(true);
  });
});
