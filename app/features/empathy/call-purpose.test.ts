import { describe, expect, it } from "vitest";
import type { Call } from "#models/calls";
import { callTexts } from "~/voice/call-texts.server";
import { empathyCallPurpose } from "./empathy.server";

describe("the paid listener's call purpose", () => {
  it("asks the listener, a minute before the limit, for the reviewed sentence in the call's language", () => {
    const call = { timeLimitSeconds: 600, language: "ar", toNumber: "+966501234567" } as Call;
    const cues = empathyCallPurpose.cues?.(call) ?? [];
    expect(cues).toHaveLength(1);
    expect(cues[0]!.afterSeconds).toBe(540);
    expect(cues[0]!.instructions).toContain(callTexts("ar").oneMinuteLeft);
  });

  it("answers a caller in crisis with the script for the caller's own number", () => {
    const call = { toNumber: "+966501234567", fromNumber: "+15005550006" } as Call;
    expect(empathyCallPurpose.crisis?.callerNumber(call)).toBe("+966501234567");
  });
});
