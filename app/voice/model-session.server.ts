import type WebSocket from "ws";
import type { Call } from "#models/calls";
import type { AppServices } from "~/platform/services.server";
import { admitToolCall, withPurposeTools, type Agent, type ToolAdmission } from "~/voice/agents.server";
import { perKey } from "~/lib/sharing/per-key";

/*
 * The realtime model's side of a call: the session's set-up and greeting, the sessions opened
 * ahead of their media stream, and an agent's tool run under its time limit. The bridge
 * (bridge.server.ts) relays the audio and follows the conversation's events; what a kind of call
 * says and may do comes from its purpose (agentForCall), never from here.
 */

/** The audio of one side of the bridge, as the Realtime API names it, and its bytes per millisecond. */
export interface CallAudio {
  format: { type: "audio/pcmu" } | { type: "audio/pcm"; rate: 24000 };
  bytesPerMs: number;
}
/** The phone: G.711 μ-law at 8 kHz, 8 bytes of audio per millisecond, passed through untouched. */
export const PHONE_AUDIO: CallAudio = { format: { type: "audio/pcmu" }, bytesPerMs: 8 };
/** A browser: 16-bit PCM at 24 kHz (the model's own rate), 48 bytes per millisecond. */
export const BROWSER_AUDIO: CallAudio = { format: { type: "audio/pcm", rate: 24000 }, bytesPerMs: 48 };

/**
 * What the bridge needs of the app's services: the settings, the database, the realtime model, the
 * telephony provider (to hang up), the job queue with its sealing secret (a booking the agent
 * makes queues its e-mails and confirmation call), and the call purposes that give each call its
 * agent. The web server passes its own; the bridge
 * process (app/server/bridge-server.ts) makes only these.
 */
export type BridgeServices = Pick<
  AppServices,
  "env" | "db" | "jobs" | "signingSecret" | "voiceModel" | "telephony" | "publicOrigin" | "callPurposes"
>;

/**
 * The call's agent, from its purpose as registered at start-up. The agents and their tools read
 * the settings and the database and queue jobs, which the bridge process has.
 */
export const agentForCall = async (services: BridgeServices, call: Call) =>
  withPurposeTools(call.purpose, await services.callPurposes[call.purpose].agent(services as AppServices, call));

/** The session configuration and the greeting request: the first events of every call's realtime session. */
export function sessionSetup(agent: Agent, audio: CallAudio) {
  return [
    {
      type: "session.update",
      session: {
        type: "realtime",
        output_modalities: ["audio"],
        instructions: agent.instructions,
        audio: {
          input: {
            format: audio.format,
            turn_detection: { type: "server_vad" },
            transcription: { model: "gpt-4o-mini-transcribe" },
          },
          output: {
            format: audio.format,
            voice: agent.voice,
            ...(agent.speed && agent.speed !== 1 ? { speed: Math.min(1.5, Math.max(0.25, agent.speed)) } : {}),
          },
        },
        tools: agent.tools.map(({ name, description, parameters }) => ({ type: "function", name, description, parameters })),
        tool_choice: "auto",
      },
    },
    { type: "response.create", response: { instructions: agent.greeting } },
  ];
}

export interface PreparedSession {
  socket: WebSocket;
  agent: Agent;
  /** The model's events so far, for the bridge to play through once the stream is there. */
  events: WebSocket.RawData[];
}

/**
 * Realtime sessions opened while Twilio fetched a call's TwiML, until its media stream takes them
 * (this process only), by database (a call's id names it in its own database: two apps in one
 * process never take each other's). The entry exists from the first moment, so a stream arriving
 * while the session is still connecting waits for it rather than opening a second one.
 */
type PreparedEntry = { ready: Promise<PreparedSession | null>; expiry: NodeJS.Timeout };
const preparedByDatabase = perKey((_db: BridgeServices["db"]) => new Map<number, PreparedEntry>());
const preparedSessions = (services: Pick<BridgeServices, "db">) => preparedByDatabase(services.db);

/**
 * Fast first words: the realtime session is opened, configured and asked for the greeting when
 * Twilio requests the call's TwiML, so the greeting is being generated while the media stream
 * connects. A session no stream claims within `ttlMs` is closed. Never throws.
 */
export function prepareVoiceSession(services: BridgeServices, call: Call, ttlMs: number) {
  const sessions = preparedSessions(services);
  if (!services.voiceModel.configured || sessions.has(call.id)) return;
  const ready = (async (): Promise<PreparedSession | null> => {
    const agent = await agentForCall(services, call);
    const socket = services.voiceModel.openSession();
    const prepared: PreparedSession = { socket, agent, events: [] };
    socket.on("message", (data) => prepared.events.push(data));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
      socket.once("close", () => reject(new Error("closed before it opened")));
    });
    for (const event of sessionSetup(agent, PHONE_AUDIO)) socket.send(JSON.stringify(event));
    return prepared;
  })().catch(() => null);
  const expiry = setTimeout(
    () => void takePreparedSession(services, call.id).then((prepared) => prepared?.socket.close(1000, "not claimed")),
    ttlMs,
  );
  sessions.set(call.id, { ready, expiry });
}

/** The call's prepared session once it is open (null if there is none, or it failed); it is no longer kept. */
export async function takePreparedSession(services: Pick<BridgeServices, "db">, callId: number) {
  const sessions = preparedSessions(services);
  const entry = sessions.get(callId);
  if (!entry) return null;
  sessions.delete(callId);
  clearTimeout(entry.expiry);
  return entry.ready;
}

/** The longest one tool may take before the agent is told it failed. */
const TOOL_TIMEOUT_MS = 8_000;

/**
 * Runs the tool the model asked for, as the agent admits it (admitToolCall: a tool it has, with
 * arguments it accepts), within TOOL_TIMEOUT_MS. Never rejects: a failure is the output the model
 * is given, so the agent apologises and goes on. `refused` names why a call was not admitted.
 */
export async function runAgentTool(
  agent: Agent,
  name: string,
  rawArguments: string,
): Promise<{ output: string; refused?: Extract<ToolAdmission, { refused: unknown }>["refused"] }> {
  let toolTimer: NodeJS.Timeout | undefined;
  try {
    const args = rawArguments ? (JSON.parse(rawArguments) as Record<string, unknown>) : {};
    const admitted = admitToolCall(agent, name, args);
    const output = await Promise.race([
      admitted.refused ? admitted.output : admitted.tool.run(args),
      new Promise<string>((_, reject) => {
        toolTimer = setTimeout(() => reject(new Error("timed out")), TOOL_TIMEOUT_MS);
      }),
    ]);
    return admitted.refused ? { output, refused: admitted.refused } : { output };
  } catch (error) {
    return { output: `The action failed (${(error as Error).message}). Apologise briefly and continue.` };
  } finally {
    clearTimeout(toolTimer);
  }
}
