import type { Call } from "#models/calls";
import type { Speech, TextModel } from "~/providers/ai.server";
import type { Mailer } from "~/providers/email.server";
import type { Messaging } from "~/providers/messaging.server";
import type { PhoneNumbers } from "~/providers/phone-numbers.server";
import type { Billing } from "~/providers/billing.server";
import type { Payments } from "~/providers/payments.server";
import type { Telephony } from "~/providers/telephony.server";
import type { Agent, VoiceModel } from "~/providers/voice-model.server";
import type { AppCookies } from "./http/cookies.server";
import type { DatabaseHandle, Db } from "./db.server";
import type { Env } from "./env.server";
import type { JobDefinition, Jobs } from "./data/jobs.server";
import type { ReadCache } from "./data/read-cache.server";

/**
 * A kind of call (Call["purpose"]) as the call engine and the voice bridge see it. The engine and
 * the bridge know only calls; each feature that places calls (empathy, booking confirmation,
 * subscription, customer service, the demo) describes its purpose here, and the server wiring
 * registers them all at start-up (app/server/call-purposes.server.ts), so the engine never imports
 * the features that use it (docs/decisions/0028-call-purposes-register-with-the-engine.md).
 */
export interface CallPurpose {
  /** Who speaks on the call: instructions, voice, greeting and tools. */
  agent(services: AppServices, call: Call): Promise<Agent>;
  /**
   * Whether a queued call may be dialled now; false when it may not (the purpose recorded why),
   * or after `defer` put the dial off until a later time. Without it every call is admitted.
   */
  admit?(services: AppServices, call: Call, defer: (until: Date) => Promise<void>): Promise<boolean>;
  /**
   * The message left when a machine answers (the call then also asks the provider to wait for the
   * beep). Without it a machine is hung up on, with nothing said.
   */
  voicemail?(services: AppServices, call: Call): Promise<{ text: string; language: string; voice: string }>;
  /**
   * The call will not be dialled: its business is suspended, or the dialling policy refused the
   * number (`reason`). Without it a refused call ends like any failed call (`finished`).
   */
  notCalled?(services: AppServices, call: Call, reason: string): Promise<void>;
  /**
   * A caller who sounds in crisis hears the reviewed crisis script (the help lines of their
   * number's country, app/voice/crisis.server.ts) instead of the model's reply. `callerNumber`
   * says which of the call's numbers is the caller's. Without it the model answers as instructed.
   */
  crisis?: { callerNumber(call: Call): string | null };
  /** What the agent is asked to say at set moments: `afterSeconds` from the start of its session. */
  cues?(call: Call): { afterSeconds: number; instructions: string }[];
  /** The telephony provider accepted the call. */
  placed?(services: AppServices, call: Call): Promise<void>;
  /**
   * The media stream ended under a live call (the model failed, our side cut it): the TwiML the
   * caller gets instead of the engine's apology or goodbye (the receptionist's voicemail). Without
   * it, or when it answers null, the engine's.
   */
  afterStream?(services: AppServices, call: Call): Promise<string | null>;
  /** The call ended (answered or not, or failed before it rang). */
  finished?(services: AppServices, call: Call, origin: string): Promise<void>;
}

/** Every purpose's description, one each: a purpose added to the enum must be registered too. */
export type CallPurposes = Record<Call["purpose"], CallPurpose>;

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
  billing: Billing | null;
  telephony: Telephony;
  /** Texts (SMS) through Twilio; `configured` is false without TWILIO_SMS_FROM. Only the text gate's job sends. */
  messaging: Messaging;
  /** The Twilio account's own numbers (IncomingPhoneNumbers), which a business connects as its line. */
  phoneNumbers: PhoneNumbers;
  voiceModel: VoiceModel;
  /** Written replies with tool calls; `configured` is false without OPENAI_API_KEY. */
  textModel: TextModel;
  /** Speech to text and text to speech; `configured` is false without OPENAI_API_KEY. */
  speech: Speech;
  /** The call purposes, registered at start-up: the engine and the bridge look a call's up here. */
  callPurposes: CallPurposes;
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
