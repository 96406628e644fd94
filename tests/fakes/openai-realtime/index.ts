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
 *   fake.stall(sessionIndex)             the session hangs with its socket open: from now on it sends
 *                                        nothing (no audio, no VAD events, no errors) and answers nothing
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
 *   stallAfter: true on a say step                    once that response is done, the session stalls
 *                                                     (fake.stall): a model that greets, then goes quiet
 *                                                     with its socket open
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
 *       audioMsForText(input) / speed. Voices: the realtime voices (constants.ts) plus fable, onyx, nova, or
 *       {id:"voice_…"}. Other response formats and stream_format "sse" → 400 fake_not_modelled.
 *     fake.speechRequests: {headers, body, status, bytes, error}.
 *   fake.clearRestScripts() empties both REST scripts. Any other HTTP request → 404 "Invalid URL".
 *
 * Not modelled: WebRTC/SIP, DTMF, MCP tools, transcription sessions, idle timeouts, conversation
 * context effects on the scripted replies, session expiry. Error codes for the rarer errors
 * (conversation.item.* on unknown ids, function_call_output with an unknown call_id) are close to,
 * not guaranteed identical with, the real ones.
 */
import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { WebSocketServer } from "ws";
import { createFakeOpenAiRest, maskKey } from "../openai-rest";
import { audioMsForText } from "./audio";
import { Connection } from "./connection";
import { VOICES } from "./constants";
import { defaultSession } from "./session";
import type { Shared } from "./state";
import type { FakeRealtime, FakeRealtimeOptions, Obj, RealtimeSessionRecord, ScriptStep } from "./types";
import { clone, newId } from "./validation";

export type { FakeRealtime, FakeRealtimeOptions, FakeResponseRecord, RealtimeSessionRecord, ScriptStep } from "./types";
export { DEFAULT_CALLER_TRANSCRIPT, DEFAULT_INSTRUCTIONS, DEFAULT_REPLY } from "./constants";
export { audioMsForText, linearToMulaw, mulawSilence, mulawSpeech, mulawToLinear } from "./audio";

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
    stall(sessionIndex) {
      const c = connections[sessionIndex];
      if (!c) throw new Error(`fake Realtime: no session #${sessionIndex}`);
      c.stall();
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
