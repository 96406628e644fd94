import OpenAI from "openai";
import WebSocket from "ws";
import type { Env } from "~/platform/env.server";

/** A function the model may call during a session. */
export interface AgentTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Runs the tool; the string goes back to the model as the function output. */
  run(args: Record<string, unknown>): Promise<string>;
}

/** Who the model is in a session: what it is told, how it sounds, what it says first, and its tools. */
export interface Agent {
  instructions: string;
  voice: string;
  /** What the agent says first. */
  greeting: string;
  /** Speaking speed (1 is normal); the realtime model speaks 0.25-1.5 times normal. */
  speed?: number;
  tools: AgentTool[];
}

/**
 * The realtime voice model that speaks for the agents. A session is a WebSocket that speaks the
 * OpenAI Realtime API's events; OPENAI_BASE_URL only moves it to another host (the tests' fake).
 */
export interface VoiceModel {
  readonly configured: boolean;
  readonly model: string;
  /** Opens a realtime session; the caller listens for "open", "message", "close" and "error". */
  openSession(): WebSocket;
  /** A real request with the credentials: is the model there for this key? */
  checkCredentials(): Promise<{ ok: boolean; message: string }>;
}

export function createVoiceModel(env: Env): VoiceModel {
  const apiKey = env.OPENAI_API_KEY;
  const baseUrl = (env.OPENAI_BASE_URL ?? "https://api.openai.com/v1").replace(/\/$/, "");
  const model = env.OPENAI_REALTIME_MODEL;
  return {
    configured: Boolean(apiKey),
    model,
    openSession() {
      if (!apiKey) throw new Error("The voice model is not configured (OPENAI_API_KEY is not set).");
      const url = `${baseUrl.replace(/^http/, "ws")}/realtime?model=${encodeURIComponent(model)}`;
      return new WebSocket(url, { headers: { Authorization: `Bearer ${apiKey}` } });
    },
    async checkCredentials() {
      if (!apiKey) return { ok: false, message: "Not configured" };
      try {
        const client = new OpenAI({ apiKey, baseURL: env.OPENAI_BASE_URL, maxRetries: 0, timeout: 10_000 });
        await client.models.retrieve(model);
        return { ok: true, message: `Model ${model} available` };
      } catch (error) {
        return { ok: false, message: (error as Error).message };
      }
    },
  };
}
