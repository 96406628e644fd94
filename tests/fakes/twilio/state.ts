// The state one fake Twilio server shares between its resources: the options it was started with,
// the account, calls and their runtimes, recordings, requests, callback deliveries, warnings, test
// controls (outcomes, failures, hangs) and what it needs to close. startFakeTwilio creates it; the
// resource modules take it as their first argument.
import { randomBytes } from "node:crypto";
import { EventEmitter } from "node:events";
import { randomSid, type MediaStreamHandle } from "../media-stream";
import type { CallbackDelivery, CallOutcome, FakeCall, FakeTwilioOptions, FormParams } from "./index";
import type { FakeIncomingNumber } from "./incoming-numbers";
import type { FakeMessage } from "./messages";
import type { TwilioError } from "./util";
import { API_VERSION, rfc2822 } from "./util";

export interface CallRuntime {
  abort: AbortController;
  handle: MediaStreamHandle | null;
  timeLimitTimer?: NodeJS.Timeout;
  callbackChain: Promise<void>;
  sequence: number;
  outcome: CallOutcome;
  dialed: boolean;
  /** New instructions for the live call (a REST update with Twiml or Url), run once its media stream has stopped. */
  redirect?: { twiml: string } | { url: string; method: string | undefined } | null;
}

export interface FakeTwilioState {
  accountSid: string;
  authToken: string;
  ownedNumbers: string[];
  blockedPrefixes: string[];
  unreachableStreams: Set<string>;
  silentStreamDrops: Set<string>;
  /** To number → the statuses whose next status callback is lost on the way (loseStatusCallback). */
  lostCallbacks: Map<string, Set<string>>;
  recordings: Map<string, { sid: string; callSid: string; duration: number; channels: number; deleted: boolean }>;
  autoDial: boolean;
  realtimeAudio: boolean;
  timing: { ringMs: number; sayMs: number; pauseScale: number };
  phoneNumberSids: Map<string, string>;
  account: {
    auth_token: string;
    date_created: string;
    date_updated: string;
    friendly_name: string;
    owner_account_sid: string;
    sid: string;
    status: "active" | "suspended" | "closed";
    subresource_uris: { calls: string; incoming_phone_numbers: string };
    type: "Full" | "Trial";
    uri: string;
  };
  calls: Map<string, FakeCall>;
  /** The account's own numbers (IncomingPhoneNumbers) by SID (PN…), with where their calls and texts go. */
  incomingNumbers: Map<string, FakeIncomingNumber>;
  /** Messages (SMS), sent and received, by MessageSid. */
  messages: Map<string, FakeMessage>;
  /** Message creations Twilio refused, with the error it answered. */
  refusedMessages: { params: FormParams; error: TwilioError }[];
  /** "from|to": a number that texted STOP to one of the account's numbers (Twilio's STOP filtering). */
  smsOptOuts: Set<string>;
  /** To prefixes whose region has no SMS permission (21408); mutable. */
  smsBlockedPrefixes: string[];
  /** To numbers whose messages are sent but never delivered (undelivered, 30003). */
  undeliverableNumbers: Set<string>;
  /** To numbers whose message status callbacks reach the app before the creation's 201 does. */
  callbacksBeforeAnswer: Set<string>;
  /** Answers for the next message creations (failNextMessage). */
  messageFailures: { status: number; code: number; message: string }[];
  runtimes: Map<string, CallRuntime>;
  /** From number → what that caller says into a <Record>: its transcription (null: it fails) and its length. */
  voicemails: Map<string, { transcript: string | null; seconds: number }>;
  requests: { method: string; path: string; params: FormParams; authorized: boolean; at: number }[];
  callbackDeliveries: CallbackDelivery[];
  warnings: string[];
  numberOutcomes: Map<string, CallOutcome>;
  failures: { status: number; code: number; message: string; times: number }[];
  /** Answers for the next call fetches (GET Calls/{sid}), as failNextFetch queued them. */
  fetchFailures: { status: number; code: number; message: string; times: number }[];
  hangs: { to?: string; ms: number; arrived: (from: { remotePort: number }) => void; released: Promise<void> }[];
  closed: AbortController;
  changes: EventEmitter;
  pending: Set<Promise<unknown>>;
  closing: boolean;
  /** The fake handed to the test, once startFakeTwilio has made it: createCall reads and resets its nextOutcome. */
  fake: { nextOutcome: CallOutcome | undefined };
}

export function createState(options: FakeTwilioOptions): FakeTwilioState {
  const accountSid = options.accountSid ?? randomSid("AC");
  const authToken = options.authToken ?? randomBytes(16).toString("hex");
  const ownedNumbers = [...(options.ownedNumbers ?? ["+15005550006"])];
  const blockedPrefixes = [...(options.blockedPrefixes ?? [])];
  const unreachableStreams = new Set<string>();
  const silentStreamDrops = new Set<string>();
  const lostCallbacks = new Map<string, Set<string>>();
  const recordings = new Map<string, { sid: string; callSid: string; duration: number; channels: number; deleted: boolean }>();
  const autoDial = options.autoDial ?? true;
  const realtimeAudio = options.realtimeAudio ?? true;
  const timing = { ringMs: 20, sayMs: 50, pauseScale: 1, ...(options.timing ?? {}) };
  const created = new Date();
  const phoneNumberSids = new Map<string, string>();

  const account = {
    auth_token: authToken,
    date_created: rfc2822(created),
    date_updated: rfc2822(created),
    friendly_name: options.friendlyName ?? "Sakina test account",
    owner_account_sid: accountSid,
    sid: accountSid,
    status: "active" as "active" | "suspended" | "closed",
    subresource_uris: {
      calls: `/${API_VERSION}/Accounts/${accountSid}/Calls.json`,
      incoming_phone_numbers: `/${API_VERSION}/Accounts/${accountSid}/IncomingPhoneNumbers.json`,
    },
    type: "Full" as "Full" | "Trial",
    uri: `/${API_VERSION}/Accounts/${accountSid}.json`,
  };

  const calls = new Map<string, FakeCall>();
  const runtimes = new Map<string, CallRuntime>();
  const requests: { method: string; path: string; params: FormParams; authorized: boolean; at: number }[] = [];
  const callbackDeliveries: CallbackDelivery[] = [];
  const warnings: string[] = [];
  const numberOutcomes = new Map<string, CallOutcome>();
  const failures: { status: number; code: number; message: string; times: number }[] = [];
  const fetchFailures: { status: number; code: number; message: string; times: number }[] = [];
  const hangs: { to?: string; ms: number; arrived: (from: { remotePort: number }) => void; released: Promise<void> }[] = [];
  const closed = new AbortController();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const pending = new Set<Promise<unknown>>();

  return {
    accountSid,
    authToken,
    ownedNumbers,
    blockedPrefixes,
    unreachableStreams,
    silentStreamDrops,
    lostCallbacks,
    recordings,
    autoDial,
    realtimeAudio,
    timing,
    phoneNumberSids,
    account,
    calls,
    incomingNumbers: new Map(),
    messages: new Map(),
    refusedMessages: [],
    smsOptOuts: new Set(),
    smsBlockedPrefixes: [],
    undeliverableNumbers: new Set(),
    callbacksBeforeAnswer: new Set(),
    messageFailures: [],
    runtimes,
    voicemails: new Map(),
    requests,
    callbackDeliveries,
    warnings,
    numberOutcomes,
    failures,
    fetchFailures,
    hangs,
    closed,
    changes,
    pending,
    closing: false,
    fake: { nextOutcome: undefined },
  };
}

export function track<T>(state: FakeTwilioState, promise: Promise<T>) {
  state.pending.add(promise);
  void promise.finally(() => state.pending.delete(promise)).catch(() => {});
  return promise;
}
