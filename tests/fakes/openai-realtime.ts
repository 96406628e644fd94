/**
 * A fake OpenAI Realtime API (GA interface, model `gpt-realtime`) for tests: a node:http server
 * taking WebSocket upgrades with `ws`, speaking the events exactly as
 * node_modules/openai/resources/realtime/realtime.d.ts defines them (the events it sends are
 * type-checked against `RealtimeServerEvent`), and on the same server the REST endpoints of chat
 * completions, transcriptions, speech and models (see "REST endpoints" below). The app reaches it
 * through configuration only:
 * OPENAI_BASE_URL = fake.url, OPENAI_API_KEY = fake.apiKey.
 *
 *   const fake = await startFakeRealtime({ apiKey?: "sk-test-fake", audioSpeed?: 1 });
 *   fake.url      http://127.0.0.1:PORT/v1   (the app connects to ws://127.0.0.1:PORT/v1/realtime?model=gpt-realtime)
 *   fake.apiKey   the only key accepted
 *   fake.sessions one RealtimeSessionRecord per accepted connection, in connection order (index = position):
 *       .id .model .path .headers (of the upgrade request)
 *       .session         the effective session config (what the last session.created/updated carried)
 *       .clientEvents    every client event received, parsed, EXCEPT input_audio_buffer.append, which is
 *                        only counted: .audioIn = { appends, bytes, ms }
 *       .serverEvents    every server event sent; response.output_audio.delta is kept without its audio
 *                        (`delta` replaced by `delta_bytes`)
 *       .errors          the `error` events sent (a clean run has none)
 *       .conversation    the conversation items, in order (user audio messages, assistant messages,
 *                        function_call, function_call_output…)
 *       .responses       one FakeResponseRecord per response: id, trigger ("server_vad" |
 *                        "response.create" | "echo"), params (the client's `response` object),
 *                        instructions (effective), step, status, reason, audioMs, transcript
 *       .toolCalls       { call_id, name, arguments, response_id, item_id } the model made
 *       .functionOutputs { call_id, output, item_id, name } from conversation.item.create
 *       .truncations     { item_id, content_index, audio_end_ms, audio_ms (audio the item had) }
 *       .problems        things the fake could not do as scripted (e.g. a tool the session lacks)
 *       .closed / .closeCode
 *   fake.rejections      refused upgrades: { path, status, code, headers }
 *   fake.script(steps, sessionIndex?)    what the "model" does next (see Script)
 *   fake.clearScript(sessionIndex?)
 *   fake.waitForSession(index, timeoutMs = 5000)
 *   fake.waitForEvent(sessionIndex, type, predicate?, timeoutMs = 5000)         a CLIENT event
 *       received (already received ones count). For "input_audio_buffer.append" it matches the newest
 *       append, as { type, event_id, audio_bytes }.
 *   fake.waitForServerEvent(sessionIndex, type, predicate?, timeoutMs = 5000)   a server event sent
 *   fake.setEchoMode(enabled)            see Echo mode
 *   fake.setAudioSpeed(factor)           pacing of output audio for responses started afterwards
 *   fake.release(sessionIndex)           lets the session's held responses (`held: true` steps) speak
 *   fake.setResponseDelay(ms)            the model's "thinking" time: each response's first output comes
 *                                        this long after response.created (default 0)
 *   fake.sendServerEvent(sessionIndex, event)   inject any event (an event_id is added)
 *   fake.disconnect(sessionIndex, code = 1011, reason?)   the server drops the connection
 *   fake.close()
 * Audio helpers (8 kHz G.711 μ-law): mulawSpeech(ms) (a loud 300 Hz tone, whole 20 ms frames),
 * mulawSilence(ms) (0xFF bytes), linearToMulaw, mulawToLinear, audioMsForText(text).
 *
 * Connection: an upgrade on any path ending in `/realtime` (so `/v1/realtime`) with `?model=`.
 * Refused like OpenAI, with a JSON body {"error":{message,type,param,code}}: no
 * `Authorization: Bearer` → 401 (code null), a wrong key → 401 invalid_api_key ("Incorrect API key
 * provided: sk-w*****ong. …"), another path → 404 ("Invalid URL (GET /v1/x)"), no model → 400
 * missing_required_parameter, a model that is not a realtime model → 404 model_not_found, and an
 * `OpenAI-Beta: realtime=v1` header → 400 (this fake speaks the GA interface only; beta event names
 * such as response.audio.delta differ). The browser form, subprotocol
 * `openai-insecure-api-key.<key>`, is accepted too.
 * On connect: `session.created` with the defaults of the real API: type "realtime", object
 * "realtime.session", id sess_…, model, output_modalities ["audio"], instructions (a default text),
 * tools [], tool_choice "auto", max_output_tokens "inf", audio.input { format {type:"audio/pcm",
 * rate:24000}, transcription null, noise_reduction null, turn_detection {type:"server_vad",
 * threshold:0.5, prefix_padding_ms:300, silence_duration_ms:500, idle_timeout_ms:null,
 * create_response:true, interrupt_response:true} }, audio.output { format {type:"audio/pcm",
 * rate:24000}, voice "marin", speed 1 }.
 *
 * Client events and answers (anything else: an `error` event; the connection stays open):
 *   session.update            → session.updated {session: full effective config}. Validated like the
 *       API: session.type is required and must be "realtime"; unknown fields at any level (beta-era
 *       `voice`, `input_audio_format`, `turn_detection`, `modalities` at the top level; `rate` on
 *       audio/pcmu…) → unknown_parameter, param "session.…"; wrong JSON types → invalid_type; bad enum
 *       values (format type, voice, turn_detection type, tool_choice…) → invalid_value; changing the
 *       voice once assistant audio exists → cannot_update_voice; changing the model → invalid_value.
 *       A rejected update changes nothing. audio.input/audio.output fields are merged one by one;
 *       each given field (format, turn_detection with its defaults filled in, transcription…) and
 *       each top-level field (instructions, tools, tool_choice…) replaces the old value.
 *   input_audio_buffer.append {audio: base64} → nothing, or VAD events (below); bad base64 → error
 *   input_audio_buffer.commit → input_audio_buffer.committed, conversation.item.added/.done (user
 *       message, content [{type:"input_audio", transcript:null}]), transcription if configured; no
 *       response. Less than 100 ms buffered → error input_audio_buffer_commit_empty.
 *   input_audio_buffer.clear  → input_audio_buffer.cleared
 *   conversation.item.create  → conversation.item.added + conversation.item.done ({item,
 *       previous_item_id}). A function_call_output needs a string `output` and the `call_id` of a
 *       function_call in the conversation (else error). previous_item_id "root" or a known id.
 *   conversation.item.truncate {item_id, content_index:0, audio_end_ms} → conversation.item.truncated
 *       {item_id, content_index, audio_end_ms}; errors: unknown item or not an assistant audio message
 *       (item_truncate_invalid_item_id), content_index ≠ 0, audio_end_ms beyond the audio produced.
 *   conversation.item.delete / .retrieve → conversation.item.deleted / .retrieved
 *   response.create {response?: {instructions, tools, tool_choice, output_modalities, conversation,
 *       metadata, …}} → a response (below). While another response is in progress in the default
 *       conversation → error conversation_already_has_active_response (conversation "none" responses
 *       may overlap).
 *   response.cancel {response_id?} → response.done status "cancelled", status_details {type:
 *       "cancelled", reason:"client_cancelled"}; nothing to cancel → error response_cancel_not_active.
 *   output_audio_buffer.clear → error (WebRTC/SIP only).
 *   An unknown type → error invalid_value "Invalid value: 'x'. Supported values are: …", param "type";
 *   unknown fields on a client event → unknown_parameter; bad JSON → invalid_json.
 * Error events: {type:"error", event_id, error:{type:"invalid_request_error", code, message, param,
 *   event_id: the client event's event_id or null}}.
 *
 * Server VAD (turn_detection server_vad; semantic_vad behaves the same): input audio is decoded in
 * the session's input format (audio/pcmu, audio/pcma, or audio/pcm 24 kHz 16-bit) and cut into 20 ms
 * windows; a window is speech when its RMS exceeds 1600 × threshold (800 at 0.5; μ-law 0xFF/0x7F are
 * silence). The first speech window → input_audio_buffer.speech_started {audio_start_ms (input audio
 * time, minus prefix_padding_ms), item_id}; if a response is in progress and interrupt_response is
 * not false it is cancelled right after: its open events are closed (output_audio.done,
 * output_audio_transcript.done with the words sent so far, content_part.done, output_item.done
 * status "incomplete") and response.done has status "cancelled", status_details {type:"cancelled",
 * reason:"turn_detected"}. Once silence_duration_ms (500 by default, as documented) of silence has
 * followed → input_audio_buffer.speech_stopped {audio_end_ms, item_id}, input_audio_buffer.committed,
 * conversation.item.added, conversation.item.done, then, if create_response is not false, a response;
 * the caller's transcript (only if audio.input.transcription is set) comes a moment later, after
 * response.created: conversation.item.input_audio_transcription.delta then
 * conversation.item.input_audio_transcription.completed {item_id, content_index:0, transcript, usage}.
 * Times are input-audio times (ms of audio appended), not wall-clock times. With turn_detection null
 * the client commits and asks for responses itself. idle_timeout_ms is accepted, not simulated.
 *
 * A response: response.created {response:{object:"realtime.response", id resp_…, status:"in_progress",
 * output:[], conversation_id, output_modalities, audio:{output:{format, voice}}, usage:null…}},
 * rate_limits.updated, then per output item:
 *   spoken text → response.output_item.added {item: message, role assistant, status in_progress},
 *     conversation.item.added, response.content_part.added {part:{type:"audio", transcript:""}},
 *     response.output_audio.delta {response_id, item_id, output_index, content_index:0, delta} every
 *     20 ms of audio (160 bytes in pcmu/pcma, 960 in pcm: a 400 Hz tone), paced: chunk k goes out at
 *     k × 20 ms / audioSpeed after the first; response.output_audio_transcript.delta word by word,
 *     spread over the audio; then response.output_audio.done, response.output_audio_transcript.done
 *     {transcript}, response.content_part.done, response.output_item.done (content [{type:
 *     "output_audio", transcript}]), conversation.item.done.
 *     (With output_modalities ["text"]: response.output_text.delta/.done instead, no audio.)
 *   a tool call → response.output_item.added {item:{type:"function_call", name, call_id, arguments:""}},
 *     conversation.item.added, response.function_call_arguments.delta…, response.function_call_arguments.done
 *     {response_id, item_id, output_index, call_id, name, arguments (JSON string)},
 *     response.output_item.done, conversation.item.done. The model can only call a function tool the
 *     session (or response.create) has, with tool_choice not "none": otherwise the response fails
 *     (status "failed") and the reason goes to `problems`.
 * then response.done {response:{…, status:"completed", status_details:null, output:[items], usage:
 * {total_tokens, input_tokens, output_tokens, input_token_details, output_token_details}}} (usage is
 * plausible, not billed: 1 token per 100 ms of caller audio and per 50 ms of model audio, text ÷ 4).
 *
 * Script: fake.script(steps, sessionIndex?). Steps:
 *   { say: "text" }                                   one spoken response; audio lasts
 *                                                     audioMsForText(text) = max(400, 60 ms × characters),
 *                                                     i.e. 8 bytes per ms in pcmu
 *   { tool: "name", arguments: {…}, say?: "…" }       one response calling a function (with `say`: the model
 *                                                     first speaks it in the same response, output_index 0)
 *   { transcriptOfCaller: "text" }                    the transcript of the next committed caller turn
 *   { silent: true }                                  a model that hangs: response.created, then nothing (no
 *                                                     output, no response.done) until the response is
 *                                                     cancelled or the connection closes
 *   held: true on a say/tool step                     the response is created but its output waits for
 *                                                     fake.release(sessionIndex) (a model slow to answer,
 *                                                     for as long as a test needs)
 * Each response takes the first say/tool step of its session's queue (none left: DEFAULT_REPLY
 * "Okay."); each commit takes the first transcriptOfCaller step (none: DEFAULT_CALLER_TRANSCRIPT).
 * Without sessionIndex the steps are for all sessions: appended to the queue of every open session and
 * to the default queue that every later session starts with a copy of. With sessionIndex they go to
 * that session only; given before it connects, they replace the default queue for it.
 *
 * Echo mode (fake.setEchoMode(true), for the bridge benchmark; applies to all sessions): no VAD. Each
 * input_audio_buffer.append is answered at once with a response.output_audio.delta of the same
 * number of bytes: the input bytes, with bytes 0–3 overwritten by the session's echo sequence number
 * (0, 1, 2… big-endian uint32). The deltas belong to one long response (response.created,
 * output_item.added, content_part.added before the first; closed with response.done when echo mode
 * is turned off). response.create meanwhile gets an empty completed response (no audio).
 *
 * REST endpoints (same server, same key; code in tests/fakes/openai-rest.ts). Every request needs
 * `Authorization: Bearer` (401 as above otherwise); errors are {error:{message,type,param,code}}
 * with the API's statuses (400 invalid_request_error, 401 invalid_api_key, 404 model_not_found);
 * unknown body fields → 400 "Unrecognized request argument supplied: x".
 *   GET /v1/models/{id} → {id, object:"model", created, owned_by} for known chat, transcription,
 *       speech and realtime models; else 404 model_not_found. GET /v1/models → a short list.
 *   POST /v1/chat/completions (JSON, non-streaming) → a `chat.completion`: {id chatcmpl-…, object,
 *       created, model, choices:[{index:0, message:{role:"assistant", content, refusal:null,
 *       annotations:[], tool_calls?:[{id call_…, type:"function", function:{name, arguments (JSON
 *       string)}}]}, logprobs:null, finish_reason:"stop"|"tool_calls"}], usage, service_tier,
 *       system_fingerprint}. Validated: model (not a chat model → 404), messages (non-empty; roles
 *       system/developer/user/assistant/tool; per-role fields; every tool_call of an assistant
 *       message answered by tool messages right after it, with matching tool_call_id), tools (type
 *       function with a name matching ^[a-zA-Z0-9_-]{1,64}$ and an object schema), tool_choice (only
 *       with tools), temperature 0–2. stream: true and n > 1 → 400 fake_not_modelled.
 *     fake.scriptChat(steps): each completion takes the next step:
 *       { say: "text" }                                    a text reply (finish_reason "stop")
 *       { tool: "name", arguments: {…}, say?: "…" }         one tool call (finish_reason "tool_calls")
 *       { tools: [{ name, arguments }…], say?: "…" }        parallel tool calls
 *       { fail: status, message?, type?, code? }            an error answer (the SDK retries 5xx/429 once:
 *                                                          script it twice to fail for good)
 *       none left: DEFAULT_CHAT_REPLY "Okay.". A tool step the request cannot take (no such tool,
 *       tool_choice "none" or forcing another tool), or a text step when tool_choice requires a tool,
 *       → 400 fake_script_mismatch, the step stays queued and the reason goes to fake.restProblems.
 *     fake.chatRequests: {headers, body, status, response} per request, failed ones too.
 *   POST /v1/audio/transcriptions (multipart/form-data: file, model, language?, prompt?,
 *       response_format? json|text…) → {text, usage} (json) or the text (text). Models whisper-1,
 *       gpt-4o-transcribe, gpt-4o-mini-transcribe(-date), gpt-4o-transcribe-diarize; another model →
 *       400 (404 if it is no model at all); no file → 400; the file name's extension must be an audio
 *       format (flac m4a mp3 mp4 mpeg mpga oga ogg wav webm) and the bytes must start like one (webm
 *       1A 45 DF A3, OggS, RIFF…WAVE, fLaC, ftyp, ID3/MPEG sync) → else 400.
 *     fake.scriptTranscripts(texts): the next transcripts, in order (none left: DEFAULT_TRANSCRIPT).
 *     fake.transcriptionRequests: {headers, fields, file:{name,type,bytes}, status, response}.
 *   POST /v1/audio/speech (JSON: model, input ≤ 4096 chars, voice, speed? 0.25–4, response_format?,
 *       instructions? (not with tts-1/tts-1-hd), stream_format?) → 200 audio/mpeg: silent MPEG-2 Layer
 *       III frames (24 kHz mono 32 kbit/s, 96 bytes per 24 ms, header FF F3 44 C4) lasting
 *       audioMsForText(input) / speed. Voices: this file's realtime voices plus fable, onyx, nova, or
 *       {id:"voice_…"}. Other response formats and stream_format "sse" → 400 fake_not_modelled.
 *     fake.speechRequests: {headers, body, status, bytes, error}.
 *   fake.clearRestScripts() empties both REST scripts. Any other HTTP request → 404 "Invalid URL".
 *
 * Not modelled: WebRTC/SIP, DTMF, MCP tools, transcription sessions, idle timeouts, conversation
 * context effects on the scripted replies, session expiry. Error codes for the rarer errors
 * (conversation.item.* on unknown ids, function_call_output with an unknown call_id) are close to,
 * not guaranteed identical with, the real ones.
 */
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import type { IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import type { Duplex } from "node:stream";
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime";
import WebSocket, { WebSocketServer } from "ws";
import {
  createFakeOpenAiRest,
  maskKey,
  type ChatRequestRecord,
  type ChatScriptStep,
  type SpeechRequestRecord,
  type TranscriptionRequestRecord,
} from "./openai-rest";

// Realtime objects are loosely typed on purpose: tests read them like JSON.
type Obj = Record<string, any>;

export type ScriptStep =
  | { say: string; held?: boolean }
  | { tool: string; arguments: object; say?: string; held?: boolean }
  | { silent: true }
  | { transcriptOfCaller: string };

export interface FakeResponseRecord {
  id: string;
  trigger: "server_vad" | "response.create" | "echo";
  /** The `response` object of the client's response.create, if any. */
  params: Obj | null;
  /** The instructions in force for this response (response.instructions, else the session's). */
  instructions: string;
  step: ScriptStep | null;
  status: "in_progress" | "completed" | "cancelled" | "failed";
  /** turn_detected | client_cancelled | connection_closed | tool_not_configured */
  reason: string | null;
  /** Output audio sent, in ms. */
  audioMs: number;
  /** Transcript of what was said (up to the cancellation, if cancelled). */
  transcript: string;
}

export interface RealtimeSessionRecord {
  index: number;
  id: string;
  model: string;
  path: string;
  headers: IncomingHttpHeaders;
  session: Obj;
  clientEvents: Obj[];
  audioIn: { appends: number; bytes: number; ms: number };
  serverEvents: Obj[];
  errors: Obj[];
  conversation: Obj[];
  responses: FakeResponseRecord[];
  toolCalls: { call_id: string; name: string; arguments: string; response_id: string; item_id: string }[];
  functionOutputs: { call_id: string; output: string; item_id: string; name: string | null }[];
  truncations: { item_id: string; content_index: number; audio_end_ms: number; audio_ms: number }[];
  problems: string[];
  /** Steps still queued for this session. */
  script: ScriptStep[];
  closed: boolean;
  closeCode: number | null;
}

export interface FakeRealtimeOptions {
  apiKey?: string;
  /** 1 = real time; 20 = twenty times faster; Infinity = as fast as possible. */
  audioSpeed?: number;
}

export interface FakeRealtime {
  url: string;
  apiKey: string;
  sessions: RealtimeSessionRecord[];
  rejections: { path: string; status: number; code: string | null; headers: IncomingHttpHeaders }[];
  script(steps: ScriptStep[], sessionIndex?: number): void;
  clearScript(sessionIndex?: number): void;
  waitForSession(index: number, timeoutMs?: number): Promise<RealtimeSessionRecord>;
  waitForEvent(sessionIndex: number, type: string, predicate?: (e: any) => boolean, timeoutMs?: number): Promise<any>;
  waitForServerEvent(sessionIndex: number, type: string, predicate?: (e: any) => boolean, timeoutMs?: number): Promise<any>;
  setEchoMode(enabled: boolean): void;
  setAudioSpeed(factor: number): void;
  setResponseDelay(ms: number): void;
  release(sessionIndex: number): void;
  sendServerEvent(sessionIndex: number, event: Obj): void;
  disconnect(sessionIndex: number, code?: number, reason?: string): void;
  close(): Promise<void>;
  // REST endpoints (tests/fakes/openai-rest.ts)
  chatRequests: ChatRequestRecord[];
  transcriptionRequests: TranscriptionRequestRecord[];
  speechRequests: SpeechRequestRecord[];
  restProblems: string[];
  scriptChat(steps: ChatScriptStep[]): void;
  scriptTranscripts(texts: string[]): void;
  clearRestScripts(): void;
}

export const DEFAULT_REPLY = "Okay.";
export const DEFAULT_CALLER_TRANSCRIPT = "(unscripted caller speech)";
export const DEFAULT_INSTRUCTIONS =
  "Your knowledge cutoff is 2023-10. You are a helpful, witty, and friendly AI. Act like a human, but remember that you aren't a human and that you can't do human things in the real world. Your voice and personality should be warm and engaging, with a lively and playful tone.";

const CHUNK_MS = 20;
const VOICES = ["alloy", "ash", "ballad", "coral", "echo", "sage", "shimmer", "verse", "marin", "cedar"];
const FORMAT_TYPES = ["audio/pcm", "audio/pcmu", "audio/pcma"];
const CLIENT_EVENT_KEYS: Record<string, readonly string[]> = {
  "session.update": ["type", "event_id", "session"],
  "input_audio_buffer.append": ["type", "event_id", "audio"],
  "input_audio_buffer.commit": ["type", "event_id"],
  "input_audio_buffer.clear": ["type", "event_id"],
  "conversation.item.create": ["type", "event_id", "item", "previous_item_id"],
  "conversation.item.truncate": ["type", "event_id", "item_id", "content_index", "audio_end_ms"],
  "conversation.item.delete": ["type", "event_id", "item_id"],
  "conversation.item.retrieve": ["type", "event_id", "item_id"],
  "response.create": ["type", "event_id", "response"],
  "response.cancel": ["type", "event_id", "response_id"],
  "output_audio_buffer.clear": ["type", "event_id"],
};
const SESSION_KEYS = [
  "type",
  "audio",
  "include",
  "instructions",
  "max_output_tokens",
  "model",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
  "tracing",
  "truncation",
];
const RESPONSE_KEYS = [
  "audio",
  "conversation",
  "input",
  "instructions",
  "max_output_tokens",
  "metadata",
  "output_modalities",
  "parallel_tool_calls",
  "prompt",
  "reasoning",
  "tool_choice",
  "tools",
];
const MCP_TOOL_KEYS = [
  "type",
  "server_label",
  "allowed_callers",
  "allowed_tools",
  "authorization",
  "connector_id",
  "defer_loading",
  "headers",
  "require_approval",
  "server_description",
  "server_url",
  "tunnel_id",
];

// ---------------------------------------------------------------------------------------------
// G.711 and audio helpers

/** 16-bit linear PCM sample to a G.711 μ-law byte. */
export function linearToMulaw(sample: number): number {
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  s = Math.min(s, 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 μ-law byte to a 16-bit linear PCM sample (0xFF and 0x7F are 0). */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const magnitude = ((((u & 0x0f) << 3) + 0x84) << ((u >> 4) & 0x07)) - 0x84;
  return u & 0x80 ? -magnitude : magnitude;
}

function linearToAlaw(sample: number): number {
  let pcm = Math.max(-32768, Math.min(32767, Math.round(sample))) >> 3;
  let mask = 0xd5;
  if (pcm < 0) {
    mask = 0x55;
    pcm = -pcm - 1;
  }
  const ends = [0x1f, 0x3f, 0x7f, 0xff, 0x1ff, 0x3ff, 0x7ff, 0xfff];
  const seg = ends.findIndex((end) => pcm <= end);
  if (seg < 0) return 0x7f ^ mask;
  const aval = (seg << 4) | ((seg < 2 ? pcm >> 1 : pcm >> seg) & 0x0f);
  return aval ^ mask;
}

function alawToLinear(byte: number): number {
  const a = byte ^ 0x55;
  let t = (a & 0x0f) << 4;
  const seg = (a & 0x70) >> 4;
  if (seg === 0) t += 8;
  else {
    t += 0x108;
    if (seg > 1) t <<= seg - 1;
  }
  return a & 0x80 ? t : -t;
}

const MULAW_TABLE = Int16Array.from({ length: 256 }, (_, b) => mulawToLinear(b));
const ALAW_TABLE = Int16Array.from({ length: 256 }, (_, b) => alawToLinear(b));

/** Audio length of a scripted utterance: 60 ms per character, at least 400 ms, whole 20 ms chunks. */
export function audioMsForText(text: string): number {
  return Math.ceil(Math.max(400, 60 * text.length) / CHUNK_MS) * CHUNK_MS;
}

/** `ms` of μ-law silence (0xFF), whole 20 ms frames. */
export function mulawSilence(ms: number): Buffer {
  return Buffer.alloc(Math.ceil(ms / CHUNK_MS) * 160, 0xff);
}

/** `ms` of loud μ-law "speech" (a 300 Hz tone at about -10 dBFS), whole 20 ms frames. */
export function mulawSpeech(ms: number): Buffer {
  const out = Buffer.alloc(Math.ceil(ms / CHUNK_MS) * 160);
  for (let n = 0; n < out.length; n++) out[n] = linearToMulaw(10000 * Math.sin((2 * Math.PI * 300 * n) / 8000));
  return out;
}

function bytesPerMs(format: Obj | undefined): number {
  return format?.type === "audio/pcm" ? 48 : 8;
}

const toneChunks = new Map<string, { bytes: number; base64: string }>();
/** 20 ms of a 400 Hz tone in a format (exactly 8 periods, so chunks join without clicks). */
function toneChunk(formatType: string): { bytes: number; base64: string } {
  const cached = toneChunks.get(formatType);
  if (cached) return cached;
  const rate = formatType === "audio/pcm" ? 24000 : 8000;
  const samples = (rate * CHUNK_MS) / 1000;
  const buf = Buffer.alloc(formatType === "audio/pcm" ? samples * 2 : samples);
  for (let n = 0; n < samples; n++) {
    const s = Math.round(6000 * Math.sin((2 * Math.PI * 400 * n) / rate));
    if (formatType === "audio/pcm") buf.writeInt16LE(s, n * 2);
    else buf[n] = formatType === "audio/pcma" ? linearToAlaw(s) : linearToMulaw(s);
  }
  const chunk = { bytes: buf.length, base64: buf.toString("base64") };
  toneChunks.set(formatType, chunk);
  return chunk;
}

function windowRms(window: Buffer, formatType: string): number {
  let sum = 0;
  let n = 0;
  if (formatType === "audio/pcm") {
    for (let i = 0; i + 1 < window.length; i += 2, n++) {
      const v = window.readInt16LE(i);
      sum += v * v;
    }
  } else {
    const table = formatType === "audio/pcma" ? ALAW_TABLE : MULAW_TABLE;
    for (const byte of window) {
      const v = table[byte]!;
      sum += v * v;
      n++;
    }
  }
  return n === 0 ? 0 : Math.sqrt(sum / n);
}

// ---------------------------------------------------------------------------------------------
// Ids, errors, validation

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
function newId(prefix: string, length = 21): string {
  let out = `${prefix}_`;
  for (const b of randomBytes(length)) out += ALNUM[b % 62];
  return out;
}

const clone = <T>(v: T): T => structuredClone(v);
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

class RealtimeRequestError extends Error {
  constructor(
    readonly code: string | null,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "number") return Number.isInteger(value) ? "an integer" : "a decimal";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}
const quoteList = (values: readonly unknown[]) => {
  const q = values.map((v) => `'${String(v)}'`);
  return q.length < 2 ? q.join("") : `${q.slice(0, -1).join(", ")}${q.length > 2 ? "," : ""} and ${q.at(-1)}`;
};
const join = (path: string, key: string | number) => (typeof key === "number" ? `${path}[${key}]` : path ? `${path}.${key}` : key);
const unknownParam = (path: string) => new RealtimeRequestError("unknown_parameter", `Unknown parameter: '${path}'.`, path);
const missingParam = (path: string) =>
  new RealtimeRequestError("missing_required_parameter", `Missing required parameter: '${path}'.`, path);
const invalidType = (path: string, expected: string, value: unknown) =>
  new RealtimeRequestError(
    "invalid_type",
    `Invalid type for '${path}': expected ${expected}, but got ${describeValue(value)} instead.`,
    path,
  );
const invalidValue = (path: string, value: unknown, supported?: readonly unknown[], detail?: string) =>
  new RealtimeRequestError(
    "invalid_value",
    `Invalid value: '${typeof value === "string" ? value : JSON.stringify(value)}'.${supported ? ` Supported values are: ${quoteList(supported)}.` : ""}${detail ? ` ${detail}` : ""}`,
    path,
  );

function checkKeys(v: Obj, allowed: readonly string[], path: string): void {
  for (const key of Object.keys(v)) if (!allowed.includes(key)) throw unknownParam(join(path, key));
}
function reqObj(v: unknown, path: string): Obj {
  if (v === undefined) throw missingParam(path);
  if (!isObj(v)) throw invalidType(path, "an object", v);
  return v;
}
function str(v: unknown, path: string): string {
  if (v === undefined) throw missingParam(path);
  if (typeof v !== "string") throw invalidType(path, "a string", v);
  return v;
}
function bool(v: unknown, path: string): boolean {
  if (typeof v !== "boolean") throw invalidType(path, "a boolean", v);
  return v;
}
function num(v: unknown, path: string, min: number, max: number, integer = false): number {
  if (typeof v !== "number" || !Number.isFinite(v) || (integer && !Number.isInteger(v)))
    throw invalidType(path, integer ? "an integer" : "a number", v);
  if (v < min || v > max) {
    const kind = integer ? "integer" : "decimal";
    const below = v < min;
    throw new RealtimeRequestError(
      `${kind}_${below ? "below_min" : "above_max"}_value`,
      `Invalid '${path}': ${kind} ${below ? "below minimum" : "above maximum"} value. Expected a value ${below ? ">=" : "<="} ${below ? min : max}, but got ${v} instead.`,
      path,
    );
  }
  return v;
}
function oneOf<T extends string>(v: unknown, values: readonly T[], path: string): T {
  if (v === undefined) throw missingParam(path);
  if (typeof v !== "string") throw invalidType(path, "a string", v);
  if (!values.includes(v as T)) throw invalidValue(path, v, values);
  return v as T;
}

function validateFormat(v: unknown, path: string): Obj {
  const f = reqObj(v, path);
  const type = oneOf(f.type, FORMAT_TYPES, join(path, "type"));
  if (type === "audio/pcm") {
    checkKeys(f, ["type", "rate"], path);
    if (f.rate !== undefined && f.rate !== 24000) throw invalidValue(join(path, "rate"), f.rate, [24000]);
    return { type, rate: 24000 };
  }
  checkKeys(f, ["type"], path);
  return { type };
}

function validateTurnDetection(v: unknown, path: string): Obj | null {
  if (v === null) return null;
  const t = reqObj(v, path);
  const type = oneOf(t.type, ["server_vad", "semantic_vad"], join(path, "type"));
  if (type === "semantic_vad") {
    checkKeys(t, ["type", "eagerness", "create_response", "interrupt_response"], path);
    return {
      type,
      eagerness: t.eagerness === undefined ? "auto" : oneOf(t.eagerness, ["low", "medium", "high", "auto"], join(path, "eagerness")),
      create_response: t.create_response === undefined ? true : bool(t.create_response, join(path, "create_response")),
      interrupt_response: t.interrupt_response === undefined ? true : bool(t.interrupt_response, join(path, "interrupt_response")),
    };
  }
  checkKeys(
    t,
    ["type", "threshold", "prefix_padding_ms", "silence_duration_ms", "idle_timeout_ms", "create_response", "interrupt_response"],
    path,
  );
  return {
    type,
    threshold: t.threshold === undefined ? 0.5 : num(t.threshold, join(path, "threshold"), 0, 1),
    prefix_padding_ms: t.prefix_padding_ms === undefined ? 300 : num(t.prefix_padding_ms, join(path, "prefix_padding_ms"), 0, 10000, true),
    silence_duration_ms:
      t.silence_duration_ms === undefined ? 500 : num(t.silence_duration_ms, join(path, "silence_duration_ms"), 0, 10000, true),
    idle_timeout_ms:
      t.idle_timeout_ms === undefined || t.idle_timeout_ms === null
        ? null
        : num(t.idle_timeout_ms, join(path, "idle_timeout_ms"), 5000, 30000, true),
    create_response: t.create_response === undefined ? true : bool(t.create_response, join(path, "create_response")),
    interrupt_response: t.interrupt_response === undefined ? true : bool(t.interrupt_response, join(path, "interrupt_response")),
  };
}

function validateTranscription(v: unknown, path: string): Obj | null {
  if (v === null) return null;
  const t = reqObj(v, path);
  checkKeys(t, ["model", "language", "prompt", "delay"], path);
  const out: Obj = {};
  if (t.model !== undefined) out.model = str(t.model, join(path, "model"));
  if (t.language !== undefined) out.language = str(t.language, join(path, "language"));
  if (t.prompt !== undefined) out.prompt = str(t.prompt, join(path, "prompt"));
  if (t.delay !== undefined) out.delay = oneOf(t.delay, ["minimal", "low", "medium", "high", "xhigh"], join(path, "delay"));
  return out;
}

function validateVoice(v: unknown, path: string): unknown {
  if (isObj(v)) {
    checkKeys(v, ["id"], path);
    return { id: str(v.id, join(path, "id")) };
  }
  return oneOf(v, VOICES, path);
}

function validateTools(v: unknown, path: string): Obj[] {
  if (!Array.isArray(v)) throw invalidType(path, "an array", v);
  return v.map((raw, i) => {
    const p = join(path, i);
    const tool = reqObj(raw, p);
    const type = oneOf(tool.type, ["function", "mcp"], join(p, "type"));
    if (type === "mcp") {
      checkKeys(tool, MCP_TOOL_KEYS, p);
      str(tool.server_label, join(p, "server_label"));
      return clone(tool);
    }
    checkKeys(tool, ["type", "name", "description", "parameters"], p);
    const name = str(tool.name, join(p, "name"));
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(name))
      throw invalidValue(join(p, "name"), name, undefined, "Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.");
    const out: Obj = { type, name };
    if (tool.description !== undefined) out.description = str(tool.description, join(p, "description"));
    if (tool.parameters !== undefined) out.parameters = clone(reqObj(tool.parameters, join(p, "parameters")));
    return out;
  });
}

function validateToolChoice(v: unknown, path: string): unknown {
  if (typeof v === "string") return oneOf(v, ["none", "auto", "required"], path);
  const c = reqObj(v, path);
  const type = oneOf(c.type, ["function", "mcp"], join(path, "type"));
  if (type === "function") {
    checkKeys(c, ["type", "name"], path);
    return { type, name: str(c.name, join(path, "name")) };
  }
  checkKeys(c, ["type", "server_label", "name"], path);
  return clone(c);
}

function validateModalities(v: unknown, path: string): ("audio" | "text")[] {
  if (!Array.isArray(v)) throw invalidType(path, "an array", v);
  const values = v.map((m, i) => oneOf(m, ["text", "audio"] as const, join(path, i)));
  if (values.length !== 1)
    throw invalidValue(path, v, undefined, "Use either ['audio'] or ['text']; it is not possible to request both text and audio.");
  return values;
}

function validateMaxTokens(v: unknown, path: string): number | "inf" {
  if (v === "inf") return v;
  return num(v, path, 1, 4096, true);
}

/** Validates a session.update's `session` and returns the new effective session (or throws). */
function nextSession(raw: unknown, current: Obj, audioProduced: boolean): Obj {
  const s = reqObj(raw, "session");
  if (s.type === undefined) throw missingParam("session.type");
  if (s.type === "transcription")
    throw new RealtimeRequestError(
      "invalid_value",
      "Cannot change the session type of a realtime session to 'transcription'.",
      "session.type",
    );
  if (s.type !== "realtime") throw invalidValue("session.type", s.type, ["realtime", "transcription"]);
  checkKeys(s, SESSION_KEYS, "session");
  const next = clone(current);
  if (s.model !== undefined && str(s.model, "session.model") !== current.model)
    throw invalidValue("session.model", s.model, undefined, "The model of a session cannot be changed.");
  if (s.instructions !== undefined) next.instructions = str(s.instructions, "session.instructions");
  if (s.output_modalities !== undefined) next.output_modalities = validateModalities(s.output_modalities, "session.output_modalities");
  if (s.max_output_tokens !== undefined) next.max_output_tokens = validateMaxTokens(s.max_output_tokens, "session.max_output_tokens");
  if (s.tools !== undefined) next.tools = validateTools(s.tools, "session.tools");
  if (s.tool_choice !== undefined) next.tool_choice = validateToolChoice(s.tool_choice, "session.tool_choice");
  if (s.parallel_tool_calls !== undefined) next.parallel_tool_calls = bool(s.parallel_tool_calls, "session.parallel_tool_calls");
  if (s.include !== undefined) {
    if (s.include !== null && !Array.isArray(s.include)) throw invalidType("session.include", "an array", s.include);
    (s.include ?? []).forEach((x: unknown, i: number) => oneOf(x, ["item.input_audio_transcription.logprobs"], join("session.include", i)));
    next.include = clone(s.include);
  }
  if (s.tracing !== undefined) {
    if (s.tracing !== null && s.tracing !== "auto" && !isObj(s.tracing)) throw invalidValue("session.tracing", s.tracing, ["auto"]);
    next.tracing = clone(s.tracing);
  }
  if (s.truncation !== undefined) {
    if (s.truncation !== "auto" && s.truncation !== "disabled" && !isObj(s.truncation))
      throw invalidValue("session.truncation", s.truncation, ["auto", "disabled"]);
    next.truncation = clone(s.truncation);
  }
  if (s.prompt !== undefined) {
    if (s.prompt !== null) reqObj(s.prompt, "session.prompt");
    next.prompt = clone(s.prompt);
  }
  if (s.reasoning !== undefined) {
    const r = reqObj(s.reasoning, "session.reasoning");
    checkKeys(r, ["effort"], "session.reasoning");
    if (r.effort !== undefined) oneOf(r.effort, ["minimal", "low", "medium", "high", "xhigh"], "session.reasoning.effort");
    next.reasoning = clone(r);
  }
  if (s.audio !== undefined) {
    const a = reqObj(s.audio, "session.audio");
    checkKeys(a, ["input", "output"], "session.audio");
    if (a.input !== undefined) {
      const p = "session.audio.input";
      const i = reqObj(a.input, p);
      checkKeys(i, ["format", "noise_reduction", "transcription", "turn_detection"], p);
      if (i.format !== undefined) next.audio.input.format = validateFormat(i.format, `${p}.format`);
      if (i.noise_reduction !== undefined) {
        if (i.noise_reduction === null) next.audio.input.noise_reduction = null;
        else {
          const n = reqObj(i.noise_reduction, `${p}.noise_reduction`);
          checkKeys(n, ["type"], `${p}.noise_reduction`);
          next.audio.input.noise_reduction = { type: oneOf(n.type, ["near_field", "far_field"], `${p}.noise_reduction.type`) };
        }
      }
      if (i.transcription !== undefined) next.audio.input.transcription = validateTranscription(i.transcription, `${p}.transcription`);
      if (i.turn_detection !== undefined) next.audio.input.turn_detection = validateTurnDetection(i.turn_detection, `${p}.turn_detection`);
    }
    if (a.output !== undefined) {
      const p = "session.audio.output";
      const o = reqObj(a.output, p);
      checkKeys(o, ["format", "speed", "voice"], p);
      if (o.format !== undefined) next.audio.output.format = validateFormat(o.format, `${p}.format`);
      if (o.speed !== undefined) next.audio.output.speed = num(o.speed, `${p}.speed`, 0.25, 1.5);
      if (o.voice !== undefined) {
        const voice = validateVoice(o.voice, `${p}.voice`);
        if (audioProduced && JSON.stringify(voice) !== JSON.stringify(current.audio.output.voice))
          throw new RealtimeRequestError(
            "cannot_update_voice",
            "Cannot update a conversation's voice if assistant audio is present.",
            `${p}.voice`,
          );
        next.audio.output.voice = voice;
      }
    }
  }
  return next;
}

function validateResponseParams(v: unknown): Obj {
  const r = reqObj(v, "response");
  checkKeys(r, RESPONSE_KEYS, "response");
  if (r.instructions !== undefined) str(r.instructions, "response.instructions");
  if (r.output_modalities !== undefined) validateModalities(r.output_modalities, "response.output_modalities");
  if (r.max_output_tokens !== undefined) validateMaxTokens(r.max_output_tokens, "response.max_output_tokens");
  if (r.tools !== undefined) validateTools(r.tools, "response.tools");
  if (r.tool_choice !== undefined) validateToolChoice(r.tool_choice, "response.tool_choice");
  if (r.conversation !== undefined) str(r.conversation, "response.conversation");
  if (r.input !== undefined && !Array.isArray(r.input)) throw invalidType("response.input", "an array", r.input);
  if (r.metadata !== undefined && r.metadata !== null) reqObj(r.metadata, "response.metadata");
  if (r.audio !== undefined) {
    const a = reqObj(r.audio, "response.audio");
    checkKeys(a, ["output"], "response.audio");
    if (a.output !== undefined) {
      const o = reqObj(a.output, "response.audio.output");
      checkKeys(o, ["format", "voice"], "response.audio.output");
      if (o.format !== undefined) validateFormat(o.format, "response.audio.output.format");
      if (o.voice !== undefined) validateVoice(o.voice, "response.audio.output.voice");
    }
  }
  return clone(r);
}

function validateItem(v: unknown, conversation: Obj[]): Obj {
  const item = reqObj(v, "item");
  const type = oneOf(item.type, ["message", "function_call", "function_call_output"], "item.type");
  if (item.id !== undefined) {
    str(item.id, "item.id");
    if (conversation.some((i) => i.id === item.id))
      throw new RealtimeRequestError("invalid_value", `Item with id '${item.id}' already exists in the conversation.`, "item.id");
  }
  if (item.object !== undefined) oneOf(item.object, ["realtime.item"], "item.object");
  if (item.status !== undefined) oneOf(item.status, ["completed", "incomplete", "in_progress"], "item.status");
  const common = ["id", "object", "status", "type"];
  if (type === "message") {
    checkKeys(item, [...common, "role", "content"], "item");
    const role = oneOf(item.role, ["user", "assistant", "system"], "item.role");
    if (!Array.isArray(item.content))
      throw item.content === undefined ? missingParam("item.content") : invalidType("item.content", "an array", item.content);
    const allowed = {
      user: ["input_text", "input_audio", "input_image"],
      system: ["input_text"],
      assistant: ["output_text", "output_audio"],
    }[role];
    item.content.forEach((part: unknown, i: number) => {
      const p = join("item.content", i);
      const c = reqObj(part, p);
      checkKeys(c, ["type", "text", "audio", "transcript", "image_url", "detail"], p);
      oneOf(c.type, allowed, join(p, "type"));
      if (c.text !== undefined) str(c.text, join(p, "text"));
    });
  } else if (type === "function_call") {
    checkKeys(item, [...common, "name", "arguments", "call_id"], "item");
    str(item.name, "item.name");
    str(item.arguments, "item.arguments");
    if (item.call_id !== undefined) str(item.call_id, "item.call_id");
  } else {
    checkKeys(item, [...common, "call_id", "output"], "item");
    const callId = str(item.call_id, "item.call_id");
    str(item.output, "item.output");
    if (!conversation.some((i) => i.type === "function_call" && i.call_id === callId))
      throw new RealtimeRequestError(
        "invalid_value",
        `Invalid 'item.call_id': no function_call with call_id '${callId}' in the conversation.`,
        "item.call_id",
      );
  }
  return clone(item);
}

function defaultSession(id: string, model: string): Obj {
  return {
    type: "realtime",
    object: "realtime.session",
    id,
    model,
    output_modalities: ["audio"],
    instructions: DEFAULT_INSTRUCTIONS,
    tools: [],
    tool_choice: "auto",
    max_output_tokens: "inf",
    tracing: null,
    truncation: "auto",
    prompt: null,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    audio: {
      input: {
        format: { type: "audio/pcm", rate: 24000 },
        transcription: null,
        noise_reduction: null,
        turn_detection: validateTurnDetection({ type: "server_vad" }, ""),
      },
      output: { format: { type: "audio/pcm", rate: 24000 }, voice: "marin", speed: 1 },
    },
    include: null,
  };
}

function splitWords(text: string): string[] {
  return text.match(/\s*\S+|\s+$/g) ?? [text];
}

// ---------------------------------------------------------------------------------------------
// One connection

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
type OutgoingEvent = DistributiveOmit<Extract<RealtimeServerEvent, { event_id: string }>, "event_id">;

interface OpenPart {
  kind: "audio" | "text";
  item: Obj;
  outputIndex: number;
  previousItemId: string | null;
  text: string;
}

interface ResponseRun {
  id: string;
  record: FakeResponseRecord;
  conversation: "auto" | "none";
  modality: "audio" | "text";
  format: Obj;
  voice: unknown;
  maxOutputTokens: number | "inf";
  metadata: Obj | null;
  status: FakeResponseRecord["status"];
  statusDetails: Obj | null;
  output: Obj[];
  open: OpenPart | null;
  speed: number;
  clockStart: number | null;
  timer: NodeJS.Timeout | null;
  wake: (() => void) | null;
}

interface Shared {
  audioSpeed: number;
  responseDelayMs: number;
  echoMode: boolean;
  defaultScript: ScriptStep[];
  emitter: EventEmitter;
}

class Connection {
  closed = false;
  private readonly conversationId = newId("conv");
  private audioProduced = false;
  private active: ResponseRun | null = null;
  private readonly running = new Set<ResponseRun>();
  private echo: ResponseRun | null = null;
  private echoSeq = 0;
  private readonly vad = { speaking: false, silenceMs: 0, itemId: "" };
  private pending: Buffer = Buffer.alloc(0);
  private inputMs = 0;
  private bufferMs = 0;
  private userAudioMs = 0;
  private readonly itemAudioMs = new Map<string, number>();
  /** Responses whose output waits for release(). */
  private readonly held = new Set<ResponseRun>();
  lastAppend: Obj | null = null;

  constructor(
    private readonly shared: Shared,
    private readonly ws: WebSocket,
    readonly record: RealtimeSessionRecord,
  ) {}

  // --- sending ---------------------------------------------------------------------------------

  /** Sends a server event, type-checked against the SDK's RealtimeServerEvent union. */
  send(event: OutgoingEvent): void {
    this.sendRaw(event);
  }

  sendRaw(event: Obj): void {
    if (this.closed || this.ws.readyState !== WebSocket.OPEN) return;
    const { type, ...rest } = event as Obj;
    const full: Obj = { type, event_id: newId("event"), ...rest };
    this.ws.send(JSON.stringify(full));
    let stored = full;
    if (type === "response.output_audio.delta") {
      const { delta, ...meta } = full;
      stored = { ...meta, delta_bytes: Buffer.byteLength(delta as string, "base64") };
    }
    this.record.serverEvents.push(stored);
    if (type === "error") this.record.errors.push(stored);
    this.shared.emitter.emit("server", this.record.index, stored);
  }

  private sendError(e: RealtimeRequestError, clientEventId: string | null): void {
    this.send({
      type: "error",
      error: { type: "invalid_request_error", code: e.code, message: e.message, param: e.param, event_id: clientEventId },
    });
  }

  // --- receiving -------------------------------------------------------------------------------

  onMessage(data: WebSocket.RawData, isBinary: boolean): void {
    const text = (Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data)).toString("utf8");
    if (isBinary) {
      this.record.clientEvents.push({ type: "<binary>", bytes: text.length });
      this.sendError(new RealtimeRequestError("invalid_value", "Binary messages are not supported; send JSON text events."), null);
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (error) {
      this.record.clientEvents.push({ type: "<invalid json>", raw: text.slice(0, 500) });
      this.sendError(
        new RealtimeRequestError("invalid_json", `We could not parse the JSON body of your request. (${(error as Error).message})`),
        null,
      );
      return;
    }
    if (!isObj(event)) {
      this.record.clientEvents.push({ type: "<not an object>", raw: text.slice(0, 500) });
      this.sendError(invalidType("(root)", "an object", event), null);
      return;
    }
    const clientEventId = typeof event.event_id === "string" ? event.event_id : null;
    try {
      if (event.type === "input_audio_buffer.append") {
        this.append(event);
        return;
      }
      this.record.clientEvents.push(event);
      this.shared.emitter.emit("client", this.record.index, event);
      this.dispatch(event);
    } catch (error) {
      if (!(error instanceof RealtimeRequestError)) throw error;
      this.sendError(error, clientEventId);
    }
  }

  private dispatch(event: Obj): void {
    if (event.type === undefined) throw missingParam("type");
    if (typeof event.type !== "string") throw invalidType("type", "a string", event.type);
    const keys = CLIENT_EVENT_KEYS[event.type];
    if (!keys) throw invalidValue("type", event.type, Object.keys(CLIENT_EVENT_KEYS));
    checkKeys(event, keys, "");
    if (event.event_id !== undefined) str(event.event_id, "event_id");
    switch (event.type) {
      case "session.update":
        return this.sessionUpdate(event);
      case "input_audio_buffer.commit":
        return this.manualCommit();
      case "input_audio_buffer.clear":
        this.pending = Buffer.alloc(0);
        this.bufferMs = 0;
        this.vad.speaking = false;
        return this.send({ type: "input_audio_buffer.cleared" });
      case "conversation.item.create":
        return this.itemCreate(event);
      case "conversation.item.truncate":
        return this.truncate(event);
      case "conversation.item.delete":
        return this.itemDelete(event);
      case "conversation.item.retrieve": {
        const item = this.findItem(str(event.item_id, "item_id"), "item_retrieve_invalid_item_id");
        return this.send({ type: "conversation.item.retrieved", item: clone(item) as any });
      }
      case "response.create":
        this.startResponse("response.create", event.response === undefined ? null : validateResponseParams(event.response));
        return;
      case "response.cancel":
        return this.clientCancel(event);
      case "output_audio_buffer.clear":
        throw new RealtimeRequestError(
          "invalid_value",
          "output_audio_buffer.clear is only supported for WebRTC and SIP connections; over WebSocket, truncate the item instead.",
          "type",
        );
    }
  }

  private sessionUpdate(event: Obj): void {
    const next = nextSession(event.session, this.record.session, this.audioProduced);
    const before = this.record.session;
    this.record.session = next;
    if (JSON.stringify(before.audio.input.format) !== JSON.stringify(next.audio.input.format)) this.pending = Buffer.alloc(0);
    if (!next.audio.input.turn_detection) this.vad.speaking = false;
    this.send({ type: "session.updated", session: clone(next) as any });
  }

  // --- input audio and VAD -----------------------------------------------------------------------

  private append(event: Obj): void {
    checkKeys(event, CLIENT_EVENT_KEYS["input_audio_buffer.append"]!, "");
    const audio = str(event.audio, "audio");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(audio) || audio.length % 4 === 1)
      throw invalidValue(
        "audio",
        `${audio.slice(0, 20)}${audio.length > 20 ? "…" : ""}`,
        undefined,
        "Expected base64-encoded audio bytes.",
      );
    const bytes = Buffer.from(audio, "base64");
    const format = this.record.session.audio.input.format;
    this.record.audioIn.appends += 1;
    this.record.audioIn.bytes += bytes.length;
    this.record.audioIn.ms = this.record.audioIn.bytes / bytesPerMs(format);
    this.lastAppend = { type: "input_audio_buffer.append", event_id: event.event_id ?? null, audio_bytes: bytes.length };
    this.shared.emitter.emit("client", this.record.index, this.lastAppend);
    if (this.shared.echoMode) return this.echoFrame(bytes);

    const windowBytes = CHUNK_MS * bytesPerMs(format);
    const audioBuf = this.pending.length ? Buffer.concat([this.pending, bytes]) : bytes;
    let offset = 0;
    while (audioBuf.length - offset >= windowBytes) {
      this.vadWindow(audioBuf.subarray(offset, offset + windowBytes), format.type);
      offset += windowBytes;
    }
    this.pending = Buffer.from(audioBuf.subarray(offset));
  }

  private vadWindow(window: Buffer, formatType: string): void {
    const start = this.inputMs;
    this.inputMs += CHUNK_MS;
    this.bufferMs += CHUNK_MS;
    const td = this.record.session.audio.input.turn_detection as Obj | null;
    if (!td || this.closed) return;
    const speech = windowRms(window, formatType) > 1600 * (td.threshold ?? 0.5);
    if (!this.vad.speaking) {
      if (!speech) return;
      this.vad.speaking = true;
      this.vad.silenceMs = 0;
      this.vad.itemId = newId("item");
      this.send({
        type: "input_audio_buffer.speech_started",
        audio_start_ms: Math.max(0, start - (td.prefix_padding_ms ?? 300)),
        item_id: this.vad.itemId,
      });
      if (td.interrupt_response !== false && this.active) this.finish(this.active, "cancelled", "turn_detected");
      return;
    }
    if (speech) {
      this.vad.silenceMs = 0;
      return;
    }
    this.vad.silenceMs += CHUNK_MS;
    if (this.vad.silenceMs < (td.silence_duration_ms ?? 500)) return;
    this.vad.speaking = false;
    const itemId = this.vad.itemId;
    this.send({ type: "input_audio_buffer.speech_stopped", audio_end_ms: this.inputMs, item_id: itemId });
    this.commit(itemId);
    if (td.create_response !== false && !this.active) this.startResponse("server_vad", null);
  }

  private manualCommit(): void {
    const ms = this.bufferMs + this.pending.length / bytesPerMs(this.record.session.audio.input.format);
    if (ms < 100)
      throw new RealtimeRequestError(
        "input_audio_buffer_commit_empty",
        `Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has ${ms.toFixed(2)}ms of audio.`,
      );
    const itemId = this.vad.speaking ? this.vad.itemId : newId("item");
    this.vad.speaking = false;
    this.pending = Buffer.alloc(0);
    this.commit(itemId);
  }

  private commit(itemId: string): void {
    const previous = this.lastItemId();
    this.userAudioMs += this.bufferMs;
    this.bufferMs = 0;
    const item = {
      id: itemId,
      object: "realtime.item",
      type: "message",
      status: "completed",
      role: "user",
      content: [{ type: "input_audio", transcript: null as string | null }],
    };
    this.send({ type: "input_audio_buffer.committed", item_id: itemId, previous_item_id: previous });
    this.record.conversation.push(item);
    this.send({ type: "conversation.item.added", item: clone(item) as Obj as any, previous_item_id: previous });
    this.send({ type: "conversation.item.done", item: clone(item) as Obj as any, previous_item_id: previous });
    const transcript = this.takeCallerTranscript();
    const transcription = this.record.session.audio.input.transcription as Obj | null;
    if (!transcription) return;
    // Transcription runs beside the response: it arrives after response.created.
    setImmediate(() => {
      if (this.closed) return;
      item.content[0]!.transcript = transcript;
      const audioTokens = Math.ceil(this.userAudioMs / 100);
      const textTokens = Math.ceil(transcript.length / 4);
      this.send({ type: "conversation.item.input_audio_transcription.delta", item_id: itemId, content_index: 0, delta: transcript });
      this.send({
        type: "conversation.item.input_audio_transcription.completed",
        item_id: itemId,
        content_index: 0,
        transcript,
        usage:
          transcription.model === "whisper-1"
            ? { type: "duration", seconds: Math.round(this.userAudioMs / 100) / 10 }
            : {
                type: "tokens",
                input_tokens: audioTokens,
                output_tokens: textTokens,
                total_tokens: audioTokens + textTokens,
                input_token_details: { audio_tokens: audioTokens, text_tokens: 0 },
              },
      });
    });
  }

  private echoFrame(bytes: Buffer): void {
    if (!this.echo) {
      const r = this.newRun("echo", null, null);
      this.echo = r;
      this.send({ type: "response.created", response: this.responseObject(r) });
      this.openMessage(r, 0);
    }
    const r = this.echo;
    const out = Buffer.from(bytes);
    const stamp = Buffer.alloc(4);
    stamp.writeUInt32BE(this.echoSeq++ >>> 0);
    stamp.copy(out, 0, 0, Math.min(4, out.length));
    this.audioProduced = true;
    const ms = out.length / bytesPerMs(r.format);
    r.record.audioMs += ms;
    const itemId = r.open!.item.id as string;
    this.itemAudioMs.set(itemId, (this.itemAudioMs.get(itemId) ?? 0) + ms);
    this.send({
      type: "response.output_audio.delta",
      response_id: r.id,
      item_id: itemId,
      output_index: 0,
      content_index: 0,
      delta: out.toString("base64"),
    });
  }

  endEcho(): void {
    if (this.echo) this.finish(this.echo, "completed");
    this.echo = null;
  }

  // --- conversation items ------------------------------------------------------------------------

  private lastItemId(): string | null {
    return this.record.conversation.at(-1)?.id ?? null;
  }

  private findItem(id: string, code: string): Obj {
    const item = this.record.conversation.find((i) => i.id === id);
    if (!item) throw new RealtimeRequestError(code, `Item with item_id not found: ${id}`, "item_id");
    return item;
  }

  private itemCreate(event: Obj): void {
    const item = validateItem(event.item, this.record.conversation);
    item.id ??= newId("item");
    item.object = "realtime.item";
    item.status ??= "completed";
    let index = this.record.conversation.length;
    if (event.previous_item_id !== undefined) {
      const prev = str(event.previous_item_id, "previous_item_id");
      if (prev === "root") index = 0;
      else {
        const at = this.record.conversation.findIndex((i) => i.id === prev);
        if (at < 0)
          throw new RealtimeRequestError(
            "invalid_value",
            `Previous item with id '${prev}' not found in the conversation.`,
            "previous_item_id",
          );
        index = at + 1;
      }
    }
    const previous = index === 0 ? null : (this.record.conversation[index - 1]?.id ?? null);
    this.record.conversation.splice(index, 0, item);
    if (item.type === "function_call_output") {
      const call = this.record.conversation.find((i) => i.type === "function_call" && i.call_id === item.call_id);
      this.record.functionOutputs.push({ call_id: item.call_id, output: item.output, item_id: item.id, name: call?.name ?? null });
    }
    this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previous });
    this.send({ type: "conversation.item.done", item: clone(item) as any, previous_item_id: previous });
  }

  private itemDelete(event: Obj): void {
    const item = this.findItem(str(event.item_id, "item_id"), "item_delete_invalid_item_id");
    this.record.conversation.splice(this.record.conversation.indexOf(item), 1);
    this.send({ type: "conversation.item.deleted", item_id: item.id });
  }

  private truncate(event: Obj): void {
    const itemId = str(event.item_id, "item_id");
    const contentIndex = num(event.content_index, "content_index", 0, Number.MAX_SAFE_INTEGER, true);
    const audioEndMs = num(event.audio_end_ms, "audio_end_ms", 0, Number.MAX_SAFE_INTEGER, true);
    const item = this.findItem(itemId, "item_truncate_invalid_item_id");
    if (item.type !== "message" || item.role !== "assistant" || !this.itemAudioMs.has(itemId))
      throw new RealtimeRequestError("item_truncate_invalid_item_id", "Only model output audio messages can be truncated", "item_id");
    if (contentIndex !== 0)
      throw invalidValue("content_index", contentIndex, undefined, "The item has a single audio content part, at index 0.");
    const audioMs = this.itemAudioMs.get(itemId) ?? 0;
    if (audioEndMs > audioMs)
      throw new RealtimeRequestError(
        "invalid_value",
        `Audio content of ${audioMs}ms is already shorter than ${audioEndMs}ms`,
        "audio_end_ms",
      );
    this.record.truncations.push({ item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs, audio_ms: audioMs });
    this.itemAudioMs.set(itemId, audioEndMs);
    // Like the API: the server-side transcript goes, so no text the caller did not hear stays in context.
    for (const part of item.content ?? []) if (part.type === "output_audio") part.transcript = null;
    this.send({ type: "conversation.item.truncated", item_id: itemId, content_index: contentIndex, audio_end_ms: audioEndMs });
  }

  // --- responses ---------------------------------------------------------------------------------

  private takeStep(): ScriptStep | null {
    const i = this.record.script.findIndex((s) => !("transcriptOfCaller" in s));
    return i < 0 ? null : this.record.script.splice(i, 1)[0]!;
  }

  private takeCallerTranscript(): string {
    const i = this.record.script.findIndex((s) => "transcriptOfCaller" in s);
    if (i < 0) return DEFAULT_CALLER_TRANSCRIPT;
    return (this.record.script.splice(i, 1)[0] as { transcriptOfCaller: string }).transcriptOfCaller;
  }

  private newRun(trigger: FakeResponseRecord["trigger"], params: Obj | null, step: ScriptStep | null): ResponseRun {
    const session = this.record.session;
    const r: ResponseRun = {
      id: newId("resp"),
      record: {
        id: "",
        trigger,
        params,
        instructions: params?.instructions ?? session.instructions,
        step,
        status: "in_progress",
        reason: null,
        audioMs: 0,
        transcript: "",
      },
      conversation: params?.conversation === "none" ? "none" : "auto",
      modality: (params?.output_modalities ?? session.output_modalities)[0] === "text" ? "text" : "audio",
      format: clone(params?.audio?.output?.format ?? session.audio.output.format),
      voice: clone(params?.audio?.output?.voice ?? session.audio.output.voice),
      maxOutputTokens: params?.max_output_tokens ?? session.max_output_tokens,
      metadata: params?.metadata ?? null,
      status: "in_progress",
      statusDetails: null,
      output: [],
      open: null,
      speed: this.shared.audioSpeed,
      clockStart: null,
      timer: null,
      wake: null,
    };
    r.record.id = r.id;
    this.record.responses.push(r.record);
    this.running.add(r);
    return r;
  }

  private startResponse(trigger: "server_vad" | "response.create", params: Obj | null): void {
    if (params?.conversation !== "none" && this.active)
      throw new RealtimeRequestError(
        "conversation_already_has_active_response",
        `Conversation already has an active response in progress: ${this.active.id}. Wait until the response is finished before creating a new one.`,
      );
    if (this.shared.echoMode) {
      const r = this.newRun(trigger, params, null);
      this.send({ type: "response.created", response: this.responseObject(r) });
      this.finish(r, "completed");
      return;
    }
    const step = this.takeStep();
    const r = this.newRun(trigger, params, step);
    if (r.conversation === "auto") this.active = r;
    this.send({ type: "response.created", response: this.responseObject(r) });
    this.send({
      type: "rate_limits.updated",
      rate_limits: [
        { name: "requests", limit: 5000, remaining: 4999, reset_seconds: 0.012 },
        { name: "tokens", limit: 40000, remaining: 38500, reset_seconds: 2.25 },
      ],
    });
    this.run(r, step).catch((error: unknown) => {
      this.record.problems.push(`response ${r.id} crashed: ${String(error)}`);
      this.finish(r, "failed", "fake_error");
    });
  }

  private async run(r: ResponseRun, step: ScriptStep | null): Promise<void> {
    if (this.shared.responseDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.shared.responseDelayMs));
      if (r.status !== "in_progress" || this.closed) return;
    }
    const s = step ?? { say: DEFAULT_REPLY };
    if ("silent" in s || ("held" in s && s.held)) {
      if (!("silent" in s)) this.held.add(r);
      // finish() (a cancel) and onClose wake it too.
      await new Promise<void>((resolve) => {
        r.wake = () => {
          r.wake = null;
          resolve();
        };
      });
      this.held.delete(r);
      if ("silent" in s || r.status !== "in_progress" || this.closed) return;
    }
    if ("tool" in s) {
      const tools: Obj[] = r.record.params?.tools ?? this.record.session.tools;
      const choice = r.record.params?.tool_choice ?? this.record.session.tool_choice;
      if (choice === "none" || !tools.some((t) => t.type === "function" && t.name === s.tool)) {
        this.record.problems.push(
          `response ${r.id}: the script calls tool '${s.tool}', but ${choice === "none" ? 'tool_choice is "none"' : "the session has no function tool of that name"} (tools: ${tools.map((t) => t.name).join(", ") || "none"})`,
        );
        this.finish(r, "failed", "tool_not_configured");
        return;
      }
      let index = 0;
      if (s.say) {
        await this.streamMessage(r, index++, s.say);
        if (r.status !== "in_progress") return;
      }
      this.functionCall(r, index, s.tool, s.arguments);
    } else if ("say" in s) {
      await this.streamMessage(r, 0, s.say);
      if (r.status !== "in_progress") return;
    }
    this.finish(r, "completed");
  }

  private openMessage(r: ResponseRun, outputIndex: number): OpenPart {
    const item: Obj = {
      id: newId("item"),
      object: "realtime.item",
      type: "message",
      status: "in_progress",
      role: "assistant",
      content: [],
    };
    r.output.push(item);
    this.send({ type: "response.output_item.added", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    const previousItemId = this.lastItemId();
    if (r.conversation === "auto") {
      this.record.conversation.push(item);
      this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previousItemId });
    }
    const kind = r.modality;
    this.send({
      type: "response.content_part.added",
      response_id: r.id,
      item_id: item.id,
      output_index: outputIndex,
      content_index: 0,
      part: kind === "audio" ? { type: "audio", transcript: "" } : { type: "text", text: "" },
    });
    r.open = { kind, item, outputIndex, previousItemId, text: "" };
    if (kind === "audio") this.itemAudioMs.set(item.id, 0);
    return r.open;
  }

  private async streamMessage(r: ResponseRun, outputIndex: number, text: string): Promise<void> {
    const open = this.openMessage(r, outputIndex);
    const ids = { response_id: r.id, item_id: open.item.id as string, output_index: outputIndex, content_index: 0 };
    const words = splitWords(text);
    if (open.kind === "text") {
      for (const word of words) {
        open.text += word;
        this.send({ type: "response.output_text.delta", ...ids, delta: word });
      }
      this.closePart(r, "completed");
      return;
    }
    const chunk = toneChunk(r.format.type ?? "audio/pcm");
    const chunkMs = CHUNK_MS;
    const total = audioMsForText(text) / chunkMs;
    let sentWords = 0;
    for (let k = 0; k < total; k++) {
      await this.pace(r, k);
      if (r.status !== "in_progress" || this.closed) return;
      while (sentWords < words.length && sentWords * total <= k * words.length) {
        const word = words[sentWords++]!;
        open.text += word;
        this.send({ type: "response.output_audio_transcript.delta", ...ids, delta: word });
      }
      this.audioProduced = true;
      r.record.audioMs += chunkMs;
      this.itemAudioMs.set(ids.item_id, (this.itemAudioMs.get(ids.item_id) ?? 0) + chunkMs);
      this.send({ type: "response.output_audio.delta", ...ids, delta: chunk.base64 });
    }
    while (sentWords < words.length) {
      const word = words[sentWords++]!;
      open.text += word;
      this.send({ type: "response.output_audio_transcript.delta", ...ids, delta: word });
    }
    this.closePart(r, "completed");
  }

  /** Waits until chunk k is due: k × 20 ms of audio after the first chunk, divided by the speed. */
  private pace(r: ResponseRun, k: number): Promise<void> {
    if (!Number.isFinite(r.speed)) return k % 50 === 49 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve();
    const now = performance.now();
    r.clockStart ??= now;
    const wait = r.clockStart + (k * CHUNK_MS) / r.speed - now;
    if (wait <= 0.5) return Promise.resolve();
    return new Promise((resolve) => {
      r.wake = () => {
        r.wake = null;
        if (r.timer) clearTimeout(r.timer);
        r.timer = null;
        resolve();
      };
      r.timer = setTimeout(() => r.wake?.(), wait);
    });
  }

  private closePart(r: ResponseRun, itemStatus: "completed" | "incomplete"): void {
    const open = r.open;
    if (!open) return;
    r.open = null;
    const ids = { response_id: r.id, item_id: open.item.id as string, output_index: open.outputIndex, content_index: 0 };
    if (open.kind === "audio") {
      this.send({ type: "response.output_audio.done", ...ids });
      this.send({ type: "response.output_audio_transcript.done", ...ids, transcript: open.text });
      this.send({ type: "response.content_part.done", ...ids, part: { type: "audio", transcript: open.text } });
      open.item.content = [{ type: "output_audio", transcript: open.text }];
    } else {
      this.send({ type: "response.output_text.done", ...ids, text: open.text });
      this.send({ type: "response.content_part.done", ...ids, part: { type: "text", text: open.text } });
      open.item.content = [{ type: "output_text", text: open.text }];
    }
    open.item.status = itemStatus;
    r.record.transcript += open.text;
    this.send({ type: "response.output_item.done", response_id: r.id, output_index: open.outputIndex, item: clone(open.item) as any });
    if (r.conversation === "auto")
      this.send({ type: "conversation.item.done", item: clone(open.item) as any, previous_item_id: open.previousItemId });
  }

  private functionCall(r: ResponseRun, outputIndex: number, name: string, args: object): void {
    const callId = newId("call", 16);
    const item: Obj = {
      id: newId("item"),
      object: "realtime.item",
      type: "function_call",
      status: "in_progress",
      name,
      call_id: callId,
      arguments: "",
    };
    r.output.push(item);
    this.send({ type: "response.output_item.added", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    const previousItemId = this.lastItemId();
    if (r.conversation === "auto") {
      this.record.conversation.push(item);
      this.send({ type: "conversation.item.added", item: clone(item) as any, previous_item_id: previousItemId });
    }
    const json = JSON.stringify(args);
    const ids = { response_id: r.id, item_id: item.id as string, output_index: outputIndex, call_id: callId };
    for (let i = 0; i < json.length; i += 16)
      this.send({ type: "response.function_call_arguments.delta", ...ids, delta: json.slice(i, i + 16) });
    this.send({ type: "response.function_call_arguments.done", ...ids, name, arguments: json });
    item.arguments = json;
    item.status = "completed";
    this.record.toolCalls.push({ call_id: callId, name, arguments: json, response_id: r.id, item_id: item.id });
    this.send({ type: "response.output_item.done", response_id: r.id, output_index: outputIndex, item: clone(item) as any });
    if (r.conversation === "auto")
      this.send({ type: "conversation.item.done", item: clone(item) as any, previous_item_id: previousItemId });
  }

  private clientCancel(event: Obj): void {
    const id = event.response_id === undefined ? null : str(event.response_id, "response_id");
    const target = id === null ? this.active : [...this.running].find((r) => r.id === id && r !== this.echo);
    if (!target)
      throw new RealtimeRequestError(
        "response_cancel_not_active",
        "Cancellation failed: no active response found",
        id === null ? null : "response_id",
      );
    this.finish(target, "cancelled", "client_cancelled");
  }

  /** Ends a response: closes its open part, sends response.done. */
  private finish(r: ResponseRun, status: "completed" | "cancelled" | "failed", reason?: string): void {
    if (r.status !== "in_progress") return;
    this.closePart(r, status === "completed" ? "completed" : "incomplete");
    r.status = status;
    r.record.status = status;
    r.record.reason = reason ?? null;
    r.statusDetails =
      status === "completed"
        ? null
        : status === "cancelled"
          ? { type: "cancelled", reason }
          : { type: "failed", error: { type: "invalid_request_error", code: reason ?? null } };
    r.wake?.();
    this.running.delete(r);
    if (this.active === r) this.active = null;
    this.send({ type: "response.done", response: this.responseObject(r) });
  }

  private responseObject(r: ResponseRun): Obj {
    const done = r.status !== "in_progress";
    const session = this.record.session;
    const inputText = Math.ceil(
      (String(r.record.instructions).length + JSON.stringify(r.record.params?.tools ?? session.tools).length) / 4 +
        10 * this.record.conversation.length,
    );
    const inputAudio = Math.ceil(this.userAudioMs / 100);
    const outputAudio = Math.ceil(r.record.audioMs / 50);
    const outputText = Math.ceil(
      r.output.reduce((n, i) => n + String(i.content?.[0]?.transcript ?? i.content?.[0]?.text ?? i.arguments ?? "").length, 0) / 4,
    );
    return {
      object: "realtime.response",
      id: r.id,
      status: r.status,
      status_details: r.statusDetails,
      output: done ? clone(r.output) : [],
      conversation_id: r.conversation === "none" ? null : this.conversationId,
      output_modalities: [r.modality],
      max_output_tokens: r.maxOutputTokens,
      audio: { output: { format: clone(r.format), voice: clone(r.voice) } },
      usage: done
        ? {
            total_tokens: inputText + inputAudio + outputAudio + outputText,
            input_tokens: inputText + inputAudio,
            output_tokens: outputAudio + outputText,
            input_token_details: {
              text_tokens: inputText,
              audio_tokens: inputAudio,
              image_tokens: 0,
              cached_tokens: 0,
              cached_tokens_details: { text_tokens: 0, audio_tokens: 0, image_tokens: 0 },
            },
            output_token_details: { text_tokens: outputText, audio_tokens: outputAudio },
          }
        : null,
      metadata: r.metadata,
    };
  }

  disconnect(code: number, reason: string): void {
    this.ws.close(code, reason);
  }

  release(): void {
    for (const r of [...this.held]) r.wake?.();
  }

  onClose(code: number): void {
    this.closed = true;
    this.record.closed = true;
    this.record.closeCode = code;
    for (const r of this.running) {
      r.status = "cancelled";
      r.record.status = "cancelled";
      r.record.reason = "connection_closed";
      r.wake?.();
    }
    this.running.clear();
    this.active = null;
    this.echo = null;
  }
}

// ---------------------------------------------------------------------------------------------
// The server

function rejectUpgrade(
  socket: Duplex,
  status: number,
  error: { message: string; type?: string; param?: string | null; code: string | null },
) {
  const body = JSON.stringify(
    { error: { message: error.message, type: error.type ?? "invalid_request_error", param: error.param ?? null, code: error.code } },
    null,
    4,
  );
  socket.end(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${newId("req").slice(4)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export async function startFakeRealtime(options: FakeRealtimeOptions = {}): Promise<FakeRealtime> {
  const apiKey = options.apiKey ?? "sk-test-fake";
  const shared: Shared = {
    audioSpeed: options.audioSpeed ?? 1,
    responseDelayMs: 0,
    echoMode: false,
    defaultScript: [],
    emitter: new EventEmitter(),
  };
  shared.emitter.setMaxListeners(0);
  const sessions: RealtimeSessionRecord[] = [];
  const connections: Connection[] = [];
  const pendingScripts = new Map<number, ScriptStep[]>();
  const rejections: FakeRealtime["rejections"] = [];
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 });

  const rest = createFakeOpenAiRest({ apiKey, realtimeVoices: VOICES, audioMsForText });
  const server = http.createServer((req, res) => {
    if (rest.handle(req, res)) return;
    const body = JSON.stringify({
      error: { message: `Invalid URL (${req.method} ${req.url?.split("?")[0]})`, type: "invalid_request_error", param: null, code: null },
    });
    res.writeHead(404, { "content-type": "application/json" }).end(body);
  });

  server.on("upgrade", (req, socket: Duplex, head: Buffer) => {
    socket.on("error", () => {});
    const url = new URL(req.url ?? "/", "http://fake");
    const refuse = (status: number, error: Parameters<typeof rejectUpgrade>[2]) => {
      rejections.push({ path: req.url ?? "", status, code: error.code, headers: req.headers });
      rejectUpgrade(socket, status, error);
    };
    if (!/\/realtime\/?$/.test(url.pathname)) return refuse(404, { message: `Invalid URL (GET ${url.pathname})`, code: null });
    const protocols = String(req.headers["sec-websocket-protocol"] ?? "")
      .split(",")
      .map((p) => p.trim());
    const auth = String(req.headers.authorization ?? "");
    const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim() ?? protocols.find((p) => p.startsWith("openai-insecure-api-key."))?.slice(24);
    if (!bearer)
      return refuse(401, {
        message:
          "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
        code: null,
      });
    if (bearer !== apiKey)
      return refuse(401, {
        message: `Incorrect API key provided: ${maskKey(bearer)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        code: "invalid_api_key",
      });
    const model = url.searchParams.get("model");
    if (!model) return refuse(400, { message: "Missing required parameter: 'model'.", param: "model", code: "missing_required_parameter" });
    if (!/realtime|^gpt-audio/.test(model))
      return refuse(404, { message: `The model \`${model}\` does not exist or you do not have access to it.`, code: "model_not_found" });
    if (/realtime=v1/i.test(String(req.headers["openai-beta"] ?? "")))
      return refuse(400, {
        message: "This fake speaks the GA Realtime interface only: do not send the 'OpenAI-Beta: realtime=v1' header.",
        code: "beta_interface_not_supported",
      });

    wss.handleUpgrade(req, socket, head, (ws) => {
      const index = sessions.length;
      const id = newId("sess");
      const record: RealtimeSessionRecord = {
        index,
        id,
        model,
        path: req.url ?? "",
        headers: req.headers,
        session: defaultSession(id, model),
        clientEvents: [],
        audioIn: { appends: 0, bytes: 0, ms: 0 },
        serverEvents: [],
        errors: [],
        conversation: [],
        responses: [],
        toolCalls: [],
        functionOutputs: [],
        truncations: [],
        problems: [],
        script: clone(pendingScripts.get(index) ?? shared.defaultScript),
        closed: false,
        closeCode: null,
      };
      pendingScripts.delete(index);
      const connection = new Connection(shared, ws, record);
      sessions.push(record);
      connections.push(connection);
      ws.on("message", (data, isBinary) => connection.onMessage(data, isBinary));
      ws.on("close", (code) => {
        connection.onClose(code);
        shared.emitter.emit("closed", index);
      });
      ws.on("error", () => {});
      connection.send({ type: "session.created", session: clone(record.session) as any });
      shared.emitter.emit("session", index);
    });
  });

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;

  function waitFor<T>(event: string, check: () => T | undefined, timeoutMs: number, describeTimeout: () => string): Promise<T> {
    return new Promise((resolve, reject) => {
      let done = false;
      const attempt = () => {
        if (done) return;
        let found: T | undefined;
        try {
          found = check();
        } catch (error) {
          cleanup();
          reject(error);
          return;
        }
        if (found !== undefined) {
          cleanup();
          resolve(found);
        }
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(describeTimeout()));
      }, timeoutMs);
      const cleanup = () => {
        done = true;
        clearTimeout(timer);
        shared.emitter.off(event, attempt);
      };
      shared.emitter.on(event, attempt);
      attempt();
    });
  }

  const typesOf = (events: Obj[]) => [...new Set(events.map((e) => e.type))].join(", ") || "none";

  const fake: FakeRealtime = {
    url: `http://127.0.0.1:${port}/v1`,
    apiKey,
    sessions,
    rejections,
    script(steps, sessionIndex) {
      if (sessionIndex === undefined) {
        shared.defaultScript.push(...clone(steps));
        for (const c of connections) if (!c.closed) c.record.script.push(...clone(steps));
        return;
      }
      const record = sessions[sessionIndex];
      if (record) record.script.push(...clone(steps));
      else pendingScripts.set(sessionIndex, [...(pendingScripts.get(sessionIndex) ?? []), ...clone(steps)]);
    },
    clearScript(sessionIndex) {
      if (sessionIndex === undefined) {
        shared.defaultScript.length = 0;
        pendingScripts.clear();
        for (const s of sessions) s.script.length = 0;
      } else {
        pendingScripts.delete(sessionIndex);
        if (sessions[sessionIndex]) sessions[sessionIndex].script.length = 0;
      }
    },
    waitForSession(index, timeoutMs = 5000) {
      return waitFor(
        "session",
        () => sessions[index],
        timeoutMs,
        () => `fake Realtime: no session #${index} within ${timeoutMs} ms (${sessions.length} so far)`,
      );
    },
    waitForEvent(sessionIndex, type, predicate, timeoutMs = 5000) {
      return waitFor(
        "client",
        () => {
          const record = sessions[sessionIndex];
          if (!record) return undefined;
          if (type === "input_audio_buffer.append") {
            const last = connections[sessionIndex]?.lastAppend;
            return last && (!predicate || predicate(last)) ? last : undefined;
          }
          return record.clientEvents.find((e) => e.type === type && (!predicate || predicate(e)));
        },
        timeoutMs,
        () =>
          `fake Realtime: no client event '${type}'${predicate ? " matching the predicate" : ""} on session #${sessionIndex} within ${timeoutMs} ms; received: ${typesOf(sessions[sessionIndex]?.clientEvents ?? [])}`,
      );
    },
    waitForServerEvent(sessionIndex, type, predicate, timeoutMs = 5000) {
      return waitFor(
        "server",
        () => sessions[sessionIndex]?.serverEvents.find((e) => e.type === type && (!predicate || predicate(e))),
        timeoutMs,
        () =>
          `fake Realtime: no server event '${type}'${predicate ? " matching the predicate" : ""} on session #${sessionIndex} within ${timeoutMs} ms; sent: ${typesOf(sessions[sessionIndex]?.serverEvents ?? [])}`,
      );
    },
    setEchoMode(enabled) {
      shared.echoMode = enabled;
      if (!enabled) for (const c of connections) c.endEcho();
    },
    setAudioSpeed(factor) {
      if (!(factor > 0)) throw new Error("audioSpeed must be > 0");
      shared.audioSpeed = factor;
    },
    setResponseDelay(ms) {
      if (!(ms >= 0)) throw new Error("the response delay must be >= 0");
      shared.responseDelayMs = ms;
    },
    release(sessionIndex) {
      const c = connections[sessionIndex];
      if (!c) throw new Error(`fake Realtime: no session #${sessionIndex}`);
      c.release();
    },
    sendServerEvent(sessionIndex, event) {
      const c = connections[sessionIndex];
      if (!c) throw new Error(`fake Realtime: no session #${sessionIndex}`);
      c.sendRaw(event);
    },
    disconnect(sessionIndex, code = 1011, reason = "") {
      const c = connections[sessionIndex];
      if (!c) throw new Error(`fake Realtime: no session #${sessionIndex}`);
      c.disconnect(code, reason);
    },
    chatRequests: rest.chatRequests,
    transcriptionRequests: rest.transcriptionRequests,
    speechRequests: rest.speechRequests,
    restProblems: rest.restProblems,
    scriptChat: (steps) => rest.scriptChat(steps),
    scriptTranscripts: (texts) => rest.scriptTranscripts(texts),
    clearRestScripts: () => rest.clearRestScripts(),
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  if (options.audioSpeed !== undefined) fake.setAudioSpeed(options.audioSpeed);
  return fake;
}
