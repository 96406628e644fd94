import type { Call } from "#models/calls";
import type { Speech, TextModel } from "~/providers/ai.server";
import type { Mailer } from "~/providers/email.server";
import type { Payments } from "~/providers/payments.server";
import type { Telephony } from "~/providers/telephony.server";
import type { VoiceModel } from "~/providers/voice-model.server";
import type { AppCookies } from "./cookies.server";
import type { DatabaseHandle, Db } from "./db.server";
import type { Env } from "./env.server";
import type { JobDefinition, Jobs } from "./jobs.server";
import type { ReadCache } from "./read-cache.server";

/**
 * What a feature that asked for a call does when the call engine reports on it. The engine knows
 * only calls; each purpose (a booking confirmation, a paid empathy call) registers its own steps,
 * so the engine never imports the features that use it.
 */
export interface CallLifecycle {
  /** The telephony provider accepted the call. */
  placed?(services: AppServices, call: Call): Promise<void>;
  /** The call ended (answered or not, or failed before it rang). */
  finished?(services: AppServices, call: Call, origin: string): Promise<void>;
}

/** Everything a loader, action or job needs, created once per process and passed in. */
export interface AppServices {
  env: Env;
  database: DatabaseHandle;
  db: Db;
  jobs: Jobs;
  mailer: Mailer;
  cookies: AppCookies;
  outboxDir: string;
  /** Null when STRIPE_SECRET_KEY is not set: payment actions then say "not configured". */
  payments: Payments | null;
  telephony: Telephony;
  voiceModel: VoiceModel;
  /** Written replies with tool calls; `configured` is false without OPENAI_API_KEY. */
  textModel: TextModel;
  /** Speech to text and text to speech; `configured` is false without OPENAI_API_KEY. */
  speech: Speech;
  callLifecycle: Partial<Record<Call["purpose"], CallLifecycle>>;
  /** Short-lived answers to frequent reads, emptied by every request that may write (see read-cache.server.ts). */
  readCache: ReadCache;
  /** Signs cookies and capability links (HMAC); never leaves the server. */
  signingSecret: string;
  /** Lines `npm start` prints after "listening" ({url} is replaced by the server's address). */
  startupNotes: string[];
  /**
   * The origin every absolute link and provider callback uses: APP_URL when set, else the address
   * the server listens on. Never a request's Host or X-Forwarded-* headers.
   */
  publicOrigin(): string;
  /** Called once the server listens, with the origin that opens it (used while APP_URL is unset). */
  setListeningOrigin(origin: string): void;
}

/** A kind of background work whose handler gets the app's services. */
export type AppJob<Data extends object> = JobDefinition<Data, AppServices>;
