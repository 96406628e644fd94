import type { Agent, AgentTool } from "~/providers/voice-model.server";

export type { Agent, AgentTool };

/**
 * What every agent shares, whatever the call's purpose. The agents themselves belong to the
 * features that place their calls, and reach the bridge through the call purposes registered at
 * start-up (AppServices.callPurposes): this layer imports no feature.
 */

/** The language a call's agent is told to speak, by the call's language code. */
export const LANGUAGE_NAMES: Record<string, string> = {
  en: "English",
  ar: "Arabic",
  es: "Spanish",
  fr: "French",
  de: "German",
  it: "Italian",
};

/** end_call is every agent's: the bridge hangs up once the goodbye has been heard. */
export const END_CALL = "end_call";
export const endCallTool: AgentTool = {
  name: END_CALL,
  description: "Hang up after you have said goodbye. Never use it while the caller is in distress or still talking.",
  parameters: { type: "object", properties: { reason: { type: "string" } }, required: [] },
  run: async () => "The call will end after your last words have played.",
};
