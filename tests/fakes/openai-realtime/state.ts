// What the server shares with each connection (Shared: speed, response delay, echo mode, default
// script, the event emitter) and what a connection keeps per response (ResponseRun, OpenPart), plus
// the type of the server events it sends.
import type { EventEmitter } from "node:events";
import type { RealtimeServerEvent } from "openai/resources/realtime/realtime";
import type { FakeResponseRecord, Obj, ScriptStep } from "./types";

// ---------------------------------------------------------------------------------------------
// One connection

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type OutgoingEvent = DistributiveOmit<Extract<RealtimeServerEvent, { event_id: string }>, "event_id">;

export interface OpenPart {
  kind: "audio" | "text";
  item: Obj;
  outputIndex: number;
  previousItemId: string | null;
  text: string;
}

export interface ResponseRun {
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

export interface Shared {
  audioSpeed: number;
  responseDelayMs: number;
  echoMode: boolean;
  defaultScript: ScriptStep[];
  emitter: EventEmitter;
}
