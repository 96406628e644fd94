import type WebSocket from "ws";
import { parseBoundedJson } from "~/platform/http/bounded-json.server";

// The bridge's two wire protocols, read and written: Twilio's media-stream messages (which a
// browser's stream speaks too) and the OpenAI Realtime API's events. Pure functions, no I/O.

/** The Realtime API's server events, with the fields this bridge reads. */
export type ModelEvent =
  | { type: "response.output_audio.delta"; delta: string; item_id: string }
  | { type: "response.output_audio.done"; item_id: string }
  | { type: "conversation.item.input_audio_transcription.completed" | "response.output_audio_transcript.done"; transcript?: string }
  | { type: "response.function_call_arguments.done"; call_id: string; name: string; arguments: string }
  | { type: "error"; error?: { type?: string; code?: string; message?: string } }
  | {
      type:
        | "response.created"
        | "response.done"
        | "input_audio_buffer.speech_started"
        | "input_audio_buffer.speech_stopped"
        | "input_audio_buffer.committed"
        | "session.created"
        | "session.updated";
    };

/** The media-stream messages: Twilio's, which a browser's stream speaks too. */
export interface TwilioMessage {
  event: "connected" | "start" | "media" | "mark" | "stop" | "dtmf";
  streamSid?: string;
  start?: { streamSid: string; callSid: string; customParameters?: Record<string, string> };
  media?: { payload: string; timestamp?: string; track?: string };
  mark?: { name: string };
}

// The audio hot path, 50 frames a second each way per call, reads and writes its two messages as
// text around the base64 audio, without a JSON parse: Twilio's and the Realtime API's own
// serialisations start with "event" / "type". Anything else (another key order, spacing) takes
// the parsed path, which handles the same events; base64 holds no character JSON escapes.
const TWILIO_MEDIA = Buffer.from('{"event":"media"');
const PAYLOAD_KEY = Buffer.from('"payload":"');
const TRACK_KEY = Buffer.from('"track":"');
const MODEL_AUDIO = Buffer.from('{"type":"response.output_audio.delta"');
const DELTA_KEY = Buffer.from('"delta":"');
const ITEM_KEY = Buffer.from('"item_id":"');
const QUOTE = 0x22;
const LETTER_O = 0x6f;
const APPEND_HEAD = '{"type":"input_audio_buffer.append","audio":"';
const APPEND_TAIL = '"}';
const MEDIA_TAIL = '"}}';

const startsWith = (data: Buffer, prefix: Buffer) =>
  data.length > prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

/**
 * The JSON text of the string after `key` (`"name":"`), up to the next quote; null if absent. An
 * escape stays as it is, which is right for audio copied into another JSON string.
 */
function stringAfter(data: Buffer, key: Buffer, from: number) {
  const at = data.indexOf(key, from);
  if (at === -1) return null;
  const start = at + key.length;
  const end = data.indexOf(QUOTE, start);
  return end === -1 ? null : data.toString("latin1", start, end);
}

/**
 * The fast path of the caller's stream: a "media" message in Twilio's own serialisation, its audio
 * handed to `hear` unless it is Twilio's copy of ours. False when the message takes the parsed path.
 */
export function readCallerAudio(data: WebSocket.RawData, hear: (payload: string) => void) {
  if (!Buffer.isBuffer(data) || !startsWith(data, TWILIO_MEDIA)) return false;
  const payload = stringAfter(data, PAYLOAD_KEY, TWILIO_MEDIA.length);
  if (!payload) return false;
  // Only the caller's track is sent to the model ("outbound" is Twilio's copy of ours).
  const track = data.indexOf(TRACK_KEY, TWILIO_MEDIA.length);
  if (track === -1 || data[track + TRACK_KEY.length] !== LETTER_O) hear(payload);
  return true;
}

/** A message of the caller's stream, parsed (the path of everything but the fast one); undefined if it is not JSON. */
export function parseTwilioMessage(data: WebSocket.RawData): TwilioMessage | undefined {
  // A browser's web call speaks this stream too: its messages get the requests' bounded parse.
  const parsed = parseBoundedJson(String(data));
  return parsed.ok ? (parsed.value as TwilioMessage) : undefined;
}

/** The caller's audio in a parsed "media" message: its payload, unless absent or Twilio's copy of ours ("outbound"). */
export function callerAudioOf(message: TwilioMessage) {
  const payload = message.media?.payload;
  return payload && message.media?.track !== "outbound" ? payload : null;
}

/**
 * The fast path of the model's events: a `response.output_audio.delta` in the Realtime API's own
 * serialisation, its item and audio handed to `play`. False when the event takes the parsed path.
 */
export function readModelAudio(data: WebSocket.RawData, play: (itemId: string, delta: string) => void) {
  if (!Buffer.isBuffer(data) || !startsWith(data, MODEL_AUDIO)) return false;
  const itemId = stringAfter(data, ITEM_KEY, MODEL_AUDIO.length);
  const delta = stringAfter(data, DELTA_KEY, MODEL_AUDIO.length);
  if (itemId === null || delta === null || itemId.includes("\\")) return false;
  play(itemId, delta);
  return true;
}

/** An event of the model, parsed (the path of everything but the fast one); undefined if it is not JSON. */
export function parseModelEvent(data: WebSocket.RawData): ModelEvent | undefined {
  try {
    return JSON.parse(String(data)) as ModelEvent;
  } catch {
    return undefined;
  }
}

/** The caller's audio (base64) for the model: `input_audio_buffer.append`, written as text. */
export const appendAudioMessage = (payload: string) => APPEND_HEAD + payload + APPEND_TAIL;

/** The text around the audio of the messages to the caller's stream, made once the stream's id is known. */
export function streamHeads(streamSid: string) {
  const sid = JSON.stringify(streamSid);
  return {
    media: `{"event":"media","streamSid":${sid},"media":{"payload":"`,
    mark: `{"event":"mark","streamSid":${sid},"mark":{"name":"`,
  };
}

/** The model's audio (base64) for the caller's stream: a "media" message, written as text after `mediaHead` (streamHeads). */
export const mediaMessage = (mediaHead: string, delta: string) => mediaHead + delta + MEDIA_TAIL;

/** A "mark" for the caller's stream, written as text after `markHead` (streamHeads): echoed once the audio before it is heard. */
export const markMessage = (markHead: string, name: string) => `${markHead}${name}"}}`;

/** Twilio drops the audio it still holds. */
export const clearMessage = (streamSid: string) => ({ event: "clear", streamSid });

/** The model's item is cut where the caller stopped hearing it. */
export const truncateEvent = (itemId: string, audioEndMs: number) => ({
  type: "conversation.item.truncate",
  item_id: itemId,
  content_index: 0,
  audio_end_ms: audioEndMs,
});

/** Asks for a response, with its settings if any. */
export const responseCreateEvent = (response: object) => ({
  type: "response.create",
  ...(Object.keys(response).length > 0 ? { response } : {}),
});

/** Cancels the response in flight. */
export const responseCancelEvent = () => ({ type: "response.cancel" });

/** A tool's answer to the model's function call. */
export const toolOutputEvent = (callId: string, output: string) => ({
  type: "conversation.item.create",
  item: { type: "function_call_output", call_id: callId, output },
});
