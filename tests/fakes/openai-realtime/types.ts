// The fake's public types: the handle a test gets (FakeRealtime), its options, the session and
// response records it keeps, and the script steps. index.ts re-exports them.
import type { IncomingHttpHeaders } from "node:http";
import type { ChatRequestRecord, ChatScriptStep, SpeechRequestRecord, TranscriptionRequestRecord } from "../openai-rest";

// Realtime objects are loosely typed on purpose: tests read them like JSON.
export type Obj = Record<string, any>;

export type ScriptStep =
  | { say: string; held?: boolean; stallAfter?: boolean }
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
  stall(sessionIndex: number): void;
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
