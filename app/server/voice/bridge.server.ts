import WebSocket from "ws";
import { appendTranscript, consumeStreamToken, findCall, flagCall, type Call } from "#models/calls";
import type { AppServices } from "../services.server";
import { agentFor, END_CALL, type Agent } from "./agents.server";
import { crisisScript, redact, soundsLikeCrisis } from "./crisis.server";

/** μ-law at 8 kHz: 8 bytes of audio per millisecond. */
const BYTES_PER_MS = 8;
const TOOL_TIMEOUT_MS = 8_000;
/** Audio that arrives before the model is ready is kept, up to this much (5 s). */
const MAX_EARLY_FRAMES = 250;

export function realtimeUrl(services: AppServices) {
  const base = (services.env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "").replace(/^http/, "ws");
  return `${base}/realtime?model=${encodeURIComponent(services.env.OPENAI_REALTIME_MODEL)}`;
}

interface TwilioMessage {
  event: "connected" | "start" | "media" | "mark" | "stop" | "dtmf";
  streamSid?: string;
  start?: { streamSid: string; callSid: string; customParameters?: Record<string, string> };
  media?: { payload: string; timestamp?: string; track?: string };
  mark?: { name: string };
}

/**
 * One phone call's audio bridge: Twilio's media stream on one side, the OpenAI Realtime session
 * on the other, G.711 μ-law passed through both ways. Each call gets its own instance and state.
 */
export function bridgeMediaStream(services: AppServices, twilio: WebSocket, callId: number, log: (message: string) => void = console.warn) {
  let call: Call | null = null;
  let agent: Agent | null = null;
  let streamSid = "";
  let model: WebSocket | null = null;
  let modelReady = false;
  const early: string[] = [];
  // Playback tracking with Twilio marks: each audio chunk is followed by a mark; an echoed mark
  // means the caller has heard everything up to it.
  let markSeq = 0;
  const pendingMarks: { name: string; itemId: string; bytes: number }[] = [];
  const playedBytes = new Map<string, number>();
  let currentItem: string | null = null;
  let responseActive = false;
  let hangupRequested = false;
  let crisisHandled = false;
  let closed = false;
  const timers: NodeJS.Timeout[] = [];

  const sendTwilio = (message: object) => twilio.readyState === WebSocket.OPEN && twilio.send(JSON.stringify(message));
  const sendModel = (event: object) => model?.readyState === WebSocket.OPEN && model.send(JSON.stringify(event));

  function close(reason: string) {
    if (closed) return;
    closed = true;
    for (const timer of timers) clearTimeout(timer);
    if (model && model.readyState <= WebSocket.OPEN) model.close(1000, reason);
    if (twilio.readyState <= WebSocket.OPEN) twilio.close(1000, reason);
  }

  async function hangUp() {
    if (closed) return;
    const providerCallId = call?.providerCallId;
    close("end_call");
    if (providerCallId) await services.telephony.hangUp(providerCallId).catch((error) => log(`hang-up failed: ${error.message}`));
  }

  function maybeFinish() {
    if (hangupRequested && !responseActive && pendingMarks.length === 0) void hangUp();
  }

  async function start(message: TwilioMessage) {
    streamSid = message.start?.streamSid ?? message.streamSid ?? "";
    const token = message.start?.customParameters?.token ?? "";
    if (!token || !(await consumeStreamToken(services.db, callId, token))) {
      log(`media stream for call ${callId} refused: bad or used token`);
      close("unauthorized");
      return;
    }
    call = await findCall(services.db, callId);
    if (!call || !services.env.OPENAI_API_KEY) {
      close("unavailable");
      return;
    }
    agent = await agentFor(services, call);
    model = new WebSocket(realtimeUrl(services), { headers: { Authorization: `Bearer ${services.env.OPENAI_API_KEY}` } });
    model.on("open", () => {
      sendModel({
        type: "session.update",
        session: {
          type: "realtime",
          output_modalities: ["audio"],
          instructions: agent!.instructions,
          audio: {
            input: {
              format: { type: "audio/pcmu" },
              turn_detection: { type: "server_vad" },
              transcription: { model: "gpt-4o-mini-transcribe" },
            },
            output: { format: { type: "audio/pcmu" }, voice: agent!.voice },
          },
          tools: agent!.tools.map(({ name, description, parameters }) => ({ type: "function", name, description, parameters })),
          tool_choice: "auto",
        },
      });
      sendModel({ type: "response.create", response: { instructions: agent!.greeting } });
      modelReady = true;
      for (const payload of early.splice(0)) sendModel({ type: "input_audio_buffer.append", audio: payload });
      if (call!.purpose === "empathy") {
        timers.push(
          setTimeout(() => {
            sendModel({
              type: "response.create",
              response: { instructions: "Tell the caller gently that about one minute of the call is left, and begin to close warmly." },
            });
          }, (call!.timeLimitSeconds - 60) * 1000),
        );
      }
    });
    model.on("message", (data) => void onModelEvent(JSON.parse(String(data))));
    model.on("error", (error) => log(`realtime connection error on call ${callId}: ${error.message}`));
    model.on("close", () => {
      if (!closed) void hangUp();
    });
  }

  async function onModelEvent(event: any) {
    switch (event.type) {
      case "response.created":
        responseActive = true;
        return;
      case "response.output_audio.delta": {
        const bytes = Buffer.byteLength(event.delta, "base64");
        currentItem = event.item_id;
        sendTwilio({ event: "media", streamSid, media: { payload: event.delta } });
        const name = `m${++markSeq}`;
        pendingMarks.push({ name, itemId: event.item_id, bytes });
        sendTwilio({ event: "mark", streamSid, mark: { name } });
        return;
      }
      case "input_audio_buffer.speech_started": {
        // Barge-in: cut the reply at what the caller heard, and drop what Twilio still holds.
        if (currentItem && pendingMarks.some((m) => m.itemId === currentItem)) {
          sendModel({
            type: "conversation.item.truncate",
            item_id: currentItem,
            content_index: 0,
            audio_end_ms: Math.floor((playedBytes.get(currentItem) ?? 0) / BYTES_PER_MS),
          });
          sendTwilio({ event: "clear", streamSid });
          pendingMarks.length = 0;
        }
        return;
      }
      case "conversation.item.input_audio_transcription.completed": {
        const text = String(event.transcript ?? "");
        if (!text.trim()) return;
        await appendTranscript(services.db, callId, [{ role: "caller", text: redact(text), at: new Date().toISOString() }]);
        if (call?.purpose === "empathy" && !crisisHandled && soundsLikeCrisis(text)) {
          crisisHandled = true;
          await flagCall(services.db, callId, "crisis language");
          sendModel({ type: "response.cancel" });
          sendModel({
            type: "response.create",
            response: {
              instructions: `Read this message to the caller exactly, word for word, calmly, then keep listening and do not end the call: "${crisisScript(call.language, call.toNumber)}"`,
            },
          });
        }
        return;
      }
      case "response.output_audio_transcript.done": {
        const text = String(event.transcript ?? "");
        if (text.trim()) await appendTranscript(services.db, callId, [{ role: "agent", text: redact(text), at: new Date().toISOString() }]);
        return;
      }
      case "response.function_call_arguments.done":
        await runTool(event.call_id, event.name, event.arguments);
        return;
      case "response.done":
        responseActive = false;
        maybeFinish();
        return;
      case "error":
        log(`realtime error on call ${callId}: ${event.error?.message ?? "unknown"}`);
        return;
      default:
        return;
    }
  }

  async function runTool(callIdOfTool: string, name: string, rawArguments: string) {
    const tool = agent?.tools.find((t) => t.name === name);
    let output: string;
    try {
      if (!tool) throw new Error(`unknown tool ${name}`);
      const args = rawArguments ? (JSON.parse(rawArguments) as Record<string, unknown>) : {};
      output = await Promise.race([
        tool.run(args),
        new Promise<string>((_, reject) => setTimeout(() => reject(new Error("timed out")), TOOL_TIMEOUT_MS)),
      ]);
    } catch (error) {
      output = `The action failed (${(error as Error).message}). Apologise briefly and continue.`;
    }
    sendModel({ type: "conversation.item.create", item: { type: "function_call_output", call_id: callIdOfTool, output } });
    if (name === END_CALL && !(call?.purpose === "empathy" && crisisHandled)) {
      hangupRequested = true;
      maybeFinish();
      return;
    }
    sendModel({ type: "response.create" });
  }

  twilio.on("message", (data) => {
    let message: TwilioMessage;
    try {
      message = JSON.parse(String(data));
    } catch {
      return;
    }
    switch (message.event) {
      case "start":
        void start(message).catch((error) => {
          log(`call ${callId} could not start: ${(error as Error).message}`);
          close("error");
        });
        return;
      case "media": {
        const payload = message.media?.payload;
        if (!payload || message.media?.track === "outbound") return;
        if (modelReady) sendModel({ type: "input_audio_buffer.append", audio: payload });
        else if (early.length < MAX_EARLY_FRAMES) early.push(payload);
        return;
      }
      case "mark": {
        const name = message.mark?.name;
        const index = pendingMarks.findIndex((m) => m.name === name);
        if (index >= 0) {
          for (const played of pendingMarks.splice(0, index + 1)) {
            playedBytes.set(played.itemId, (playedBytes.get(played.itemId) ?? 0) + played.bytes);
          }
        }
        maybeFinish();
        return;
      }
      case "stop":
        close("stop");
        return;
      default:
        return;
    }
  });
  twilio.on("close", () => close("twilio closed"));
  twilio.on("error", () => close("twilio error"));
}
