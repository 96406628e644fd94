import OpenAI, { toFile } from "openai";
import type { ChatCompletionMessageParam, ChatCompletionTool } from "openai/resources/chat/completions";
import type { Env } from "~/platform/env.server";

/**
 * Text and speech models, besides the realtime voice: a written reply that may call the app's
 * tools (Chat Completions), speech to text and text to speech. The official SDK makes the same
 * requests as in production; OPENAI_BASE_URL only moves them to another host (the tests' fake).
 */

/** A function the model may call; `run` gets the model's arguments and answers in text. */
export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  run(args: Record<string, unknown>): Promise<string>;
}

export interface ChatTurn {
  role: "user" | "assistant";
  content: string;
}

export interface TextModel {
  readonly configured: boolean;
  /**
   * The assistant's reply to the conversation; runs the model's tool calls (up to 4 rounds, each
   * tool with a 10 s timeout, its error text given back to the model) and returns the final text.
   */
  reply(input: { instructions: string; turns: ChatTurn[]; tools?: ChatTool[]; temperature?: number }): Promise<string>;
}

export interface Speech {
  readonly configured: boolean;
  transcribe(input: { audio: Uint8Array; mimeType: string; language?: string }): Promise<string>;
  synthesize(input: {
    text: string;
    voice: string;
    speed: number;
    instructions?: string;
  }): Promise<{ audio: Uint8Array; mimeType: string }>;
}

export class AiNotConfiguredError extends Error {
  constructor(message = "The AI models are not configured (OPENAI_API_KEY is not set).") {
    super(message);
  }
}

export class AiError extends Error {
  constructor(
    message: string,
    /** Worth trying again later: the network, the provider's own trouble, a rate limit. */
    readonly transient: boolean,
  ) {
    super(message);
  }
}

/** Rounds of tool calls in one reply; after the last, the model must answer in words. */
export const MAX_TOOL_ROUNDS = 4;
export const TOOL_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 20_000;

function toAiError(error: unknown): unknown {
  if (error instanceof AiError || error instanceof AiNotConfiguredError) return error;
  if (error instanceof OpenAI.APIConnectionError) return new AiError(error.message, true);
  if (error instanceof OpenAI.APIError) {
    const status = error.status ?? 0;
    // A 429 for an exhausted quota stays until someone pays; other 429s are a rate limit.
    const transient = status >= 500 || status === 408 || status === 409 || (status === 429 && error.code !== "insufficient_quota");
    return new AiError(error.message, transient);
  }
  return error;
}

/** Runs one provider request; the SDK's errors become AiError. */
async function aiRequest<T>(request: () => Promise<T>): Promise<T> {
  try {
    return await request();
  } catch (error) {
    throw toAiError(error);
  }
}

function createClient(env: Env): OpenAI | null {
  if (!env.OPENAI_API_KEY) return null;
  return new OpenAI({ apiKey: env.OPENAI_API_KEY, baseURL: env.OPENAI_BASE_URL, maxRetries: 1, timeout: REQUEST_TIMEOUT_MS });
}

function requireClient(client: OpenAI | null): OpenAI {
  if (!client) throw new AiNotConfiguredError();
  return client;
}

export function createTextModel(env: Env): TextModel {
  const client = createClient(env);
  const model = env.OPENAI_CHAT_MODEL;
  return {
    configured: client !== null,
    async reply({ instructions, turns, tools = [], temperature }) {
      const openai = requireClient(client);
      const messages: ChatCompletionMessageParam[] = [
        { role: "system", content: instructions },
        ...turns.map((turn) => ({ role: turn.role, content: turn.content })),
      ];
      const toolDefinitions: ChatCompletionTool[] = tools.map((tool) => ({
        type: "function",
        function: { name: tool.name, description: tool.description, parameters: tool.parameters },
      }));
      for (let round = 0; ; round++) {
        // After the last round of tools the model may only answer in words.
        const toolsAllowed = toolDefinitions.length > 0 && round < MAX_TOOL_ROUNDS;
        const completion = await aiRequest(() =>
          openai.chat.completions.create({
            model,
            messages,
            ...(toolDefinitions.length > 0
              ? { tools: toolDefinitions, tool_choice: toolsAllowed ? ("auto" as const) : ("none" as const) }
              : {}),
            ...(temperature === undefined ? {} : { temperature }),
          }),
        );
        const message = completion.choices[0]?.message;
        if (!message) throw new AiError("The model answered with no choices.", true);
        const calls = message.tool_calls ?? [];
        if (calls.length === 0 || !toolsAllowed) return (message.content ?? message.refusal ?? "").trim();
        messages.push({ role: "assistant", content: message.content, tool_calls: calls });
        for (const call of calls) {
          const output =
            call.type === "function"
              ? await runTool(tools, call.function.name, call.function.arguments)
              : `Error: '${call.custom.name}' is not a function tool.`;
          messages.push({ role: "tool", tool_call_id: call.id, content: output });
        }
      }
    },
  };
}

/** A tool's answer, or the reason it has none, in words the model can act on. Never throws. */
async function runTool(tools: ChatTool[], name: string, rawArguments: string): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) return `Error: there is no tool named '${name}'.`;
  let args: unknown;
  try {
    args = rawArguments.trim() === "" ? {} : JSON.parse(rawArguments);
  } catch {
    return `Error: the arguments are not valid JSON: ${rawArguments}`;
  }
  if (typeof args !== "object" || args === null || Array.isArray(args)) return "Error: the arguments must be a JSON object.";
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      tool.run(args as Record<string, unknown>),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the tool '${name}' took longer than ${TOOL_TIMEOUT_MS / 1000} s`)), TOOL_TIMEOUT_MS);
      }),
    ]);
  } catch (error) {
    // One short line: a failed query's message goes on with its SQL and parameters.
    const message = error instanceof Error ? error.message : String(error);
    return `Error: ${message.split("\n")[0]!.slice(0, 300)}`;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The file name's extension is how the API tells the audio's format, so it follows the MIME type
 * (codec parameters such as `;codecs=opus` aside).
 */
const AUDIO_EXTENSIONS: Record<string, string> = {
  "audio/webm": "webm",
  "video/webm": "webm",
  "audio/ogg": "ogg",
  "audio/opus": "ogg",
  "audio/mpeg": "mp3",
  "audio/mp3": "mp3",
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mp4": "m4a",
  "audio/m4a": "m4a",
  "audio/x-m4a": "m4a",
  "audio/aac": "m4a",
  "audio/flac": "flac",
  "audio/x-flac": "flac",
};

export function createSpeech(env: Env): Speech {
  const client = createClient(env);
  return {
    configured: client !== null,
    async transcribe({ audio, mimeType, language }) {
      const openai = requireClient(client);
      const type = mimeType.split(";")[0]!.trim().toLowerCase();
      const extension = AUDIO_EXTENSIONS[type];
      if (!extension) throw new AiError(`Audio of type ${mimeType} cannot be transcribed (webm, ogg, mp3, wav, m4a or flac can).`, false);
      if (audio.byteLength === 0) throw new AiError("There is no audio to transcribe.", false);
      const file = await toFile(audio, `audio.${extension}`, { type });
      const transcription = await aiRequest(() =>
        openai.audio.transcriptions.create({
          file,
          model: env.OPENAI_TRANSCRIBE_MODEL,
          ...(language ? { language } : {}),
        }),
      );
      return transcription.text.trim();
    },
    async synthesize({ text, voice, speed, instructions }) {
      const openai = requireClient(client);
      const audio = await aiRequest(async () => {
        const response = await openai.audio.speech.create({
          model: env.OPENAI_TTS_MODEL,
          input: text,
          voice,
          response_format: "mp3",
          speed: Number.isFinite(speed) ? Math.min(4, Math.max(0.25, speed)) : 1,
          ...(instructions ? { instructions } : {}),
        });
        return new Uint8Array(await response.arrayBuffer());
      });
      return { audio, mimeType: "audio/mpeg" };
    },
  };
}
