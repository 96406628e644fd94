import { appendWebCallMessages, createWebCall, endWebCall, findWebCall, type WebCall, type WebCallMessage } from "#models/web-calls";
import { crisisScript, redact, soundsLikeCrisis } from "~/voice/crisis.server";
import { CUSTOMER_SERVICE_INSTRUCTIONS } from "./customer-service-agent.server";
import { capabilityToken, parseCapabilityToken } from "~/platform/security/capability.server";
import type { RouterContextProvider } from "react-router";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import { customerServiceTools } from "./tools.server";

/** How much of the conversation the model sees, typed or by voice: the last messages, enough for a chat. */
export const HISTORY = 20;
export { MAX_MESSAGE_LENGTH } from "./chat";

const TEXT_INSTRUCTIONS = `${CUSTOMER_SERVICE_INSTRUCTIONS}\nأنت الآن في محادثة نصية عبر المتصفح: أجب بجملة إلى ثلاث جمل قصيرة باللهجة السعودية. إذا أعطتك أداة رابطاً للعميل فأرسله له كما هو.`;

export const webCallToken = (services: AppServices, id: number) => capabilityToken(services, "web-call", id);

/** The conversation behind a signed link, or null. */
export async function webCallOf(services: AppServices, token: string | null | undefined) {
  const id = parseCapabilityToken(services, "web-call", token);
  return id === null ? null : findWebCall(services.db, id);
}

export async function startWebCall(services: AppServices, input: { customerName: string; phone: string }) {
  const call = await createWebCall(services.db, input);
  return { call, token: webCallToken(services, call.id) };
}

/**
 * The agent's answer to one message. Crisis language gets the fixed, reviewed safety text for the
 * caller's country (never the model's words) and flags the conversation; anything else goes to
 * the language model with the phone agent's instructions and tools (booking lookup and booking,
 * for the conversation's phone number).
 */
export async function agentReply(
  services: AppServices,
  input: {
    message: string;
    history: WebCallMessage[];
    phone: string | null;
    customerName?: string | null;
    /** The visitor's address: the booking tool counts it as the booking page does. */
    ip?: string | null;
    /** Identifies the conversation, so a booking repeated in it is made once. */
    sessionKey?: string | null;
  },
) {
  if (soundsLikeCrisis(input.message)) return { text: crisisScript("ar", input.phone, "SA"), crisis: true };
  const turns = [...input.history.slice(-HISTORY), { role: "user" as const, text: input.message }].map((m) => ({
    role: m.role === "agent" ? ("assistant" as const) : ("user" as const),
    content: m.text,
  }));
  const tools = customerServiceTools(services, {
    phone: input.phone,
    customerName: input.customerName ?? null,
    ip: input.ip ?? null,
    sessionKey: input.sessionKey ?? null,
    channel: "text",
  });
  const text = await services.textModel.reply({ instructions: TEXT_INSTRUCTIONS, turns, tools, temperature: 0.8 });
  return { text, crisis: false };
}

/** One turn of a browser conversation: the caller's message and the agent's reply, both kept (redacted). */
export async function converseInWebCall(services: AppServices, call: WebCall, message: string, options: { ip?: string | null } = {}) {
  const reply = await agentReply(services, {
    message,
    history: call.messages,
    phone: call.phone,
    customerName: call.customerName,
    ip: options.ip ?? null,
    sessionKey: `web-call-${call.id}`,
  });
  const now = new Date().toISOString();
  const updated = await appendWebCallMessages(
    services.db,
    call.id,
    [
      { role: "user", text: redact(message), at: now },
      { role: "agent", text: reply.text, at: new Date().toISOString() },
    ],
    reply.crisis,
  );
  return { reply: reply.text, call: updated };
}

export const hangUpWebCall = (services: AppServices, call: WebCall) => endWebCall(services.db, call.id);

/** New conversations per visitor address: 20 an hour (page and API alike). */
export const exceededWebCallLimit = (context: Readonly<RouterContextProvider>) =>
  firstExceededRule(context, [{ name: "web-call:ip", subject: clientIp(context), limit: 20, windowSeconds: 3600 }]);

/** Turns (typed or spoken) per visitor address: 120 an hour, each one a paid model request. */
export const exceededConversationLimit = (context: Readonly<RouterContextProvider>) =>
  firstExceededRule(context, [{ name: "conversation:ip", subject: clientIp(context), limit: 120, windowSeconds: 3600 }]);
