/**
 * A fake Twilio for tests: a node:http server for the Programmable Voice REST API (2010-04-01) that
 * the real `twilio` SDK reaches through configuration only (a `twilio.RequestClient` subclass that
 * moves `https://api.twilio.com` onto `fake.url`, i.e. TWILIO_API_URL), and that then runs each call
 * as Twilio does: signed status callbacks, the signed voice-URL request, TwiML, and a bidirectional
 * Media Stream (./media-stream.ts) to the app's WebSocket. It answers as Twilio does, errors
 * included, so code that only works against a lenient fake fails here too.
 *
 *   const fake = await startFakeTwilio({ accountSid?, authToken?, ownedNumbers?, autoDial?, timing?, realtimeAudio? });
 *   fake.url            http://127.0.0.1:PORT (TWILIO_API_URL)
 *   fake.accountSid     "AC" + 32 hex (random unless given); fake.authToken (random 32 hex unless given)
 *   fake.ownedNumbers   numbers that may be used as From (default ["+15005550006"]); mutable
 *   fake.account        the Account resource (mutable: set `status` to "suspended" to test credential checks)
 *   fake.calls          Map<CallSid, FakeCall>: { sid, params (the form as posted; StatusCallbackEvent is an
 *                       array), status, events (every status the call went through, in order: queued,
 *                       initiated, ringing, in-progress, completed|busy|no-answer|failed|canceled), twiml (the
 *                       first TwiML document executed), documents (all of them), said (<Say> texts), answeredBy,
 *                       startedAt (answer) / endedAt: Date | null, duration (s), hangupBy: "app" | "time-limit" |
 *                       "caller" | null, streamSid, customParameters, errors ({ code, message }: 11200 voice URL
 *                       failed, 12100 bad TwiML, 12300 bad Content-Type, 31920 stream handshake refused,
 *                       31951 protocol errors seen on the stream, 12200 unsupported verb) }
 *   fake.requests       every REST request: { method, path, params, authorized, at (epoch ms, fractional, when its body was read) }
 *   fake.callbackDeliveries   every request the fake made to the app, in order: { kind: "status" | "voice" |
 *                       "action" | "redirect" | "amd" | "stream-status", callSid, url, method, params, headers,
 *                       body, status (HTTP status, 0 when nothing answered), replayOf? }
 *   fake.statusCallbacks(sid)   the status-callback deliveries of one call (params.CallStatus, …)
 *   fake.nextOutcome    outcome of the next call created (then reset): "answer" (default) | "busy" |
 *                       "no-answer" | "failed" | "machine"
 *   fake.setOutcome(number, outcome)   outcome for every call to that number (nextOutcome wins)
 *   fake.blockedPrefixes   To prefixes refused with 21215 (geo permissions), e.g. ["+966"]; mutable
 *   fake.unreachableStreams   To numbers whose media stream cannot reach the app (a network failure between
 *                       Twilio and the app): the <Stream> fails with 31920 and the TwiML goes on; mutable Set
 *   fake.failNext(status, { code, message }, times = 1)   the next N call creations answer that error
 *   fake.clearFailures()   drops the failures failNext queued and not yet answered (the outage is over)
 *   fake.hangNext({ to?, ms? })   the next call creation (to that number, if given) is held without an answer,
 *                       as an overloaded API does, until `release()` or `ms` (default 60 s) pass or the fake closes;
 *                       then it is answered as usual. Returns { arrived: Promise<{ remotePort }> (the request came,
 *                       from that client port), release() }.
 *   fake.waitForStatus(sid, status, timeoutMs = 5000)      resolves with the call once it has been in that
 *                       status; rejects at once if the call ended without reaching it
 *   fake.stream(sid, timeoutMs = 5000)   the call's MediaStreamHandle, once the app accepted the WebSocket
 *   fake.dial(sid)      run a call created with autoDial: false
 *   fake.hangup(sid)    the person called hangs up (hangupBy "caller"); stream.hangup() does the same
 *   fake.resendCallback(index)   deliver callbackDeliveries[index] again, byte for byte (same signature and
 *                       I-Twilio-Idempotency-Token), as Twilio's retries/replays do; resolves with the HTTP status
 *   fake.flush()        wait until every queued callback has been delivered
 *   fake.warnings       parameters Twilio ignores that the app probably meant (unknown names, events)
 *   fake.close()
 *
 * REST API (Basic auth AccountSid:AuthToken on every request, else 401 code 20003 "Authenticate"):
 *   GET  /2010-04-01/Accounts/{Sid}.json                     the Account (status "active", type "Full")
 *   POST /2010-04-01/Accounts/{Sid}/Calls.json               create: To, From required (21201, 21213); To must be
 *        E.164 (21211 "The 'To' number X is not a valid phone number."); From one of ownedNumbers (21210);
 *        Url (absolute http/https) or Twiml required (21205); Method/StatusCallbackMethod GET|POST (21200);
 *        MachineDetection Enable|DetectMessageEnd (21200); TimeLimit 1..14400 (13216 "Invalid TimeLimit
 *        value (X)"); Timeout a positive integer (21208); a To matching blockedPrefixes 21215. 201 with the
 *        Call (status "queued", direction "outbound-api", snake_case, RFC 2822 dates).
 *   GET  /2010-04-01/Accounts/{Sid}/Calls.json               list (To, From, Status filters; PageSize)
 *   GET  /2010-04-01/Accounts/{Sid}/Calls/{CallSid}.json     fetch; unknown sid 404 code 20404
 *   POST /2010-04-01/Accounts/{Sid}/Calls/{CallSid}.json     Status=completed hangs up (a call not yet answered
 *        ends "canceled"); Status=canceled only ends a queued/ringing call; other values 400 (21200).
 *   DELETE the same: 204.       Unknown paths 404 20404; other methods 405 20004.
 * Error bodies: { code, message, more_info: "https://www.twilio.com/docs/errors/CODE", status }, which the SDK
 * turns into a RestException (status, code, message, moreInfo).
 *
 * What a call does after the 201 (unless autoDial: false): `initiated`, `ringing` (timing.ringMs apart,
 * default 20 ms), then the outcome. Busy / no-answer / failed (failed skips ringing) end the call there.
 * Answered: the voice Url is requested (CallStatus=in-progress; AnsweredBy and MachineDetectionDuration
 * when MachineDetection was asked synchronously: "human", "machine_end_beep" for DetectMessageEnd or
 * "machine_start" for Enable; with AsyncAmd=true the Url gets no AnsweredBy and AsyncAmdStatusCallback
 * receives it), then the `answered` status callback (CallStatus=in-progress). A 2xx text/xml (or
 * application/xml, text/html) answer is executed; anything else is error 11200/12300 and the call ends
 * (FallbackUrl is tried first when given). TwiML: <Say> (timing.sayMs each, default 50 ms, `loop`),
 * <Pause length> (seconds × timing.pauseScale, default 1), <Hangup/>, <Redirect>, and
 * <Connect action?><Stream url name? statusCallback?><Parameter name value/></Stream></Connect>: the fake
 * connects with connectMediaStream (signed handshake) and, unless realtimeAudio: false, sends live
 * silence (a frame every 20 ms, as a real call does; drive speech through fake.stream(sid)). When the app
 * closes the socket the TwiML goes on after </Connect> (or with the `action` URL's answer); at the end of
 * the document the call completes (hangupBy "app"). A REST hangup (hangupBy "app"), TimeLimit seconds
 * after the answer ("time-limit") or the caller (fake.hangup / stream.hangup: "caller") end the call:
 * `stop` on the stream, socket closed, call completed.
 * Status callbacks go to StatusCallback (StatusCallbackMethod, default POST) for the events listed in
 * StatusCallbackEvent; the final one (CallStatus completed|busy|no-answer|failed|canceled) is always sent.
 * Params: AccountSid, ApiVersion, CallSid, CallStatus, Called, Caller, Direction, From, To, Timestamp
 * (RFC 2822), SequenceNumber (0, 1, … per call), CallbackSource=call-progress-events, SipResponseCode on the
 * final one, and on the final one CallDuration (seconds from the answer, rounded up; TimeLimit exactly
 * when the limit ended it; 0 when never answered) and Duration (minutes, rounded up). Each call's
 * callbacks are delivered one after the other, in order; a failed delivery is recorded and not retried.
 * Every request carries X-Twilio-Signature = twilio.getExpectedTwilioSignature(authToken, url, params)
 * (GET: the params go in the query string and are signed as part of the URL), Content-Type
 * application/x-www-form-urlencoded, I-Twilio-Idempotency-Token and User-Agent TwilioProxy/1.1.
 *
 * Recordings: a call created with Record=true that was answered leaves a recording when it completes
 * (RecordingChannels "dual" → 2 channels): `fake.recordings` (Map RecordingSid → { sid, callSid, duration,
 * channels, deleted }), and a signed callback to RecordingStatusCallback (RecordingSid, RecordingUrl,
 * RecordingStatus=completed, RecordingDuration, RecordingChannels, RecordingSource=OutboundAPI…) after the
 * final status callback. GET/DELETE /2010-04-01/Accounts/{Sid}/Recordings/{RecordingSid}.json (204; an
 * unknown or deleted sid 404 code 20404).
 * Not modelled: incoming calls, <Gather>, <Play>, <Dial>, <Record>, <Start><Stream> (recorded as error 12200),
 * conferences, real ringing/answer delays (Timeout is validated, not waited for), prices.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { EventEmitter } from "node:events";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import twilio from "twilio";
import { connectMediaStream, randomSid, type MediaStreamHandle } from "./media-stream";

export type CallOutcome = "answer" | "busy" | "no-answer" | "failed" | "machine";
export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "no-answer" | "failed" | "canceled";
const FINAL_STATUSES: CallStatus[] = ["completed", "busy", "no-answer", "failed", "canceled"];
const SIP_CODES: Record<string, string> = { completed: "200", busy: "486", "no-answer": "487", failed: "404", canceled: "487" };

export type FormParams = Record<string, string | string[]>;

export interface FakeCall {
  sid: string;
  params: FormParams;
  status: CallStatus;
  events: CallStatus[];
  twiml: string | null;
  documents: string[];
  said: string[];
  answeredBy: string | null;
  dateCreated: Date;
  dateUpdated: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  duration: number | null;
  hangupBy: "app" | "time-limit" | "caller" | null;
  streamSid: string | null;
  customParameters: Record<string, string> | null;
  errors: { code: number; message: string }[];
}

export interface CallbackDelivery {
  kind: "status" | "voice" | "action" | "redirect" | "amd" | "stream-status" | "fallback" | "recording";
  callSid: string;
  url: string;
  method: "GET" | "POST";
  params: Record<string, string>;
  headers: Record<string, string>;
  body: string;
  status: number;
  error?: string;
  replayOf?: number;
}

export interface FakeTwilioOptions {
  accountSid?: string;
  authToken?: string;
  ownedNumbers?: string[];
  autoDial?: boolean;
  friendlyName?: string;
  blockedPrefixes?: string[];
  /** Send live silence on every stream the fake opens (default true, as a real call does). */
  realtimeAudio?: boolean;
  timing?: { ringMs?: number; sayMs?: number; pauseScale?: number };
}

interface CallRuntime {
  abort: AbortController;
  handle: MediaStreamHandle | null;
  timeLimitTimer?: NodeJS.Timeout;
  callbackChain: Promise<void>;
  sequence: number;
  outcome: CallOutcome;
  dialed: boolean;
}

type TwilioError = { status: number; code: number; message: string };

const API_VERSION = "2010-04-01";
const E164 = /^\+[1-9]\d{6,14}$/;
const KNOWN_CREATE_PARAMS = new Set([
  "To",
  "From",
  "Url",
  "Method",
  "Twiml",
  "ApplicationSid",
  "FallbackUrl",
  "FallbackMethod",
  "StatusCallback",
  "StatusCallbackMethod",
  "StatusCallbackEvent",
  "SendDigits",
  "Timeout",
  "Record",
  "RecordingChannels",
  "RecordingStatusCallback",
  "RecordingStatusCallbackMethod",
  "RecordingStatusCallbackEvent",
  "Trim",
  "CallerId",
  "MachineDetection",
  "MachineDetectionTimeout",
  "MachineDetectionSpeechThreshold",
  "MachineDetectionSpeechEndThreshold",
  "MachineDetectionSilenceTimeout",
  "AsyncAmd",
  "AsyncAmdStatusCallback",
  "AsyncAmdStatusCallbackMethod",
  "TimeLimit",
  "CallReason",
  "CallToken",
  "RecordingTrack",
  "Byoc",
  "SipAuthUsername",
  "SipAuthPassword",
  "RecordingConfigurationId",
  "ClientNotificationUrl",
]);
const STATUS_EVENTS = new Set(["initiated", "ringing", "answered", "completed"]);

function rfc2822(date: Date) {
  return date.toUTCString().replace("GMT", "+0000");
}

function twilioError(status: number, code: number, message: string): TwilioError {
  return { status, code, message };
}

function formatted(number: string) {
  const m = /^\+1(\d{3})(\d{3})(\d{4})$/.exec(number);
  return m ? `(${m[1]}) ${m[2]}-${m[3]}` : number;
}

function first(params: FormParams, name: string): string | undefined {
  const value = params[name];
  return Array.isArray(value) ? value[0] : value;
}

function isHttpUrl(value: string) {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

function sleep(ms: number, signal?: AbortSignal) {
  return new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
    signal?.addEventListener("abort", done, { once: true });
  });
}

// ---------------------------------------------------------------------------------------------
// A small XML parser, enough for TwiML.

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

function decodeEntities(text: string) {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
    if (entity.startsWith("#x")) return String.fromCodePoint(parseInt(entity.slice(2), 16));
    if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
    return ({ amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" } as Record<string, string>)[entity]!;
  });
}

export function parseXml(source: string): XmlElement {
  let i = source.charCodeAt(0) === 0xfeff ? 1 : 0;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const fail = (why: string): never => {
    throw new Error(`${why} at offset ${i}`);
  };
  while (i < source.length) {
    if (source.startsWith("<?", i)) {
      const end = source.indexOf("?>", i);
      if (end < 0) fail("Unterminated processing instruction");
      i = end + 2;
    } else if (source.startsWith("<!--", i)) {
      const end = source.indexOf("-->", i);
      if (end < 0) fail("Unterminated comment");
      i = end + 3;
    } else if (source.startsWith("<![CDATA[", i)) {
      const end = source.indexOf("]]>", i);
      if (end < 0 || stack.length === 0) fail("Bad CDATA");
      stack.at(-1)!.children.push(source.slice(i + 9, end));
      i = end + 3;
    } else if (source.startsWith("<!", i)) {
      const end = source.indexOf(">", i);
      if (end < 0) fail("Unterminated declaration");
      i = end + 1;
    } else if (source.startsWith("</", i)) {
      const end = source.indexOf(">", i);
      if (end < 0) fail("Unterminated end tag");
      const name = source.slice(i + 2, end).trim();
      const open = stack.pop();
      if (!open || open.name !== name) fail(`Unexpected </${name}>`);
      i = end + 1;
    } else if (source[i] === "<") {
      const match = /^<([A-Za-z_][\w.:-]*)/.exec(source.slice(i, i + 200));
      if (!match) fail("Bad tag");
      const element: XmlElement = { name: match![1]!, attrs: {}, children: [] };
      i += match![0].length;
      let selfClosing = false;
      for (;;) {
        while (/\s/.test(source[i] ?? "")) i++;
        if (source.startsWith("/>", i)) {
          i += 2;
          selfClosing = true;
          break;
        }
        if (source[i] === ">") {
          i++;
          break;
        }
        const attr = /^([A-Za-z_][\w.:-]*)\s*=\s*("([^"]*)"|'([^']*)')/.exec(source.slice(i, i + 10_000));
        if (!attr) fail(`Bad attribute in <${element.name}>`);
        element.attrs[attr![1]!] = decodeEntities(attr![3] ?? attr![4] ?? "");
        i += attr![0].length;
      }
      const parent = stack.at(-1);
      if (parent) parent.children.push(element);
      else if (root) fail("More than one root element");
      else root = element;
      if (!selfClosing) stack.push(element);
    } else {
      const next = source.indexOf("<", i);
      const text = source.slice(i, next < 0 ? source.length : next);
      if (stack.length > 0) stack.at(-1)!.children.push(decodeEntities(text));
      else if (text.trim()) fail("Text outside the root element");
      i = next < 0 ? source.length : next;
    }
  }
  if (stack.length > 0) fail(`Unclosed <${stack.at(-1)!.name}>`);
  if (!root) fail("No root element");
  return root!;
}

function elements(element: XmlElement) {
  return element.children.filter((c): c is XmlElement => typeof c !== "string");
}

function textOf(element: XmlElement): string {
  return element.children
    .map((c) => (typeof c === "string" ? c : textOf(c)))
    .join("")
    .trim();
}

// ---------------------------------------------------------------------------------------------

export async function startFakeTwilio(options: FakeTwilioOptions = {}) {
  const accountSid = options.accountSid ?? randomSid("AC");
  const authToken = options.authToken ?? randomBytes(16).toString("hex");
  const ownedNumbers = [...(options.ownedNumbers ?? ["+15005550006"])];
  const blockedPrefixes = [...(options.blockedPrefixes ?? [])];
  const unreachableStreams = new Set<string>();
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
  const hangs: { to?: string; ms: number; arrived: (from: { remotePort: number }) => void; released: Promise<void> }[] = [];
  const closed = new AbortController();
  const changes = new EventEmitter();
  changes.setMaxListeners(0);
  const pending = new Set<Promise<unknown>>();
  let closing = false;

  const track = <T>(promise: Promise<T>) => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => {});
    return promise;
  };

  // ---- REST -------------------------------------------------------------------------------

  function callResource(call: FakeCall) {
    const from = first(call.params, "From")!;
    const to = first(call.params, "To")!;
    if (!phoneNumberSids.has(from)) phoneNumberSids.set(from, randomSid("PN"));
    const base = `/${API_VERSION}/Accounts/${accountSid}/Calls/${call.sid}`;
    return {
      account_sid: accountSid,
      annotation: null,
      answered_by: call.answeredBy,
      api_version: API_VERSION,
      caller_name: null,
      date_created: rfc2822(call.dateCreated),
      date_updated: rfc2822(call.dateUpdated),
      direction: "outbound-api",
      duration: call.duration === null ? null : String(call.duration),
      end_time: call.endedAt ? rfc2822(call.endedAt) : null,
      forwarded_from: null,
      from,
      from_formatted: formatted(from),
      group_sid: null,
      parent_call_sid: null,
      phone_number_sid: phoneNumberSids.get(from),
      price: null,
      price_unit: "USD",
      queue_time: "0",
      sid: call.sid,
      start_time: call.startedAt ? rfc2822(call.startedAt) : null,
      status: call.status,
      subresource_uris: {
        notifications: `${base}/Notifications.json`,
        recordings: `${base}/Recordings.json`,
        payments: `${base}/Payments.json`,
        events: `${base}/Events.json`,
        siprec: `${base}/Siprec.json`,
        streams: `${base}/Streams.json`,
        transcriptions: `${base}/Transcriptions.json`,
        user_defined_message_subscriptions: `${base}/UserDefinedMessageSubscriptions.json`,
        user_defined_messages: `${base}/UserDefinedMessages.json`,
      },
      to,
      to_formatted: formatted(to),
      trunk_sid: null,
      uri: `${base}.json`,
    };
  }

  function send(res: http.ServerResponse, status: number, body: unknown) {
    res.writeHead(status, {
      "Content-Type": "application/json; charset=utf-8",
      "Twilio-Request-Id": randomSid("RQ"),
      "X-Home-Region": "us1",
      ...(status === 401 ? { "WWW-Authenticate": 'Basic realm="Twilio API"' } : {}),
    });
    res.end(status === 204 ? undefined : JSON.stringify(body));
  }

  function sendError(res: http.ServerResponse, error: TwilioError) {
    send(res, error.status, {
      code: error.code,
      message: error.message,
      more_info: `https://www.twilio.com/docs/errors/${error.code}`,
      status: error.status,
    });
  }

  function parseForm(text: string): FormParams {
    const params: FormParams = {};
    for (const [key, value] of new URLSearchParams(text)) {
      const existing = params[key];
      if (existing === undefined) params[key] = value;
      else params[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
    }
    return params;
  }

  function authorized(req: http.IncomingMessage) {
    const header = req.headers.authorization ?? "";
    if (!header.startsWith("Basic ")) return false;
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    return colon > 0 && decoded.slice(0, colon) === accountSid && decoded.slice(colon + 1) === authToken;
  }

  function validateCreate(params: FormParams): TwilioError | null {
    for (const key of Object.keys(params))
      if (!KNOWN_CREATE_PARAMS.has(key)) warnings.push(`Calls.json: unknown parameter ${key} (Twilio ignores it)`);
    for (const key of Object.keys(params)) {
      if (key !== "StatusCallbackEvent" && key !== "RecordingStatusCallbackEvent" && Array.isArray(params[key])) {
        return twilioError(400, 21200, `Parameter ${key} was given more than once`);
      }
    }
    const to = first(params, "To");
    const from = first(params, "From");
    if (!to) return twilioError(400, 21201, "No 'To' number is specified");
    if (!from) return twilioError(400, 21213, "No 'From' number is specified");
    if (!E164.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!ownedNumbers.includes(from)) {
      return twilioError(
        400,
        21210,
        `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`,
      );
    }
    const url = first(params, "Url");
    const twiml = first(params, "Twiml");
    if (url === undefined && twiml === undefined) {
      if (first(params, "ApplicationSid")) return twilioError(400, 21205, "The fake Twilio has no applications: use Url or Twiml.");
      return twilioError(400, 21205, "Either Url, Twiml or ApplicationSid must be provided.");
    }
    if (url !== undefined && !isHttpUrl(url)) return twilioError(400, 21205, `Url is not a valid URL: ${url}`);
    for (const name of ["StatusCallback", "FallbackUrl", "AsyncAmdStatusCallback"]) {
      const value = first(params, name);
      if (value !== undefined && !isHttpUrl(value)) return twilioError(400, 21205, `${name} is not a valid URL: ${value}`);
    }
    for (const name of ["Method", "StatusCallbackMethod", "FallbackMethod", "AsyncAmdStatusCallbackMethod"]) {
      const value = first(params, name);
      if (value !== undefined && !/^(GET|POST)$/i.test(value)) return twilioError(400, 21200, `${name} must be either GET or POST`);
    }
    const machineDetection = first(params, "MachineDetection");
    if (machineDetection !== undefined && machineDetection !== "Enable" && machineDetection !== "DetectMessageEnd") {
      return twilioError(400, 21200, `MachineDetection must be either Enable or DetectMessageEnd, not ${machineDetection}`);
    }
    const timeLimit = first(params, "TimeLimit");
    if (timeLimit !== undefined && (!/^\d+$/.test(timeLimit) || Number(timeLimit) < 1 || Number(timeLimit) > 14400)) {
      return twilioError(400, 13216, `Invalid TimeLimit value (${timeLimit})`);
    }
    const timeout = first(params, "Timeout");
    if (timeout !== undefined && (!/^\d+$/.test(timeout) || Number(timeout) < 1))
      return twilioError(400, 21208, `Invalid Timeout value (${timeout})`);
    const events = params.StatusCallbackEvent;
    for (const event of (Array.isArray(events) ? events : events ? [events] : []).flatMap((e) => e.split(/\s+/)).filter(Boolean)) {
      if (!STATUS_EVENTS.has(event))
        warnings.push(`Calls.json: StatusCallbackEvent ${event} is not an event Twilio knows (initiated ringing answered completed)`);
    }
    const blocked = blockedPrefixes.find((prefix) => to.startsWith(prefix));
    if (blocked) {
      return twilioError(
        400,
        21215,
        `Account not authorized to call ${to}. Perhaps you need to enable some international permissions: https://www.twilio.com/console/voice/calls/geo-permissions/low-risk`,
      );
    }
    return null;
  }

  function createCall(params: FormParams): FakeCall {
    const now = new Date();
    const to = first(params, "To")!;
    const call: FakeCall = {
      sid: randomSid("CA"),
      params,
      status: "queued",
      events: ["queued"],
      twiml: null,
      documents: [],
      said: [],
      answeredBy: null,
      dateCreated: now,
      dateUpdated: now,
      startedAt: null,
      endedAt: null,
      duration: null,
      hangupBy: null,
      streamSid: null,
      customParameters: null,
      errors: [],
    };
    const outcome = fake.nextOutcome ?? numberOutcomes.get(to) ?? "answer";
    fake.nextOutcome = undefined;
    calls.set(call.sid, call);
    runtimes.set(call.sid, {
      abort: new AbortController(),
      handle: null,
      callbackChain: Promise.resolve(),
      sequence: 0,
      outcome,
      dialed: false,
    });
    changes.emit("change", call.sid);
    return call;
  }

  async function handleRest(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = req.method ?? "GET";
    const params = method === "GET" ? parseForm(url.search.slice(1)) : parseForm(Buffer.concat(chunks).toString("utf8"));
    const ok = authorized(req);
    requests.push({ method, path: url.pathname, params, authorized: ok, at: performance.timeOrigin + performance.now() });
    if (!ok) return sendError(res, twilioError(401, 20003, "Authenticate"));

    const notFound = () => sendError(res, twilioError(404, 20404, `The requested resource ${url.pathname} was not found`));
    const notAllowed = () => sendError(res, twilioError(405, 20004, "Method not allowed"));
    const recordingPath = /^\/2010-04-01\/Accounts\/([^/]+?)\/Recordings\/([^/]+?)\.json$/.exec(url.pathname);
    if (recordingPath) {
      if (recordingPath[1] !== accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
      const recording = recordings.get(recordingPath[2]!);
      if (!recording || recording.deleted) return notFound();
      if (method === "DELETE") {
        recording.deleted = true;
        return send(res, 204, null);
      }
      if (method !== "GET") return notAllowed();
      return send(res, 200, {
        sid: recording.sid,
        account_sid: accountSid,
        call_sid: recording.callSid,
        duration: String(recording.duration),
        channels: recording.channels,
        status: "completed",
        source: "OutboundAPI",
        api_version: API_VERSION,
      });
    }
    const match = /^\/2010-04-01\/Accounts\/([^/]+?)(?:\/Calls(?:\/([^/]+?))?)?\.json$/.exec(url.pathname);
    if (!match) return notFound();
    const [, pathAccount, callSid] = match;
    if (pathAccount !== accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
    const isCalls = url.pathname.includes("/Calls");

    if (!isCalls) {
      if (method !== "GET" && method !== "POST") return notAllowed();
      if (method === "POST" && typeof params.FriendlyName === "string") account.friendly_name = params.FriendlyName;
      return send(res, 200, account);
    }

    if (!callSid) {
      if (method === "GET") {
        const pageSize = Math.min(1000, Number(first(params, "PageSize") ?? 50) || 50);
        const list = [...calls.values()]
          .filter((c) => !params.To || first(c.params, "To") === first(params, "To"))
          .filter((c) => !params.From || first(c.params, "From") === first(params, "From"))
          .filter((c) => !params.Status || c.status === first(params, "Status"))
          .reverse();
        const uri = `/${API_VERSION}/Accounts/${accountSid}/Calls.json?PageSize=${pageSize}&Page=0`;
        return send(res, 200, {
          calls: list.slice(0, pageSize).map(callResource),
          end: Math.min(list.length, pageSize) - 1,
          first_page_uri: uri,
          next_page_uri: null,
          page: 0,
          page_size: pageSize,
          previous_page_uri: null,
          start: 0,
          uri,
        });
      }
      if (method !== "POST") return notAllowed();
      const hang = hangs.findIndex((h) => h.to === undefined || h.to === first(params, "To"));
      if (hang >= 0) {
        const [held] = hangs.splice(hang, 1);
        held!.arrived({ remotePort: req.socket.remotePort ?? 0 });
        await Promise.race([held!.released, sleep(held!.ms, closed.signal)]);
        if (closing) return;
      }
      const failure = failures[0];
      if (failure) {
        if (--failure.times <= 0) failures.shift();
        return sendError(res, failure);
      }
      const invalid = validateCreate(params);
      if (invalid) return sendError(res, invalid);
      const call = createCall(params);
      send(res, 201, callResource(call));
      // Twilio places the call whether or not its answer reached the app (a client killed mid-request
      // never reads it): the call goes ahead once the answer is written, or once the connection is gone.
      if (autoDial) {
        let dialled = false;
        const go = () => {
          if (dialled) return;
          dialled = true;
          dial(call.sid);
        };
        if (res.destroyed || req.socket.destroyed) go();
        else {
          res.once("finish", go);
          res.once("close", go);
        }
      }
      return;
    }

    const call = calls.get(callSid);
    if (!call) return notFound();
    if (method === "GET") return send(res, 200, callResource(call));
    if (method === "DELETE") {
      calls.delete(callSid);
      return send(res, 204, null);
    }
    if (method !== "POST") return notAllowed();
    const status = first(params, "Status");
    if (status !== undefined) {
      if (status !== "completed" && status !== "canceled")
        return sendError(res, twilioError(400, 21200, `Status must be either canceled or completed, not ${status}`));
      const notAnswered = call.status === "queued" || call.status === "initiated" || call.status === "ringing";
      if (notAnswered) finish(call, "canceled", "app");
      else if (status === "completed" && call.status === "in-progress") finish(call, "completed", "app");
    }
    const timeLimit = first(params, "TimeLimit");
    if (timeLimit !== undefined) {
      if (!/^\d+$/.test(timeLimit) || Number(timeLimit) < 1 || Number(timeLimit) > 14400)
        return sendError(res, twilioError(400, 13216, `Invalid TimeLimit value (${timeLimit})`));
      call.params = { ...call.params, TimeLimit: timeLimit };
      if (call.status === "in-progress") armTimeLimit(call);
    }
    if (first(params, "Url") !== undefined || first(params, "Twiml") !== undefined) {
      // Redirecting a live call is not modelled; Twilio refuses it for a call that has ended.
      if (FINAL_STATUSES.includes(call.status)) return sendError(res, twilioError(400, 21220, "Call is not in-progress. Cannot redirect."));
      warnings.push(`Calls/${callSid}.json: redirecting a live call (Url/Twiml) is not modelled by the fake`);
    }
    call.dateUpdated = new Date();
    return send(res, 200, callResource(call));
  }

  // ---- Requests to the app ----------------------------------------------------------------

  function httpRequest(url: string, method: "GET" | "POST", headers: Record<string, string>, body: string) {
    return new Promise<{ status: number; contentType: string; text: string }>((resolve, reject) => {
      const target = new URL(url);
      const request = (target.protocol === "https:" ? https : http).request(
        target,
        {
          method,
          headers: { ...headers, ...(method === "POST" ? { "Content-Length": String(Buffer.byteLength(body)) } : {}) },
          agent: false,
          timeout: 15_000,
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on("data", (chunk: Buffer) => chunks.push(chunk));
          response.on("end", () =>
            resolve({
              status: response.statusCode ?? 0,
              contentType: String(response.headers["content-type"] ?? ""),
              text: Buffer.concat(chunks).toString("utf8"),
            }),
          );
          response.on("error", reject);
        },
      );
      request.on("timeout", () => request.destroy(new Error("Timed out after 15 s")));
      request.on("error", reject);
      request.end(method === "POST" ? body : undefined);
    });
  }

  /** Signs and sends one request to the app, records it, and returns the answer (null: nothing answered). */
  async function deliver(
    kind: CallbackDelivery["kind"],
    callSid: string,
    rawUrl: string,
    rawMethod: string | undefined,
    params: Record<string, string>,
  ) {
    const method = (rawMethod ?? "POST").toUpperCase() === "GET" ? "GET" : "POST";
    let url = rawUrl;
    let body = "";
    let signedParams: Record<string, string> = params;
    if (method === "GET") {
      const query = new URLSearchParams(params).toString();
      url = rawUrl + (rawUrl.includes("?") ? "&" : "?") + query;
      signedParams = {};
    } else {
      body = new URLSearchParams(params).toString();
    }
    const headers: Record<string, string> = {
      "X-Twilio-Signature": twilio.getExpectedTwilioSignature(authToken, url, signedParams),
      "I-Twilio-Idempotency-Token": randomUUID(),
      "User-Agent": "TwilioProxy/1.1",
      Accept: "*/*",
      "Cache-Control": "max-age=259200",
      "X-Home-Region": "us1",
      ...(method === "POST" ? { "Content-Type": "application/x-www-form-urlencoded" } : {}),
    };
    const delivery: CallbackDelivery = { kind, callSid, url, method, params, headers, body, status: 0 };
    callbackDeliveries.push(delivery);
    return sendDelivery(delivery);
  }

  async function sendDelivery(delivery: CallbackDelivery) {
    if (closing) return null;
    try {
      const answer = await httpRequest(delivery.url, delivery.method, delivery.headers, delivery.body);
      delivery.status = answer.status;
      return answer;
    } catch (error) {
      delivery.error = (error as Error).message;
      return null;
    }
  }

  function callParams(call: FakeCall, status: string): Record<string, string> {
    const from = first(call.params, "From")!;
    const to = first(call.params, "To")!;
    return {
      AccountSid: accountSid,
      ApiVersion: API_VERSION,
      CallSid: call.sid,
      CallStatus: status,
      Called: to,
      Caller: from,
      Direction: "outbound-api",
      From: from,
      To: to,
    };
  }

  function requestedEvents(call: FakeCall) {
    const raw = call.params.StatusCallbackEvent;
    return new Set((Array.isArray(raw) ? raw : raw ? [raw] : []).flatMap((e) => e.split(/\s+/)));
  }

  /** Queues a status callback: each call's callbacks go out one after the other. */
  function statusCallback(call: FakeCall, status: CallStatus) {
    const url = first(call.params, "StatusCallback");
    const runtime = runtimes.get(call.sid);
    if (!url || !runtime) return;
    const final = FINAL_STATUSES.includes(status);
    const event = status === "in-progress" ? "answered" : final ? "completed" : status;
    if (!final && !requestedEvents(call).has(event)) return;
    const params: Record<string, string> = {
      ...callParams(call, status),
      Timestamp: rfc2822(new Date()),
      CallbackSource: "call-progress-events",
      SequenceNumber: String(runtime.sequence++),
    };
    if (final) {
      const seconds = call.duration ?? 0;
      params.CallDuration = String(seconds);
      params.Duration = String(Math.ceil(seconds / 60));
      params.SipResponseCode = SIP_CODES[status] ?? "200";
    }
    const method = first(call.params, "StatusCallbackMethod");
    runtime.callbackChain = track(runtime.callbackChain.then(() => deliver("status", call.sid, url, method, params)).then(() => undefined));
  }

  function transition(call: FakeCall, status: CallStatus) {
    call.status = status;
    call.events.push(status);
    call.dateUpdated = new Date();
    statusCallback(call, status);
    changes.emit("change", call.sid);
  }

  function armTimeLimit(call: FakeCall) {
    const runtime = runtimes.get(call.sid);
    if (!runtime || !call.startedAt) return;
    if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
    const limit = Number(first(call.params, "TimeLimit") ?? 14400);
    const remaining = call.startedAt.getTime() + limit * 1000 - Date.now();
    runtime.timeLimitTimer = setTimeout(() => finish(call, "completed", "time-limit"), Math.max(0, remaining));
  }

  /** Ends the call (once): stops its stream, records it, sends the final status callback. */
  function finish(call: FakeCall, status: CallStatus, hangupBy: FakeCall["hangupBy"]) {
    const runtime = runtimes.get(call.sid);
    if (FINAL_STATUSES.includes(call.status)) return;
    call.endedAt = new Date();
    if (call.startedAt && status === "completed") {
      const limit = Number(first(call.params, "TimeLimit") ?? 14400);
      call.duration =
        hangupBy === "time-limit" ? limit : Math.max(1, Math.ceil((call.endedAt.getTime() - call.startedAt.getTime()) / 1000));
      call.hangupBy = hangupBy;
    } else {
      call.duration = 0;
      call.hangupBy = status === "canceled" ? hangupBy : null;
    }
    if (runtime) {
      if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
      runtime.abort.abort();
      if (runtime.handle?.isOpen) void runtime.handle.stop();
    }
    transition(call, status);
    if (status === "completed" && call.startedAt && first(call.params, "Record") === "true") record(call);
  }

  /** The answered call's recording, and its signed status callback after the call's own. */
  function record(call: FakeCall) {
    const channels = first(call.params, "RecordingChannels") === "dual" ? 2 : 1;
    const recording = { sid: randomSid("RE"), callSid: call.sid, duration: call.duration ?? 0, channels, deleted: false };
    recordings.set(recording.sid, recording);
    const target = first(call.params, "RecordingStatusCallback");
    const runtime = runtimes.get(call.sid);
    if (!target || !runtime) return;
    const params = {
      AccountSid: accountSid,
      CallSid: call.sid,
      RecordingSid: recording.sid,
      RecordingUrl: `https://api.twilio.com/${API_VERSION}/Accounts/${accountSid}/Recordings/${recording.sid}`,
      RecordingStatus: "completed",
      RecordingDuration: String(recording.duration),
      RecordingChannels: String(channels),
      RecordingStartTime: rfc2822(call.startedAt!),
      RecordingSource: "OutboundAPI",
      RecordingTrack: "both",
      ErrorCode: "0",
    };
    runtime.callbackChain = track(
      runtime.callbackChain
        .then(() => deliver("recording", call.sid, target, first(call.params, "RecordingStatusCallbackMethod"), params))
        .then(() => undefined),
    );
  }

  async function fetchTwiml(
    call: FakeCall,
    kind: CallbackDelivery["kind"],
    url: string,
    method: string | undefined,
    extra: Record<string, string> = {},
  ) {
    const answer = await deliver(kind, call.sid, url, method, { ...callParams(call, call.status), ...extra });
    if (!answer || answer.status < 200 || answer.status >= 300) {
      call.errors.push({ code: 11200, message: `HTTP retrieval failure: ${url} answered ${answer ? answer.status : "nothing"}` });
      return null;
    }
    if (!/^(text\/xml|application\/xml|text\/html)\b/i.test(answer.contentType)) {
      call.errors.push({ code: 12300, message: `Invalid Content-Type "${answer.contentType}" from ${url}` });
      return null;
    }
    return answer.text;
  }

  /** Runs one TwiML document; resolves when it has ended (or the call has). */
  async function execute(call: FakeCall, xml: string, documentUrl: string | undefined, depth = 0): Promise<void> {
    const runtime = runtimes.get(call.sid)!;
    const { signal } = runtime.abort;
    const ended = () => signal.aborted || FINAL_STATUSES.includes(call.status);
    call.documents.push(xml);
    call.twiml ??= xml;
    let root: XmlElement;
    try {
      root = parseXml(xml);
    } catch (error) {
      call.errors.push({ code: 12100, message: `Document parse failure: ${(error as Error).message}` });
      return;
    }
    if (root.name !== "Response") {
      call.errors.push({ code: 12100, message: `Document parse failure: the root element is <${root.name}>, not <Response>` });
      return;
    }
    const resolveUrl = (url: string) => (documentUrl ? new URL(url, documentUrl).toString() : url);

    for (const verb of elements(root)) {
      if (ended()) return;
      switch (verb.name) {
        case "Say": {
          const loops = Number(verb.attrs.loop ?? 1);
          const text = textOf(verb);
          for (let n = 0; (loops === 0 || n < loops) && !ended(); n++) {
            call.said.push(text);
            await sleep(timing.sayMs, signal);
          }
          break;
        }
        case "Pause":
          await sleep(Number(verb.attrs.length ?? 1) * 1000 * timing.pauseScale, signal);
          break;
        case "Hangup":
        case "Reject":
          return;
        case "Redirect": {
          if (depth > 20) {
            call.errors.push({ code: 12100, message: "Too many redirects" });
            return;
          }
          const next = await fetchTwiml(call, "redirect", resolveUrl(textOf(verb)), verb.attrs.method);
          if (next !== null && !ended()) await execute(call, next, resolveUrl(textOf(verb)), depth + 1);
          return;
        }
        case "Connect": {
          const stream = elements(verb).find((e) => e.name === "Stream");
          if (!stream) {
            call.errors.push({ code: 12200, message: `Unsupported <Connect> noun: ${elements(verb)[0]?.name ?? "none"}` });
            break;
          }
          await runStream(call, stream);
          if (ended()) return;
          if (verb.attrs.action) {
            const next = await fetchTwiml(call, "action", resolveUrl(verb.attrs.action), verb.attrs.method);
            if (next !== null && !ended()) await execute(call, next, resolveUrl(verb.attrs.action), depth + 1);
            return;
          }
          break;
        }
        default:
          call.errors.push({ code: 12200, message: `Schema validation warning: <${verb.name}> is not modelled by the fake Twilio` });
      }
    }
  }

  async function runStream(call: FakeCall, stream: XmlElement) {
    const runtime = runtimes.get(call.sid)!;
    const url = stream.attrs.url ?? "";
    if (unreachableStreams.has(String(first(call.params, "To")))) {
      call.errors.push({ code: 31920, message: "Stream - WebSocket - Handshake Error: connect ETIMEDOUT" });
      return;
    }
    if (!/^wss?:\/\//.test(url)) {
      call.errors.push({ code: 31920, message: `Stream - WebSocket - Handshake Error: invalid url "${url}"` });
      return;
    }
    const customParameters: Record<string, string> = {};
    for (const parameter of elements(stream).filter((e) => e.name === "Parameter")) {
      if (parameter.attrs.name !== undefined) customParameters[parameter.attrs.name] = parameter.attrs.value ?? "";
    }
    const streamStatus = (handle: MediaStreamHandle, event: string) => {
      if (!stream.attrs.statusCallback) return;
      const params = {
        AccountSid: accountSid,
        CallSid: call.sid,
        StreamSid: handle.streamSid,
        StreamName: stream.attrs.name ?? handle.streamSid,
        StreamEvent: event,
        Timestamp: new Date().toISOString(),
      };
      const target = stream.attrs.statusCallback;
      runtime.callbackChain = track(
        runtime.callbackChain
          .then(() => deliver("stream-status", call.sid, target, stream.attrs.statusCallbackMethod, params))
          .then(() => undefined),
      );
    };
    let handle: MediaStreamHandle;
    try {
      handle = await connectMediaStream({ url, authToken, accountSid, callSid: call.sid, customParameters });
    } catch (error) {
      call.errors.push({ code: 31920, message: `Stream - WebSocket - Handshake Error: ${(error as Error).message}` });
      return;
    }
    if (runtime.abort.signal.aborted || closing) {
      await handle.stop();
      return;
    }
    runtime.handle = handle;
    call.streamSid = handle.streamSid;
    call.customParameters = customParameters;
    streamStatus(handle, "stream-started");
    changes.emit("change", call.sid);
    if (realtimeAudio) handle.startRealtimeAudio({ speech: false });
    const closed = await handle.closed;
    for (const error of handle.errors) call.errors.push({ code: error.code, message: error.message });
    streamStatus(handle, "stream-stopped");
    if (closing) return;
    if (!FINAL_STATUSES.includes(call.status) && closed.initiator === "twilio") finish(call, "completed", "caller");
  }

  async function run(call: FakeCall) {
    const runtime = runtimes.get(call.sid)!;
    const { signal } = runtime.abort;
    const ended = () => signal.aborted || FINAL_STATUSES.includes(call.status);
    transition(call, "initiated");
    await sleep(timing.ringMs, signal);
    if (ended()) return;
    if (runtime.outcome === "failed") return finish(call, "failed", null);
    transition(call, "ringing");
    await sleep(timing.ringMs, signal);
    if (ended()) return;
    if (runtime.outcome === "busy" || runtime.outcome === "no-answer") return finish(call, runtime.outcome, null);

    call.startedAt = new Date();
    call.status = "in-progress";
    call.events.push("in-progress");
    call.dateUpdated = new Date();
    changes.emit("change", call.sid);
    armTimeLimit(call);

    const machineDetection = first(call.params, "MachineDetection");
    const asyncAmd = first(call.params, "AsyncAmd") === "true";
    const answeredBy = runtime.outcome === "machine" ? (machineDetection === "Enable" ? "machine_start" : "machine_end_beep") : "human";
    const amd: Record<string, string> = {};
    if (machineDetection) {
      call.answeredBy = answeredBy;
      if (!asyncAmd) {
        amd.AnsweredBy = answeredBy;
        amd.MachineDetectionDuration = runtime.outcome === "machine" ? "4210" : "1530";
      }
    }

    let xml: string | null;
    let documentUrl: string | undefined;
    const twiml = first(call.params, "Twiml");
    if (twiml !== undefined) {
      xml = twiml;
    } else {
      documentUrl = first(call.params, "Url")!;
      xml = await fetchTwiml(call, "voice", documentUrl, first(call.params, "Method"), amd);
      const fallback = first(call.params, "FallbackUrl");
      if (xml === null && fallback && !ended()) {
        documentUrl = fallback;
        xml = await fetchTwiml(call, "fallback", fallback, first(call.params, "FallbackMethod"), {
          ...amd,
          ErrorCode: "11200",
          ErrorUrl: first(call.params, "Url")!,
        });
      }
    }
    if (ended()) return;
    statusCallback(call, "in-progress");
    if (machineDetection && asyncAmd && first(call.params, "AsyncAmdStatusCallback")) {
      const target = first(call.params, "AsyncAmdStatusCallback")!;
      const params = {
        AccountSid: accountSid,
        CallSid: call.sid,
        AnsweredBy: answeredBy,
        MachineDetectionDuration: runtime.outcome === "machine" ? "4210" : "1530",
      };
      runtime.callbackChain = track(
        runtime.callbackChain
          .then(() => deliver("amd", call.sid, target, first(call.params, "AsyncAmdStatusCallbackMethod"), params))
          .then(() => undefined),
      );
    }
    if (xml !== null && !ended()) await execute(call, xml, documentUrl);
    finish(call, "completed", "app");
  }

  function dial(sid: string) {
    const call = calls.get(sid);
    const runtime = runtimes.get(sid);
    if (!call || !runtime || runtime.dialed || closing) return;
    runtime.dialed = true;
    void track(
      run(call).catch((error: unknown) => {
        call.errors.push({ code: 0, message: `Fake Twilio failure: ${(error as Error).message}` });
        finish(call, "failed", null);
      }),
    );
  }

  // ---- Test controls -----------------------------------------------------------------------

  function waitFor<T>(
    sid: string,
    check: (call: FakeCall) => T | undefined,
    describe: string,
    timeoutMs: number,
    give_up?: (call: FakeCall) => string | undefined,
  ) {
    return new Promise<T>((resolve, reject) => {
      const test = () => {
        const call = calls.get(sid);
        if (!call) return false;
        const value = check(call);
        if (value !== undefined) {
          done();
          resolve(value);
          return true;
        }
        const why = give_up?.(call);
        if (why) {
          done();
          reject(new Error(why));
          return true;
        }
        return false;
      };
      const listener = (changed: string) => {
        if (changed === sid) test();
      };
      const timer = setTimeout(() => {
        done();
        const call = calls.get(sid);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${describe} of call ${sid} (status ${call?.status ?? "unknown"}, events ${call?.events.join(" → ") ?? "-"}, errors ${JSON.stringify(call?.errors ?? [])})`,
          ),
        );
      }, timeoutMs);
      function done() {
        clearTimeout(timer);
        changes.off("change", listener);
      }
      changes.on("change", listener);
      test();
    });
  }

  const server = http.createServer((req, res) => {
    handleRest(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendError(res, twilioError(500, 20500, `Internal Server Error: ${(error as Error).message}`));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const fake = {
    url,
    accountSid,
    authToken,
    ownedNumbers,
    blockedPrefixes,
    account,
    calls,
    requests,
    callbackDeliveries,
    warnings,
    nextOutcome: undefined as CallOutcome | undefined,
    unreachableStreams,
    recordings,
    setOutcome(number: string, outcome: CallOutcome | null) {
      if (outcome === null) numberOutcomes.delete(number);
      else numberOutcomes.set(number, outcome);
    },
    failNext(status: number, error: { code: number; message: string }, times = 1) {
      failures.push({ status, code: error.code, message: error.message, times });
    },
    clearFailures() {
      failures.length = 0;
    },
    hangNext(options: { to?: string; ms?: number } = {}) {
      let arrived!: (from: { remotePort: number }) => void;
      let release!: () => void;
      const handle = {
        /** Resolves when the request came, with the port it came from (which process sent it). */
        arrived: new Promise<{ remotePort: number }>((resolve) => (arrived = resolve)),
        release: () => release(),
      };
      hangs.push({ to: options.to, ms: options.ms ?? 60_000, arrived, released: new Promise<void>((resolve) => (release = resolve)) });
      return handle;
    },
    statusCallbacks(sid: string) {
      return callbackDeliveries.filter((d) => d.kind === "status" && d.callSid === sid && d.replayOf === undefined);
    },
    waitForStatus(sid: string, status: CallStatus, timeoutMs = 5000) {
      return waitFor(
        sid,
        (call) => (call.events.includes(status) ? call : undefined),
        `status ${status}`,
        timeoutMs,
        (call) =>
          FINAL_STATUSES.includes(call.status)
            ? `Call ${sid} ended ${call.status} (${call.events.join(" → ")}) without reaching ${status}; errors ${JSON.stringify(call.errors)}`
            : undefined,
      );
    },
    stream(sid: string, timeoutMs = 5000) {
      return waitFor(
        sid,
        () => runtimes.get(sid)?.handle ?? undefined,
        "the media stream",
        timeoutMs,
        (call) =>
          FINAL_STATUSES.includes(call.status)
            ? `Call ${sid} ended ${call.status} without a media stream; errors ${JSON.stringify(call.errors)}`
            : undefined,
      );
    },
    dial,
    hangup(sid: string) {
      const call = calls.get(sid);
      if (!call) throw new Error(`No call ${sid}`);
      if (call.status === "in-progress") finish(call, "completed", "caller");
    },
    async resendCallback(index: number) {
      const original = callbackDeliveries[index];
      if (!original) throw new Error(`No callback delivery #${index}`);
      const replay: CallbackDelivery = {
        ...original,
        headers: { ...original.headers },
        params: { ...original.params },
        status: 0,
        replayOf: index,
      };
      delete replay.error;
      callbackDeliveries.push(replay);
      await sendDelivery(replay);
      return replay.status;
    },
    async flush() {
      while (pending.size > 0) await Promise.allSettled([...pending]);
    },
    async close() {
      closing = true;
      closed.abort();
      for (const runtime of runtimes.values()) {
        if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
        runtime.abort.abort();
        if (runtime.handle?.isOpen) void runtime.handle.close();
      }
      await Promise.race([Promise.allSettled([...pending]), sleep(3000)]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return fake;
}

export type FakeTwilio = Awaited<ReturnType<typeof startFakeTwilio>>;
