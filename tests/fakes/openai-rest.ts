/**
 * The REST part of the fake OpenAI server (see the header of openai-realtime/index.ts, which serves these
 * paths from the same node:http server): Chat Completions with function tools, audio
 * transcriptions, text to speech, and model lookups. Shapes follow node_modules/openai's types and
 * the API reference; validation refuses what the real API refuses, with its HTTP statuses and its
 * error body {error:{message, type, param, code}}.
 */
import { randomBytes } from "node:crypto";
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from "node:http";

type Obj = Record<string, any>;

export type ChatScriptStep =
  | { say: string }
  | { tool: string; arguments: object; say?: string }
  | { tools: { name: string; arguments: object }[]; say?: string }
  | { fail: number; message?: string; type?: string; code?: string | null };

export interface ChatRequestRecord {
  headers: IncomingHttpHeaders;
  /** The parsed JSON body (null when it did not parse). */
  body: Obj | null;
  status: number;
  /** The JSON answered (a chat.completion or an error). */
  response: Obj;
}

export interface TranscriptionRequestRecord {
  headers: IncomingHttpHeaders;
  /** The form's text fields (model, language, …). */
  fields: Record<string, string>;
  file: { name: string; type: string; bytes: number } | null;
  status: number;
  response: Obj | string;
}

export interface SpeechRequestRecord {
  headers: IncomingHttpHeaders;
  body: Obj | null;
  status: number;
  /** Audio bytes answered (0 for an error). */
  bytes: number;
  error: Obj | null;
}

export const DEFAULT_CHAT_REPLY = "Okay.";
export const DEFAULT_TRANSCRIPT = "(unscripted speech)";

/** Voices of the speech endpoint: the realtime ones and three older text-to-speech-only voices. */
const TTS_ONLY_VOICES = ["fable", "onyx", "nova"];
const CHAT_MODEL =
  /^(gpt-3\.5-turbo|gpt-4|gpt-4-turbo|gpt-4o|gpt-4o-mini|gpt-4\.1|gpt-4\.1-mini|gpt-4\.1-nano|gpt-5(\.\d)?|gpt-5(\.\d)?-(mini|nano|chat-latest)|o[134]|o[134]-mini|chatgpt-4o-latest)(-\d{4}-\d{2}-\d{2})?$/;
const TRANSCRIBE_MODEL = /^(whisper-1|gpt-4o-transcribe|gpt-4o-mini-transcribe(-\d{4}-\d{2}-\d{2})?|gpt-4o-transcribe-diarize)$/;
const TTS_MODEL = /^(tts-1|tts-1-hd|gpt-4o-mini-tts(-\d{4}-\d{2}-\d{2})?)$/;
const REALTIME_MODEL = /^(gpt-realtime(-mini)?|gpt-4o(-mini)?-realtime-preview|gpt-audio(-mini)?)(-\d{4}-\d{2}-\d{2})?$/;

const CHAT_KEYS = [
  "messages",
  "model",
  "audio",
  "frequency_penalty",
  "function_call",
  "functions",
  "logit_bias",
  "logprobs",
  "max_completion_tokens",
  "max_tokens",
  "metadata",
  "modalities",
  "moderation",
  "n",
  "parallel_tool_calls",
  "prediction",
  "presence_penalty",
  "prompt_cache_key",
  "prompt_cache_options",
  "prompt_cache_retention",
  "reasoning_effort",
  "response_format",
  "safety_identifier",
  "seed",
  "service_tier",
  "stop",
  "store",
  "stream",
  "stream_options",
  "temperature",
  "tool_choice",
  "tools",
  "top_logprobs",
  "top_p",
  "user",
  "verbosity",
  "web_search_options",
];
const MESSAGE_KEYS: Record<string, string[]> = {
  system: ["role", "content", "name"],
  developer: ["role", "content", "name"],
  user: ["role", "content", "name"],
  assistant: ["role", "content", "name", "refusal", "tool_calls", "audio", "function_call"],
  tool: ["role", "content", "tool_call_id"],
};
const ROLES = ["system", "assistant", "user", "function", "tool", "developer"];
const TRANSCRIPTION_FIELDS = [
  "file",
  "model",
  "chunking_strategy",
  "include[]",
  "known_speaker_names[]",
  "known_speaker_references[]",
  "language",
  "prompt",
  "response_format",
  "stream",
  "temperature",
  "timestamp_granularities[]",
];
const AUDIO_EXTENSIONS = ["flac", "m4a", "mp3", "mp4", "mpeg", "mpga", "oga", "ogg", "wav", "webm"];
const SPEECH_KEYS = ["model", "input", "voice", "instructions", "response_format", "speed", "stream_format"];
const SPEECH_FORMATS = ["mp3", "opus", "aac", "flac", "wav", "pcm"];

class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = status >= 500 ? "server_error" : "invalid_request_error",
  ) {
    super(message);
  }
  body() {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

export function maskKey(key: string): string {
  if (key.length <= 8) return "*".repeat(key.length);
  return `${key.slice(0, 3)}${"*".repeat(Math.min(key.length - 7, 40))}${key.slice(-4)}`;
}

function newId(prefix: string, length = 24): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  const bytes = randomBytes(length);
  let id = "";
  for (const byte of bytes) id += alphabet[byte % alphabet.length];
  return `${prefix}${id}`;
}

function describe(value: unknown): string {
  return typeof value === "string" ? `'${value}'` : JSON.stringify(value);
}

function invalidValue(param: string, value: unknown, allowed: readonly string[]) {
  const list = allowed.map((v) => `'${v}'`);
  const text = list.length > 1 ? `${list.slice(0, -1).join(", ")}, and ${list.at(-1)}` : list.join("");
  return new ApiError(400, `Invalid value: ${describe(value)}. Supported values are: ${text}.`, param, "invalid_value");
}

function invalidType(param: string, value: unknown, expected: string) {
  const got = value === null ? "null" : Array.isArray(value) ? "an array" : `a ${typeof value}`;
  return new ApiError(400, `Invalid type for '${param}': expected ${expected}, but got ${got} instead.`, param, "invalid_type");
}

function unrecognized(key: string) {
  return new ApiError(400, `Unrecognized request argument supplied: ${key}`);
}

function missingModel() {
  return new ApiError(400, "you must provide a model parameter");
}

function modelNotFound(model: string) {
  return new ApiError(404, `The model \`${model}\` does not exist or you do not have access to it.`, null, "model_not_found");
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function numberIn(v: unknown, param: string, min: number, max: number): number {
  if (typeof v !== "number" || !Number.isFinite(v)) throw invalidType(param, v, "a decimal");
  if (v < min)
    throw new ApiError(
      400,
      `Invalid '${param}': decimal below minimum value. Expected a value >= ${min}, but got ${v} instead.`,
      param,
      "decimal_below_min_value",
    );
  if (v > max)
    throw new ApiError(
      400,
      `Invalid '${param}': decimal above maximum value. Expected a value <= ${max}, but got ${v} instead.`,
      param,
      "decimal_above_max_value",
    );
  return v;
}

/** 1 token ≈ 4 characters: plausible usage numbers, not billing. */
function tokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

// ---------------------------------------------------------------------------------------------
// MP3: silent MPEG-2 Layer III frames, 24 kHz mono, 32 kbit/s (576 samples = 24 ms, 96 bytes each).
// Header FF F3 44 C4: sync, MPEG-2, layer III, no CRC; bitrate index 4 (32 kbit/s), 24 kHz, no
// padding; mono. The side information and main data are zero: a frame every decoder plays as silence.

export const MP3_FRAME_MS = 24;
const MP3_FRAME_BYTES = 96;
const MP3_FRAME_HEADER = [0xff, 0xf3, 0x44, 0xc4];

export function silentMp3(ms: number): Buffer {
  const frames = Math.max(1, Math.ceil(ms / MP3_FRAME_MS));
  const audio = Buffer.alloc(frames * MP3_FRAME_BYTES);
  for (let i = 0; i < frames; i++) audio.set(MP3_FRAME_HEADER, i * MP3_FRAME_BYTES);
  return audio;
}

/** Whether the bytes look like audio in the format the file name says (magic numbers). */
function looksLikeAudio(bytes: Buffer, extension: string): boolean {
  const ascii = (start: number, text: string) => bytes.subarray(start, start + text.length).toString("latin1") === text;
  switch (extension) {
    case "webm":
      return bytes.length >= 4 && bytes.readUInt32BE(0) === 0x1a45dfa3;
    case "ogg":
    case "oga":
      return ascii(0, "OggS");
    case "wav":
      return ascii(0, "RIFF") && ascii(8, "WAVE");
    case "flac":
      return ascii(0, "fLaC");
    case "mp4":
    case "m4a":
      return ascii(4, "ftyp");
    default: // mp3, mpeg, mpga
      return ascii(0, "ID3") || (bytes.length >= 2 && bytes[0] === 0xff && (bytes[1]! & 0xe0) === 0xe0);
  }
}

// ---------------------------------------------------------------------------------------------

export interface FakeOpenAiRest {
  chatRequests: ChatRequestRecord[];
  transcriptionRequests: TranscriptionRequestRecord[];
  speechRequests: SpeechRequestRecord[];
  /** Things the fake could not do as scripted (e.g. a tool call to a tool the request lacks). */
  restProblems: string[];
  scriptChat(steps: ChatScriptStep[]): void;
  scriptTranscripts(texts: string[]): void;
  clearRestScripts(): void;
  /** Serves the request if it is one of the REST paths; false leaves it to the caller. */
  handle(req: IncomingMessage, res: ServerResponse): boolean;
}

export function createFakeOpenAiRest(options: {
  apiKey: string;
  /** The realtime voices; the speech endpoint accepts these and fable, onyx and nova. */
  realtimeVoices: readonly string[];
  /** Duration of spoken text, as the realtime part paces it. */
  audioMsForText(text: string): number;
}): FakeOpenAiRest {
  const voices = [...options.realtimeVoices, ...TTS_ONLY_VOICES];
  const chatScript: ChatScriptStep[] = [];
  const transcriptScript: string[] = [];

  const rest: FakeOpenAiRest = {
    chatRequests: [],
    transcriptionRequests: [],
    speechRequests: [],
    restProblems: [],
    scriptChat(steps) {
      chatScript.push(...structuredClone(steps));
    },
    scriptTranscripts(texts) {
      transcriptScript.push(...texts);
    },
    clearRestScripts() {
      chatScript.length = 0;
      transcriptScript.length = 0;
    },
    handle(req, res) {
      const path = new URL(req.url ?? "/", "http://fake").pathname.replace(/\/+$/, "");
      const route =
        req.method === "POST" && /\/chat\/completions$/.test(path)
          ? chat
          : req.method === "POST" && /\/audio\/transcriptions$/.test(path)
            ? transcription
            : req.method === "POST" && /\/audio\/speech$/.test(path)
              ? speech
              : req.method === "GET" && /\/models(\/[^/]+)?$/.test(path)
                ? models
                : null;
      if (!route) return false;
      readBody(req)
        .then((body) => route(req, res, body, path))
        .catch((error) => {
          if (!res.headersSent) sendError(res, error instanceof ApiError ? error : new ApiError(500, String(error)));
        });
      return true;
    },
  };

  function authorize(req: IncomingMessage) {
    const bearer = /^Bearer\s+(.+)$/i.exec(String(req.headers.authorization ?? ""))?.[1]?.trim();
    if (!bearer)
      throw new ApiError(
        401,
        "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY), or as the password field (with blank username) if you're accessing the API from your browser and are prompted for a username. You can obtain an API key from https://platform.openai.com/account/api-keys.",
      );
    if (bearer !== options.apiKey)
      throw new ApiError(
        401,
        `Incorrect API key provided: ${maskKey(bearer)}. You can find your API key at https://platform.openai.com/account/api-keys.`,
        null,
        "invalid_api_key",
      );
  }

  function parseJson(req: IncomingMessage, body: Buffer): Obj {
    if (!/application\/json/i.test(String(req.headers["content-type"] ?? "")))
      throw new ApiError(400, "Invalid Content-Type header, expected application/json.");
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString("utf8"));
    } catch (error) {
      throw new ApiError(400, `We could not parse the JSON body of your request. (${(error as Error).message})`);
    }
    if (!isObj(parsed)) throw new ApiError(400, "We could not parse the JSON body of your request: expected an object.");
    return parsed;
  }

  // ----- GET /v1/models/{id}, GET /v1/models

  function models(req: IncomingMessage, res: ServerResponse, _body: Buffer, path: string) {
    try {
      authorize(req);
      const id = decodeURIComponent(/\/models\/([^/]+)$/.exec(path)?.[1] ?? "");
      const known = (model: string) => [CHAT_MODEL, TRANSCRIBE_MODEL, TTS_MODEL, REALTIME_MODEL].some((re) => re.test(model));
      const model = (name: string) => ({ id: name, object: "model", created: 1_700_000_000, owned_by: "system" });
      if (!id) {
        const names = ["gpt-4.1-mini", "gpt-4o-mini", "gpt-4o-mini-transcribe", "whisper-1", "gpt-4o-mini-tts", "tts-1", "gpt-realtime"];
        return sendJson(res, 200, { object: "list", data: names.map(model) });
      }
      if (!known(id)) throw modelNotFound(id);
      sendJson(res, 200, model(id));
    } catch (error) {
      sendError(res, asApiError(error));
    }
  }

  // ----- POST /v1/chat/completions

  function chat(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const record: ChatRequestRecord = { headers: req.headers, body: null, status: 0, response: {} };
    rest.chatRequests.push(record);
    const answer = (status: number, response: Obj) => {
      record.status = status;
      record.response = response;
      sendJson(res, status, response);
    };
    try {
      authorize(req);
      const body = parseJson(req, raw);
      record.body = body;
      validateChat(body);
      const step = chatScript[0];
      if (step && "fail" in step) {
        chatScript.shift();
        const error = new ApiError(step.fail, step.message ?? scriptedFailureMessage(step.fail), null, step.code ?? null, step.type);
        return answer(error.status, error.body());
      }
      const toolNames = (body.tools ?? []).filter((t: Obj) => t.type === "function").map((t: Obj) => t.function.name as string);
      const choice = body.tool_choice ?? (toolNames.length > 0 ? "auto" : "none");
      const calls = step && "tool" in step ? [{ name: step.tool, arguments: step.arguments }] : step && "tools" in step ? step.tools : [];
      if (calls.length > 0) {
        const forced = isObj(choice) ? choice.function?.name : null;
        const bad = calls.find((c) => choice === "none" || !toolNames.includes(c.name) || (forced && c.name !== forced));
        if (bad) {
          const why =
            choice === "none"
              ? 'tool_choice is "none"'
              : forced && bad.name !== forced
                ? `tool_choice forces '${forced}'`
                : "the request has no function tool of that name";
          const problem = `chat request #${rest.chatRequests.length - 1}: the script calls tool '${bad.name}', but ${why} (tools: ${toolNames.join(", ") || "none"})`;
          rest.restProblems.push(problem);
          throw new ApiError(400, `fake OpenAI: ${problem}`, null, "fake_script_mismatch");
        }
      } else if (choice === "required" || isObj(choice)) {
        const problem = `chat request #${rest.chatRequests.length - 1}: tool_choice requires a tool call, but the next script step ${step ? "says text" : "is missing"}`;
        rest.restProblems.push(problem);
        throw new ApiError(400, `fake OpenAI: ${problem}`, null, "fake_script_mismatch");
      }
      if (step) chatScript.shift();
      const text = step && "say" in step ? (step.say ?? null) : calls.length > 0 ? null : DEFAULT_CHAT_REPLY;
      const toolCalls = calls.map((c) => ({
        id: newId("call_"),
        type: "function",
        function: { name: c.name, arguments: JSON.stringify(c.arguments) },
      }));
      const prompt = JSON.stringify(body.messages) + JSON.stringify(body.tools ?? []);
      const completion = tokens(text ?? "") + tokens(toolCalls.map((c) => c.function.arguments).join(""));
      answer(200, {
        id: newId("chatcmpl-", 29),
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: body.model,
        choices: [
          {
            index: 0,
            message: {
              role: "assistant",
              content: text,
              refusal: null,
              annotations: [],
              ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
            },
            logprobs: null,
            finish_reason: toolCalls.length > 0 ? "tool_calls" : "stop",
          },
        ],
        usage: {
          prompt_tokens: tokens(prompt),
          completion_tokens: completion,
          total_tokens: tokens(prompt) + completion,
          prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
          completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
        },
        service_tier: "default",
        system_fingerprint: "fp_fake0000",
      });
    } catch (error) {
      const apiError = asApiError(error);
      answer(apiError.status, apiError.body());
    }
  }

  function validateChat(body: Obj) {
    for (const key of Object.keys(body)) if (!CHAT_KEYS.includes(key)) throw unrecognized(key);
    if (body.model === undefined || body.model === null || body.model === "") throw missingModel();
    if (typeof body.model !== "string") throw invalidType("model", body.model, "a string");
    if (!CHAT_MODEL.test(body.model)) {
      if ([TRANSCRIBE_MODEL, TTS_MODEL, REALTIME_MODEL].some((re) => re.test(body.model)))
        throw new ApiError(
          404,
          "This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?",
        );
      throw modelNotFound(body.model);
    }
    if (body.stream)
      throw new ApiError(
        400,
        "fake OpenAI: streaming chat completions are not modelled; send stream: false.",
        "stream",
        "fake_not_modelled",
      );
    if (body.n !== undefined && body.n !== null && body.n !== 1)
      throw new ApiError(400, "fake OpenAI: only n = 1 is modelled.", "n", "fake_not_modelled");
    if (body.temperature !== undefined && body.temperature !== null) numberIn(body.temperature, "temperature", 0, 2);
    if (body.tools !== undefined) validateTools(body.tools);
    if (body.tool_choice !== undefined) {
      if (!body.tools || body.tools.length === 0)
        throw new ApiError(
          400,
          "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
          "tool_choice",
        );
      const c = body.tool_choice;
      if (typeof c === "string") {
        if (!["none", "auto", "required"].includes(c)) throw invalidValue("tool_choice", c, ["none", "auto", "required"]);
      } else if (!isObj(c) || c.type !== "function" || !isObj(c.function) || typeof c.function.name !== "string")
        throw new ApiError(
          400,
          "Invalid 'tool_choice': expected 'none', 'auto', 'required' or {type: 'function', function: {name}}.",
          "tool_choice",
          "invalid_value",
        );
      else if (!body.tools.some((t: Obj) => t.type === "function" && t.function.name === c.function.name))
        throw new ApiError(
          400,
          `Invalid value for 'tool_choice': no function named '${c.function.name}' was specified in the 'tools' parameter.`,
          "tool_choice",
        );
    }
    validateMessages(body.messages);
  }

  function validateTools(tools: unknown) {
    if (!Array.isArray(tools)) throw invalidType("tools", tools, "an array");
    tools.forEach((tool, i) => {
      const p = `tools[${i}]`;
      if (!isObj(tool)) throw invalidType(p, tool, "an object");
      if (tool.type !== "function" && tool.type !== "custom") throw invalidValue(`${p}.type`, tool.type, ["function", "custom"]);
      if (tool.type === "custom") return;
      for (const key of Object.keys(tool)) if (key !== "type" && key !== "function") throw unrecognized(`${p}.${key}`);
      const fn = tool.function;
      if (!isObj(fn))
        throw new ApiError(400, `Missing required parameter: '${p}.function'.`, `${p}.function`, "missing_required_parameter");
      for (const key of Object.keys(fn))
        if (!["name", "description", "parameters", "strict"].includes(key)) throw unrecognized(`${p}.function.${key}`);
      if (typeof fn.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(fn.name))
        throw new ApiError(
          400,
          `Invalid '${p}.function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `${p}.function.name`,
          "invalid_value",
        );
      if (fn.description !== undefined && typeof fn.description !== "string")
        throw invalidType(`${p}.function.description`, fn.description, "a string");
      if (fn.parameters !== undefined) {
        if (!isObj(fn.parameters)) throw invalidType(`${p}.function.parameters`, fn.parameters, "an object");
        if (fn.parameters.type !== undefined && fn.parameters.type !== "object")
          throw new ApiError(
            400,
            `Invalid schema for function '${fn.name}': schema must be a JSON Schema of 'type: "object"', got 'type: "${fn.parameters.type}"'.`,
            `${p}.function.parameters`,
            "invalid_function_parameters",
          );
      }
      if (tools.slice(0, i).some((t) => isObj(t) && t.type === "function" && t.function?.name === fn.name))
        throw new ApiError(400, `Invalid 'tools': duplicate function name '${fn.name}'.`, "tools");
    });
  }

  function validateMessages(messages: unknown) {
    if (messages === undefined)
      throw new ApiError(400, "Missing required parameter: 'messages'.", "messages", "missing_required_parameter");
    if (!Array.isArray(messages)) throw invalidType("messages", messages, "an array");
    if (messages.length === 0)
      throw new ApiError(
        400,
        "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
        "messages",
        "empty_array",
      );
    /** tool_call ids of the last assistant message still waiting for their tool messages. */
    let pending: string[] | null = null;
    let pendingAt = -1;
    messages.forEach((message, i) => {
      const p = `messages[${i}]`;
      if (!isObj(message)) throw invalidType(p, message, "an object");
      if (!ROLES.includes(message.role)) throw invalidValue(`${p}.role`, message.role, ROLES);
      if (message.role === "function")
        throw new ApiError(
          400,
          "fake OpenAI: the deprecated 'function' role is not modelled; use tools.",
          `${p}.role`,
          "fake_not_modelled",
        );
      for (const key of Object.keys(message))
        if (!MESSAGE_KEYS[message.role]!.includes(key))
          throw new ApiError(400, `Additional properties are not allowed ('${key}' was unexpected) - 'messages.${i}'`);
      if (pending && message.role !== "tool") {
        throw new ApiError(
          400,
          `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(", ")}`,
          `messages.[${pendingAt}].role`,
        );
      }
      validateContent(message, p);
      if (message.role === "tool") {
        if (typeof message.tool_call_id !== "string")
          throw new ApiError(400, `Missing required parameter: '${p}.tool_call_id'.`, `${p}.tool_call_id`, "missing_required_parameter");
        if (!pending)
          throw new ApiError(
            400,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            `messages.[${i}].role`,
          );
        if (!pending.includes(message.tool_call_id))
          throw new ApiError(
            400,
            `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
            `messages.[${i}].tool_call_id`,
          );
        pending = pending.filter((id) => id !== message.tool_call_id);
        if (pending.length === 0) pending = null;
      }
      if (message.role === "assistant" && message.tool_calls !== undefined && message.tool_calls !== null) {
        if (!Array.isArray(message.tool_calls)) throw invalidType(`${p}.tool_calls`, message.tool_calls, "an array");
        if (message.tool_calls.length === 0)
          throw new ApiError(
            400,
            `Invalid '${p}.tool_calls': empty array. Expected an array with minimum length 1, but got an empty array instead.`,
            `${p}.tool_calls`,
            "empty_array",
          );
        message.tool_calls.forEach((call: unknown, j: number) => {
          const q = `${p}.tool_calls[${j}]`;
          if (!isObj(call) || typeof call.id !== "string")
            throw new ApiError(400, `Missing required parameter: '${q}.id'.`, `${q}.id`, "missing_required_parameter");
          if (call.type !== "function" && call.type !== "custom") throw invalidValue(`${q}.type`, call.type, ["function", "custom"]);
          if (
            call.type === "function" &&
            (!isObj(call.function) || typeof call.function.name !== "string" || typeof call.function.arguments !== "string")
          )
            throw new ApiError(
              400,
              `Invalid '${q}.function': expected {name: string, arguments: string}.`,
              `${q}.function`,
              "invalid_type",
            );
        });
        pending = message.tool_calls.map((call: Obj) => call.id as string);
        pendingAt = i;
      }
    });
    if (pending)
      throw new ApiError(
        400,
        `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${(pending as string[]).join(", ")}`,
        `messages.[${pendingAt}].role`,
      );
  }

  function validateContent(message: Obj, p: string) {
    const content = message.content;
    const optional = message.role === "assistant" && (message.tool_calls || message.refusal);
    if (content === undefined || content === null) {
      if (optional || message.role === "assistant") {
        if (!optional) throw new ApiError(400, `Invalid '${p}': an assistant message needs 'content' or 'tool_calls'.`, `${p}.content`);
        return;
      }
      throw new ApiError(400, `Missing required parameter: '${p}.content'.`, `${p}.content`, "missing_required_parameter");
    }
    if (typeof content === "string") return;
    if (!Array.isArray(content)) throw invalidType(`${p}.content`, content, "one of a string or array of objects");
    const partTypes =
      message.role === "user"
        ? ["text", "image_url", "input_audio", "file"]
        : message.role === "assistant"
          ? ["text", "refusal"]
          : ["text"];
    content.forEach((part: unknown, j: number) => {
      if (!isObj(part) || !partTypes.includes(part.type))
        throw invalidValue(`${p}.content[${j}].type`, isObj(part) ? part.type : part, partTypes);
      if (part.type === "text" && typeof part.text !== "string") throw invalidType(`${p}.content[${j}].text`, part.text, "a string");
    });
  }

  // ----- POST /v1/audio/transcriptions

  async function transcription(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const record: TranscriptionRequestRecord = { headers: req.headers, fields: {}, file: null, status: 0, response: {} };
    rest.transcriptionRequests.push(record);
    try {
      authorize(req);
      const contentType = String(req.headers["content-type"] ?? "");
      if (!/^multipart\/form-data/i.test(contentType))
        throw new ApiError(400, `Invalid Content-Type header (${contentType || "none"}), expected multipart/form-data.`);
      let form: FormData;
      try {
        form = await new Response(new Uint8Array(raw), { headers: { "content-type": contentType } }).formData();
      } catch (error) {
        throw new ApiError(400, `Could not parse multipart form: ${(error as Error).message}`);
      }
      let file: File | null = null;
      for (const [key, value] of form.entries()) {
        if (!TRANSCRIPTION_FIELDS.includes(key)) throw unrecognized(key);
        if (typeof value === "string") record.fields[key] = value;
        else if (key === "file") file = value;
        else throw invalidType(key, "file", "a string");
      }
      if (file) record.file = { name: file.name, type: file.type, bytes: file.size };
      const model = record.fields.model;
      if (!model) throw missingModel();
      if (!TRANSCRIBE_MODEL.test(model)) {
        if ([CHAT_MODEL, TTS_MODEL, REALTIME_MODEL].some((re) => re.test(model)))
          throw new ApiError(
            400,
            `The model '${model}' cannot transcribe audio. Supported models: whisper-1, gpt-4o-transcribe, gpt-4o-mini-transcribe.`,
            "model",
            "invalid_value",
          );
        throw modelNotFound(model);
      }
      if (!file) throw new ApiError(400, "1 validation error for Request\nbody -> file\n  field required (type=value_error.missing)");
      const extension = /\.([a-z0-9]+)$/i.exec(file.name)?.[1]?.toLowerCase() ?? "";
      if (!AUDIO_EXTENSIONS.includes(extension))
        throw new ApiError(400, `Invalid file format. Supported formats: ${JSON.stringify(AUDIO_EXTENSIONS)}`, "file", "invalid_value");
      const bytes = Buffer.from(await file.arrayBuffer());
      if (bytes.length === 0 || !looksLikeAudio(bytes, extension))
        throw new ApiError(400, "Audio file might be corrupted or unsupported", "file", "invalid_value");
      const language = record.fields.language;
      if (language !== undefined && !/^[a-z]{2,3}$/.test(language))
        throw new ApiError(
          400,
          `Invalid language '${language}'. Language parameter must be specified in ISO-639-1 format.`,
          "language",
          "invalid_language_format",
        );
      const format = record.fields.response_format ?? "json";
      const formats =
        model === "whisper-1"
          ? ["json", "text", "srt", "verbose_json", "vtt"]
          : model.includes("diarize")
            ? ["json", "text", "diarized_json"]
            : ["json", "text"];
      if (!formats.includes(format))
        throw new ApiError(
          400,
          `response_format '${format}' is not compatible with model '${model}'. Use one of: ${formats.join(", ")}.`,
          "response_format",
          "unsupported_value",
        );
      if (["srt", "vtt", "verbose_json", "diarized_json"].includes(format))
        throw new ApiError(400, `fake OpenAI: response_format '${format}' is not modelled.`, "response_format", "fake_not_modelled");
      const text = transcriptScript.shift() ?? DEFAULT_TRANSCRIPT;
      record.status = 200;
      if (format === "text") {
        record.response = `${text}\n`;
        res.writeHead(200, { "content-type": "text/plain; charset=utf-8", "x-request-id": newId("req_", 32) }).end(`${text}\n`);
        return;
      }
      const audioTokens = Math.max(1, Math.ceil(bytes.length / 400));
      const usage =
        model === "whisper-1"
          ? { type: "duration", seconds: Math.max(1, Math.round(bytes.length / 4000)) }
          : {
              type: "tokens",
              input_tokens: audioTokens,
              input_token_details: { text_tokens: 0, audio_tokens: audioTokens },
              output_tokens: tokens(text),
              total_tokens: audioTokens + tokens(text),
            };
      record.response = { text, usage };
      sendJson(res, 200, record.response);
    } catch (error) {
      const apiError = asApiError(error);
      record.status = apiError.status;
      record.response = apiError.body();
      sendError(res, apiError);
    }
  }

  // ----- POST /v1/audio/speech

  function speech(req: IncomingMessage, res: ServerResponse, raw: Buffer) {
    const record: SpeechRequestRecord = { headers: req.headers, body: null, status: 0, bytes: 0, error: null };
    rest.speechRequests.push(record);
    try {
      authorize(req);
      const body = parseJson(req, raw);
      record.body = body;
      for (const key of Object.keys(body)) if (!SPEECH_KEYS.includes(key)) throw unrecognized(key);
      if (!body.model) throw missingModel();
      if (typeof body.model !== "string") throw invalidType("model", body.model, "a string");
      if (!TTS_MODEL.test(body.model)) {
        if ([CHAT_MODEL, TRANSCRIBE_MODEL, REALTIME_MODEL].some((re) => re.test(body.model)))
          throw new ApiError(
            400,
            `The model '${body.model}' cannot generate speech. Supported models: tts-1, tts-1-hd, gpt-4o-mini-tts.`,
            "model",
            "invalid_value",
          );
        throw modelNotFound(body.model);
      }
      if (body.input === undefined) throw new ApiError(400, "Missing required parameter: 'input'.", "input", "missing_required_parameter");
      if (typeof body.input !== "string") throw invalidType("input", body.input, "a string");
      if (body.input.length === 0)
        throw new ApiError(
          400,
          "Invalid 'input': string too short. Expected a string with minimum length 1, but got an empty string instead.",
          "input",
          "string_below_min_length",
        );
      if (body.input.length > 4096)
        throw new ApiError(
          400,
          `Invalid 'input': string too long. Expected a string with maximum length 4096, but got a string with length ${body.input.length} instead.`,
          "input",
          "string_above_max_length",
        );
      if (body.voice === undefined) throw new ApiError(400, "Missing required parameter: 'voice'.", "voice", "missing_required_parameter");
      const customVoice = isObj(body.voice) && typeof body.voice.id === "string" && /^voice_/.test(body.voice.id);
      if (!customVoice && !voices.includes(body.voice)) throw invalidValue("voice", body.voice, voices);
      const speed = body.speed === undefined ? 1 : numberIn(body.speed, "speed", 0.25, 4);
      if (body.instructions !== undefined) {
        if (typeof body.instructions !== "string") throw invalidType("instructions", body.instructions, "a string");
        if (/^tts-1/.test(body.model))
          throw new ApiError(400, `Instructions are not supported for the model '${body.model}'.`, "instructions", "unsupported_parameter");
      }
      const format = body.response_format ?? "mp3";
      if (!SPEECH_FORMATS.includes(format)) throw invalidValue("response_format", format, SPEECH_FORMATS);
      if (format !== "mp3")
        throw new ApiError(
          400,
          `fake OpenAI: response_format '${format}' is not modelled (mp3 is).`,
          "response_format",
          "fake_not_modelled",
        );
      if (body.stream_format !== undefined && !["sse", "audio"].includes(body.stream_format))
        throw invalidValue("stream_format", body.stream_format, ["sse", "audio"]);
      if (body.stream_format === "sse")
        throw new ApiError(400, "fake OpenAI: stream_format 'sse' is not modelled.", "stream_format", "fake_not_modelled");
      const audio = silentMp3(options.audioMsForText(body.input) / speed);
      record.status = 200;
      record.bytes = audio.length;
      res.writeHead(200, { "content-type": "audio/mpeg", "content-length": audio.length, "x-request-id": newId("req_", 32) }).end(audio);
    } catch (error) {
      const apiError = asApiError(error);
      record.status = apiError.status;
      record.error = apiError.body();
      sendError(res, apiError);
    }
  }

  return rest;
}

function scriptedFailureMessage(status: number) {
  return status === 429
    ? "Rate limit reached for requests. Please try again in 1s."
    : status >= 500
      ? "The server had an error while processing your request. Sorry about that!"
      : "fake OpenAI: a scripted failure.";
}

function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(500, `fake OpenAI: ${(error as Error)?.message ?? String(error)}`);
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body, null, 2);
  res.writeHead(status, { "content-type": "application/json", "x-request-id": newId("req_", 32) }).end(text);
}

function sendError(res: ServerResponse, error: ApiError) {
  sendJson(res, error.status, error.body());
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > 26 * 1024 * 1024) {
        reject(new ApiError(413, "Maximum content size limit (26214400) exceeded."));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}
