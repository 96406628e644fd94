import type { Call } from "#models/calls";
import { findSupportCall, setSupportCallSummary } from "#models/subscribers";
import { empathyAgent } from "~/features/empathy/index.server";
import type { AppServices } from "~/platform/services.server";
import { endCallTool, SAVE_SUMMARY, type Agent, type AgentTool } from "~/voice/agents.server";
import { redact } from "~/voice/crisis.server";

/**
 * The same listener for a subscriber's call, who can read a short summary of it on their
 * dashboard afterwards (and delete it): the agent writes it before the goodbye.
 */
export function subscriberAgent(services: AppServices, call: Call): Agent {
  const base = empathyAgent(call, services.env.RECORD_CALLS);
  const saveSummary: AgentTool = {
    name: SAVE_SUMMARY,
    description:
      "Save, once, before your goodbye, a summary of this call for the caller to read later: two or three short sentences in the caller's language, in the second person, about what they talked about and anything they wanted to remember. No names, phone numbers, addresses or e-mails.",
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    run: async (args) => {
      const summary = typeof args.summary === "string" ? redact(args.summary.replace(/\s+/g, " ").trim()).slice(0, 600) : "";
      if (!summary || !call.supportCallId) return "Nothing saved.";
      const support = await findSupportCall(services.db, call.supportCallId);
      if (support) await setSupportCallSummary(services.db, support.subscriberId, support.id, summary);
      return "Saved. Now say goodbye.";
    },
  };
  return {
    ...base,
    instructions: `${base.instructions}\nThis caller subscribes to regular calls. Before your goodbye, use save_summary once.`,
    tools: [saveSummary, endCallTool],
  };
}
