import type { Route } from "./+types/conversation";
import {
  agentReply,
  converseInWebCall,
  exceededConversationLimit,
  MAX_MESSAGE_LENGTH,
  webCallOf,
} from "~/features/agent/conversation.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { clientIp } from "~/platform/security/rate-limit.server";
import { translatorFor } from "~/platform/i18n.server";
import { AiError, AiNotConfiguredError } from "~/providers/ai.server";

/**
 * POST /api/conversation/process { message, context?, dialect: "saudi", token? } → { message }: the
 * agent's reply from the language model. With the conversation's `token` the turn is kept with it
 * and the model sees the whole conversation; without, only `context` (the spec's last two messages).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = await translatorFor("ar");
  const body = await readJsonBody(request);
  const message = typeof body.message === "string" ? body.message.trim() : "";
  if (!message) return apiError(400, t("agent.messageEmpty"));
  if (message.length > MAX_MESSAGE_LENGTH) return apiError(400, t("agent.processFailed"));
  const exceeded = await exceededConversationLimit(context);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  try {
    if (typeof body.token === "string") {
      const call = await webCallOf(services, body.token);
      if (!call || call.status !== "active") return apiError(404, t("agent.chatNotFound"));
      const turn = await converseInWebCall(services, call, message, { ip: clientIp(context) });
      return Response.json({ message: turn.reply });
    }
    const previous = typeof body.context === "string" ? body.context.slice(0, 2000) : "";
    const history = previous ? [{ role: "user" as const, text: previous, at: new Date().toISOString() }] : [];
    // No conversation: the visitor's address is who the look-ups count for, never one bucket for all.
    const reply = await agentReply(services, { message, history, phone: null, ip: clientIp(context) });
    return Response.json({ message: reply.text });
  } catch (error) {
    if (error instanceof AiNotConfiguredError) return apiError(503, t("agent.aiNotConfigured"));
    if (error instanceof AiError) return apiError(502, t("agent.processFailed"));
    throw error;
  }
}

export const loader = methodNotAllowed;
