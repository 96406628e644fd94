import { readFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { callPurpose } from "#models/schema";

const root = path.resolve(import.meta.dirname, "../..");

/**
 * Issue 48: a purpose is registered, not a branch. What a kind of call does differently (its
 * agent, the crisis script, the cues it is given) comes from its CallPurpose, so adding one adds
 * no line to the bridge.
 */
describe("the realtime bridge", () => {
  // Its modules: the relay, the model's session, the phone's leg, the call's state, the codec.
  const modules = ["bridge.server.ts", "model-session.server.ts", "phone-leg.server.ts", "call-state.server.ts", "bridge-codec.server.ts"];

  it.each(modules)("names no call purpose in %s", async (file) => {
    const source = await readFile(path.join(root, "app/voice", file), "utf8");
    const named = callPurpose.enumValues.filter((purpose) => new RegExp(`["'\`]${purpose}["'\`]`).test(source));
    expect(named).toEqual([]);
  });
});
