import { describe, expect, it } from "vitest";
import {
  admitToolCall,
  CANCEL_BOOKING,
  DO_NOT_CALL,
  END_CALL,
  endCallTool,
  LOOKUP_BOOKING,
  withPurposeTools,
  type AgentTool,
} from "./agents.server";

const tool = (name: string, properties: Record<string, unknown> = {}): AgentTool => ({
  name,
  description: name,
  parameters: { type: "object", properties, required: [] },
  run: async () => `${name} ran`,
});

describe("the tools of a call", () => {
  const agent = {
    instructions: "",
    greeting: "",
    voice: "alloy",
    tools: [tool(CANCEL_BOOKING, { reason: {} }), tool(DO_NOT_CALL), tool(LOOKUP_BOOKING), endCallTool],
  };

  it("are only those its purpose needs", () => {
    expect(withPurposeTools("booking_reminder", agent).tools.map((t) => t.name)).toEqual([CANCEL_BOOKING, DO_NOT_CALL, END_CALL]);
    expect(withPurposeTools("booking_confirmation", agent).tools.map((t) => t.name)).toEqual([
      CANCEL_BOOKING,
      DO_NOT_CALL,
      LOOKUP_BOOKING,
      END_CALL,
    ]);
    expect(withPurposeTools("empathy", agent).tools.map((t) => t.name)).toEqual([END_CALL]);
    expect(withPurposeTools("demo", agent).tools.map((t) => t.name)).toEqual([END_CALL]);
  });

  it("refuse a tool the call does not have, and a booking-changing tool given anything but its own arguments", () => {
    const reminder = withPurposeTools("booking_reminder", agent);
    expect(admitToolCall(reminder, LOOKUP_BOOKING, {})).toMatchObject({ refused: "not_offered" });
    expect(admitToolCall(reminder, CANCEL_BOOKING, { reason: "cannot come" }).tool?.name).toBe(CANCEL_BOOKING);
    expect(admitToolCall(reminder, DO_NOT_CALL, {}).tool?.name).toBe(DO_NOT_CALL);
    for (const args of [{ reference: "K7M-Q4P" }, { booking_id: 12 }, { reason: "x", bookingId: 3 }, [], null]) {
      const refused = admitToolCall(reminder, CANCEL_BOOKING, args);
      expect(refused).toMatchObject({ refused: "other_target" });
      expect(refused.refused && refused.output).toMatch(/^Refused: cancel_booking acts only on the booking this call is about/);
    }
    expect(admitToolCall(reminder, DO_NOT_CALL, { phone: "+12125550100" })).toMatchObject({ refused: "other_target" });
    // Tools that change nothing take what the model passes.
    expect(
      admitToolCall(withPurposeTools("booking_confirmation", agent), LOOKUP_BOOKING, { reference: "K7M-Q4P", phone: "+1" }).tool?.name,
    ).toBe(LOOKUP_BOOKING);
  });
});
