import type { Call } from "#models/calls";
import type { ToolRefusal } from "#models/schema";
import type { Agent, AgentTool } from "~/providers/voice-model.server";

export type { Agent, AgentTool };
type CallPurposeName = Call["purpose"];

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

/** The tools that act on a booking: what each does, the feature decides; which calls may use them, this layer. */
export const LOOKUP_BOOKING = "lookup_booking";
export const FIND_BUSINESS = "find_business";
export const AVAILABLE_TIMES = "available_times";
export const BOOK_APPOINTMENT = "book_appointment";
export const CONFIRM_BOOKING = "confirm_booking";
export const CANCEL_BOOKING = "cancel_booking";
export const REQUEST_RESCHEDULE = "request_reschedule";
export const DO_NOT_CALL = "do_not_call";
export const SAVE_SUMMARY = "save_summary";
/** The receptionist's (ADR 0041): a booking of the caller's own number, found by its reference; a message; a person. */
export const MOVE_BY_REFERENCE = "move_booking_by_reference";
export const CANCEL_BY_REFERENCE = "cancel_booking_by_reference";
export const TAKE_MESSAGE = "take_message";
export const TRANSFER_TO_OWNER = "transfer_to_owner";

const BOOKING_ANSWERS = [CONFIRM_BOOKING, CANCEL_BOOKING, REQUEST_RESCHEDULE, DO_NOT_CALL, SAVE_SUMMARY, END_CALL];
const CUSTOMER_SERVICE = [LOOKUP_BOOKING, FIND_BUSINESS, AVAILABLE_TIMES, BOOK_APPOINTMENT, END_CALL];

/**
 * The tools a call may use, by its purpose: what the purpose needs and nothing more. A tool an
 * agent brings that is not listed is neither offered to the model nor run.
 */
const PURPOSE_TOOLS: Record<CallPurposeName, readonly string[]> = {
  empathy: [END_CALL],
  support: [SAVE_SUMMARY, END_CALL],
  booking_confirmation: [LOOKUP_BOOKING, ...BOOKING_ANSWERS],
  booking_reminder: BOOKING_ANSWERS,
  demo: [END_CALL],
  customer_service: CUSTOMER_SERVICE,
  test: CUSTOMER_SERVICE,
  receptionist: [
    AVAILABLE_TIMES,
    BOOK_APPOINTMENT,
    MOVE_BY_REFERENCE,
    CANCEL_BY_REFERENCE,
    TAKE_MESSAGE,
    TRANSFER_TO_OWNER,
    SAVE_SUMMARY,
    END_CALL,
  ],
};

/**
 * Tools that change something for good and act only on the booking and number the call is about
 * (the agent's tools close over them). They take no booking, reference or number from the model:
 * a call of one with any argument its parameters do not declare is refused, so a model steered
 * to "cancel booking K7M-Q4P" or "stop calls to +1…" never acts on this call's booking instead.
 */
const CALL_SCOPED = new Set([CONFIRM_BOOKING, CANCEL_BOOKING, REQUEST_RESCHEDULE, DO_NOT_CALL]);

/** The agent with only the tools its call's purpose may use. */
export function withPurposeTools(purpose: CallPurposeName, agent: Agent): Agent {
  const allowed = PURPOSE_TOOLS[purpose];
  return { ...agent, tools: agent.tools.filter((tool) => allowed.includes(tool.name)) };
}

/** What the model hears when a tool call is refused: short, and it does not retry it for another booking. */
export const TOOL_REFUSED = {
  not_offered: (name: string) => `Refused: ${name} is not available on this call. Do not try it again; carry on without it.`,
  other_target: (name: string) =>
    `Refused: ${name} acts only on the booking this call is about, and takes no other booking, reference or phone number. Nothing was changed. If the customer meant another booking, tell them to use the link in that booking's e-mail; use ${name} without those arguments only for this call's booking, if that is what they asked.`,
};

export type ToolAdmission = { tool: AgentTool; refused?: undefined } | { refused: ToolRefusal["reason"]; output: string; tool?: undefined };

/**
 * Whether the bridge may run the model's call of tool `name` with `args`: it must be one of the
 * agent's tools (already limited to the purpose's), and a call-scoped tool must name nothing but
 * what its parameters declare. A refusal carries the answer for the model; the bridge records it
 * in the call's quality.
 */
export function admitToolCall(agent: Agent, name: string, args: unknown): ToolAdmission {
  const tool = agent.tools.find((t) => t.name === name);
  if (!tool) return { refused: "not_offered", output: TOOL_REFUSED.not_offered(name) };
  if (CALL_SCOPED.has(name)) {
    const declared = Object.keys((tool.parameters.properties as Record<string, unknown> | undefined) ?? {});
    const given = args && typeof args === "object" && !Array.isArray(args) ? Object.keys(args) : null;
    if (!given || given.some((key) => !declared.includes(key))) return { refused: "other_target", output: TOOL_REFUSED.other_target(name) };
  }
  return { tool };
}
