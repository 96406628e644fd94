import { log as logger } from "~/platform/observability/log.server";
import type WebSocket from "ws";
import { appendWebCallMessages, findWebCall, type WebCall } from "#models/web-calls";
import { bridgeCall, streamLimits } from "~/voice/bridge.server";
import { BROWSER_AUDIO, type BridgeServices } from "~/voice/model-session.server";
import type { CallerLeg } from "~/voice/phone-leg.server";
import { withPurposeTools, type Agent } from "~/voice/agents.server";
import { dataSection } from "~/voice/data-section";
import { customerServiceAgent } from "./customer-service-agent.server";
import { crisisScript, redact, soundsLikeCrisis } from "~/voice/crisis.server";
import { parseCapabilityToken } from "~/platform/security/capability.server";
import { holdLiveSlot } from "~/platform/data/live-limit.server";
import type { AppServices } from "~/platform/services.server";
import { visitorOrigin } from "~/calls/gate.server";
import { HISTORY } from "./conversation.server";
import { REPLY_VOICE } from "./voice-turn.server";

/** Where a browser streams its microphone: `/web-call-stream/{webCallId}` (the token comes in "start"). */
export const WEB_VOICE_PATH = /^\/web-call-stream\/(\d{1,10})$/;

/** One voice session lasts at most this long (the conversation stays open in text). */
export const WEB_VOICE_LIMIT_MS = 10 * 60_000;

/**
 * Live voice sessions one address group may hold at once, and open voice sockets (each may become
 * one). Two: a visitor may reconnect while the last socket is still closing.
 */
export const VOICE_SESSIONS_PER_ADDRESS = 2;
/** The close code of a voice socket refused over that cap; the page says to end another voice session first. */
export const CLOSE_TOO_MANY_VOICES = 4429;

/**
 * The customer-service agent, carrying on the conversation typed so far, for the visitor at `ip`:
 * its bookings count against the address as the booking page's and the text chat's do.
 */
export function webVoiceAgent(services: AppServices, call: WebCall, ip: string | null): Agent {
  const sessionKey = `web-call-${call.id}`;
  const agent = customerServiceAgent(services, {
    voice: REPLY_VOICE.voice,
    phone: call.phone,
    customerName: call.customerName,
    sessionKey,
    ip,
    origin: visitorOrigin(services, ip, sessionKey),
  });
  const history = call.messages.slice(-HISTORY);
  if (history.length === 0) return withPurposeTools("customer_service", agent);
  // What was typed is the caller's: it reaches the model as data, never as part of its instructions.
  const lines = history.map((m) => `${m.role === "agent" ? "أنت" : "المتصل"}: ${m.text}`);
  const data = dataSection("ar", { conversation: lines });
  return withPurposeTools("customer_service", {
    ...agent,
    instructions: `${agent.instructions}\nهذه المحادثة بدأت كتابةً، وما قيل حتى الآن في قسم البيانات أدناه (conversation).\n${data}`,
    greeting: `قل للمتصل باختصار إنك تسمعه الآن بالصوت، وكمّل معه من حيث توقفتم في المحادثة المكتوبة في قسم البيانات أدناه.\n${data}`,
  });
}

/**
 * The browser's side of a web call's voice: the page's microphone, as 16-bit PCM at 24 kHz,
 * streamed with the same messages as a phone's media stream, through the same bridge, agent and
 * tools. What is said is kept with the typed conversation, and each line is sent to the page too,
 * so text and voice are one conversation. The capability token of the conversation is the
 * permission; a conversation has one voice session at a time, counted in the database.
 */
function browserLeg(
  services: AppServices,
  socket: WebSocket,
  callId: number,
  ip: string | null,
  log: (message: string) => void,
): CallerLeg {
  let call: WebCall | null = null;
  const tell = (message: object) => socket.readyState === socket.OPEN && socket.send(JSON.stringify(message));
  return {
    label: `web call ${callId}`,
    audio: BROWSER_AUDIO,
    async begin(message) {
      if (parseCapabilityToken(services, "web-call", message.start?.customParameters?.token) !== callId) {
        log(`voice stream for web call ${callId} refused: bad token`);
        return null;
      }
      call = await findWebCall(services.db, callId);
      if (!call || call.status !== "active") return null;
      // One voice at a time per conversation (each is a paid model session), in whichever process.
      const slot = await holdLiveSlot(services, { name: "voice:conversation", subject: String(callId), limit: 1 });
      if (!slot) return null;
      socket.once("close", () => void slot.release());
      const found = call;
      return { agent: async () => webVoiceAgent(services, found, ip), prepared: async () => null };
    },
    record: async () => {},
    async transcript(role, text) {
      // The caller's words are kept redacted, like a typed message; the agent's as said.
      const kept = role === "caller" ? redact(text) : text;
      await appendWebCallMessages(services.db, callId, [
        { role: role === "caller" ? "user" : "agent", text: kept, at: new Date().toISOString() },
      ]);
      tell({ event: "transcript", role: role === "caller" ? "user" : "agent", text: kept });
    },
    crisisScript: (text) => (soundsLikeCrisis(text) ? crisisScript("ar", call?.phone ?? null, "SA") : null),
    flag: async () => void (await appendWebCallMessages(services.db, callId, [], true)),
    sessionStarted: ({ hangUp }) => [setTimeout(() => void hangUp(), WEB_VOICE_LIMIT_MS)],
    // The voice ends (the agent said goodbye, the time is up); the conversation stays open in text.
    hangUp: async () => {},
  };
}

/** Bridges a browser's voice stream for web call `callId`, from the visitor at `ip` (as the pages read it). */
export function bridgeWebCallVoice(
  services: AppServices,
  socket: WebSocket,
  callId: number,
  ip: string | null,
  log: (message: string) => void = (message) => logger.warn({ webCallId: callId }, message),
) {
  bridgeCall(services satisfies BridgeServices, socket, browserLeg(services, socket, callId, ip, log), log, streamLimits(services.env));
}
