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
 *   fake.loseStatusCallback(to, status = "completed")   the next status callback with that CallStatus of a call
 *                       to that number is lost on the way (recorded in callbackDeliveries with status 0 and an
 *                       error, not sent, never retried), as a network blip or an app restart loses one
 *   fake.unreachableStreams   To numbers whose media stream cannot reach the app (a network failure between
 *                       Twilio and the app): the <Stream> fails with 31920 and the TwiML goes on; mutable Set
 *   fake.silentStreamDrops   To numbers whose media stream's far end can vanish unseen (the bridge's host lost
 *                       power or its network, so no close reaches Twilio): when the app's side of the socket
 *                       goes, the call stays in progress, its audio going nowhere, until it is hung up (REST,
 *                       the caller, its time limit); mutable Set
 *   fake.failNext(status, { code, message }, times = 1)   the next N call creations answer that error
 *   fake.failNextFetch(status, { code, message }, times = 1)   the next N call fetches (GET Calls/{sid}) answer that error
 *   fake.clearFailures()   drops the failures failNext and failNextFetch queued and not yet answered (the outage is over)
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
 *   GET  /2010-04-01/Accounts/{Sid}/Calls/{CallSid}.json     fetch; unknown sid 404 code 20404. The Call's status is
 *        queued|ringing|in-progress|completed|busy|no-answer|failed|canceled (no "initiated": that is a callback
 *        event), duration a string of seconds once it ended (null before), answered_by, start_time/end_time
 *        (RFC 2822, null until answered / ended), whether or not its status callbacks reached the app.
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
 * Messages (SMS, ./messages.ts): POST /2010-04-01/Accounts/{Sid}/Messages.json checks as Twilio does, in its
 * order: To (21604 "A 'To' phone number is required."), From (21603), Body (21602 "Message body is required."),
 * To E.164 (21211), From one of ownedNumbers (21606), Body up to 1600 characters (21617), StatusCallback a URL
 * (21609), To matching smsBlockedPrefixes (21408, region not enabled), and To that texted STOP to that From
 * (21610 "Attempt to send to unsubscribed recipient"); then 201 with the Message (sid "SM…", status "queued",
 * num_segments by GSM-7/UCS-2). No callback for the initial status; then signed callbacks to StatusCallback
 * (MessageSid, MessageStatus/SmsStatus sent, then delivered, or undelivered with ErrorCode 30003 for a To in
 * undeliverableNumbers; for a To in callbacksBeforeAnswer they reach the app before the 201 does). GET Messages/{sid}.json fetches one. fake.messages, fake.sentMessages(to?),
 * fake.refusedMessages ({ params, error }), fake.failNextMessage(status, { code, message }),
 * fake.waitForMessageStatus(sid, status), and fake.sendSms({ from, to, body, url, signWith? }): someone texts
 * one of the account's numbers: Twilio's STOP filtering (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE,
 * OPTOUT stop that number's messages from `to`; START, YES, UNSTOP lift it), then the signed POST of Twilio's
 * incoming-message parameters (MessageSid, SmsSid, SmsStatus=received, Body, From, To, NumMedia, NumSegments,
 * AccountSid, ApiVersion, OptOutType for a keyword) to the app's messaging webhook; resolves with its answer.
 * Phone numbers (./incoming-numbers.ts): GET /2010-04-01/Accounts/{Sid}/IncomingPhoneNumbers.json lists the account's
 * numbers (options.incomingNumbers, by default one per owned number; fake.addIncomingNumber adds one) with Twilio's
 * paging (PageSize 1..1000, default 50; next_page_uri with Page and PageToken, null on the last page; PhoneNumber,
 * FriendlyName filters); GET/POST/DELETE IncomingPhoneNumbers/{PN…}.json fetch, update (VoiceUrl, VoiceMethod,
 * SmsUrl, SmsMethod, StatusCallback…; a URL not absolute http(s) 400 21402, a method not GET/POST 400 21200) and
 * release; an unknown SID 404 20404. fake.incomingNumbers (Map PN… → { phoneNumber, voiceUrl, smsUrl, updates, … }),
 * fake.incomingNumber(phone).
 * Incoming calls (./inbound.ts): fake.inboundCall({ from, to, url?, statusCallback?, statusCallbackEvents? }) rings
 * (url and statusCallback default to the number's VoiceUrl and StatusCallback, as Twilio's)
 * one of the account's numbers: the signed POST to the number's voice URL with the standard parameters
 * (AccountSid, ApiVersion, CallSid, CallStatus=ringing, Called, Caller, Direction=inbound, From, To, and
 * CallerCountry/CalledCountry/FromCountry/ToCountry), then its TwiML, the call in-progress from the answer; the
 * number's StatusCallback gets the final status (CallDuration, Duration) and the events listed. A REST update
 * with Twiml or Url of a call in a <Connect><Stream> stops the stream and runs the new instructions.
 * <Dial> (text or <Number>) records fake.calls.get(sid).dialled ({ number, attrs, status }: completed, or the
 * setOutcome of that number) and asks its action (DialCallStatus, DialCallSid, DialCallDuration). <Record>
 * takes what fake.setVoicemail(from, { transcript, seconds }) gave (default a short message), keeps the
 * recording, asks its action (default the document's URL) with RecordingUrl, RecordingDuration, RecordingSid,
 * and with transcribe="true" posts the transcribeCallback (TranscriptionSid, TranscriptionText,
 * TranscriptionStatus completed|failed, TranscriptionUrl, RecordingSid, RecordingUrl and the call's
 * parameters); a maxLength above 120 is warning 13615 and no transcription; a 0 s recording asks no action.
 * Not modelled: <Gather>, <Play>, <Start><Stream> (recorded as error 12200), conferences, real
 * ringing/answer delays (Timeout is validated, not waited for), prices.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { callEndpoint, createCallEndpoint, listCalls } from "./calls";
import { authorized, parseForm, send, sendError } from "./http";
import { dial, finish } from "./lifecycle";
import {
  addIncomingNumber,
  incomingNumberByPhone,
  incomingNumberEndpoint,
  listIncomingNumbers,
  type IncomingNumberSeed,
} from "./incoming-numbers";
import { inboundCall, type InboundCallOptions } from "./inbound";
import { createMessageEndpoint, inboundMessage, messageEndpoint, type FakeMessage } from "./messages";
import { recordingEndpoint } from "./recordings";
import { createState } from "./state";
import { FINAL_STATUSES, sleep, twilioError } from "./util";
import { sendDelivery } from "./webhooks";

export { parseXml, type XmlElement } from "./xml";

export type CallOutcome = "answer" | "busy" | "no-answer" | "failed" | "machine";
export type CallStatus = "queued" | "initiated" | "ringing" | "in-progress" | "completed" | "busy" | "no-answer" | "failed" | "canceled";

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
  /** "inbound": someone rang one of the account's numbers (fake.inboundCall); else placed through the API. */
  direction: "inbound" | "outbound-api";
  /** The numbers a <Dial> of this call rang, in order, with the verb's attributes. */
  dialled: { number: string; attrs: Record<string, string>; status: string }[];
}

export interface CallbackDelivery {
  kind:
    | "status"
    | "voice"
    | "action"
    | "redirect"
    | "amd"
    | "stream-status"
    | "fallback"
    | "recording"
    | "transcription"
    | "message-status"
    | "inbound-message";
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
  /**
   * The account's numbers (IncomingPhoneNumbers); by default one for each of `ownedNumbers`, with
   * no voice or messaging URL set.
   */
  incomingNumbers?: IncomingNumberSeed[];
  /** Send live silence on every stream the fake opens (default true, as a real call does). */
  realtimeAudio?: boolean;
  timing?: { ringMs?: number; sayMs?: number; pauseScale?: number };
}

// ---------------------------------------------------------------------------------------------

export async function startFakeTwilio(options: FakeTwilioOptions = {}) {
  const state = createState(options);
  for (const seed of options.incomingNumbers ?? state.ownedNumbers.map((phoneNumber) => ({ phoneNumber }))) addIncomingNumber(state, seed);

  async function handleRest(req: http.IncomingMessage, res: http.ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? "/", "http://localhost");
    const method = req.method ?? "GET";
    const params = method === "GET" ? parseForm(url.search.slice(1)) : parseForm(Buffer.concat(chunks).toString("utf8"));
    const ok = authorized(state, req);
    state.requests.push({ method, path: url.pathname, params, authorized: ok, at: performance.timeOrigin + performance.now() });
    if (!ok) return sendError(res, twilioError(401, 20003, "Authenticate"));

    const notFound = () => sendError(res, twilioError(404, 20404, `The requested resource ${url.pathname} was not found`));
    const notAllowed = () => sendError(res, twilioError(405, 20004, "Method not allowed"));
    const recordingPath = /^\/2010-04-01\/Accounts\/([^/]+?)\/Recordings\/([^/]+?)\.json$/.exec(url.pathname);
    if (recordingPath) {
      if (recordingPath[1] !== state.accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
      return recordingEndpoint(state, res, method, recordingPath[2]!, notFound, notAllowed);
    }
    const numberPath = /^\/2010-04-01\/Accounts\/([^/]+?)\/IncomingPhoneNumbers(?:\/([^/]+?))?\.json$/.exec(url.pathname);
    if (numberPath) {
      if (numberPath[1] !== state.accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
      if (numberPath[2]) return incomingNumberEndpoint(state, res, method, params, numberPath[2], notFound, notAllowed);
      if (method !== "GET") return notAllowed();
      return listIncomingNumbers(state, res, params);
    }
    const messagePath = /^\/2010-04-01\/Accounts\/([^/]+?)\/Messages(?:\/([^/]+?))?\.json$/.exec(url.pathname);
    if (messagePath) {
      if (messagePath[1] !== state.accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
      if (messagePath[2]) return messageEndpoint(state, res, method, messagePath[2], notFound);
      if (method !== "POST") return notAllowed();
      return createMessageEndpoint(state, res, params);
    }
    const match = /^\/2010-04-01\/Accounts\/([^/]+?)(?:\/Calls(?:\/([^/]+?))?)?\.json$/.exec(url.pathname);
    if (!match) return notFound();
    const [, pathAccount, callSid] = match;
    if (pathAccount !== state.accountSid) return sendError(res, twilioError(401, 20003, "Authenticate"));
    const isCalls = url.pathname.includes("/Calls");

    if (!isCalls) {
      if (method !== "GET" && method !== "POST") return notAllowed();
      if (method === "POST" && typeof params.FriendlyName === "string") state.account.friendly_name = params.FriendlyName;
      return send(res, 200, state.account);
    }

    if (!callSid) {
      if (method === "GET") return listCalls(state, res, params);
      if (method !== "POST") return notAllowed();
      return createCallEndpoint(state, req, res, params);
    }

    return callEndpoint(state, res, method, params, callSid, notFound, notAllowed);
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
        const call = state.calls.get(sid);
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
        const call = state.calls.get(sid);
        reject(
          new Error(
            `Timed out after ${timeoutMs} ms waiting for ${describe} of call ${sid} (status ${call?.status ?? "unknown"}, events ${call?.events.join(" → ") ?? "-"}, errors ${JSON.stringify(call?.errors ?? [])})`,
          ),
        );
      }, timeoutMs);
      function done() {
        clearTimeout(timer);
        state.changes.off("change", listener);
      }
      state.changes.on("change", listener);
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
    accountSid: state.accountSid,
    authToken: state.authToken,
    ownedNumbers: state.ownedNumbers,
    blockedPrefixes: state.blockedPrefixes,
    account: state.account,
    calls: state.calls,
    /** The account's numbers (IncomingPhoneNumbers) by SID: voiceUrl, smsUrl, updates (each update's form). */
    incomingNumbers: state.incomingNumbers,
    /** Adds a number to the account (as buying one in Twilio's console would). */
    addIncomingNumber(seed: IncomingNumberSeed) {
      return addIncomingNumber(state, seed);
    },
    /** The account's number with this E.164 phone number, if any. */
    incomingNumber(phoneNumber: string) {
      return incomingNumberByPhone(state, phoneNumber);
    },
    requests: state.requests,
    callbackDeliveries: state.callbackDeliveries,
    warnings: state.warnings,
    nextOutcome: undefined as CallOutcome | undefined,
    unreachableStreams: state.unreachableStreams,
    silentStreamDrops: state.silentStreamDrops,
    recordings: state.recordings,
    /** Every message, sent (outbound-api) and received (inbound), by MessageSid. */
    messages: state.messages,
    /** The messages the app had Twilio send, in order. */
    sentMessages(to?: string): FakeMessage[] {
      return [...state.messages.values()].filter((m) => m.direction === "outbound-api" && (to === undefined || m.to === to));
    },
    /** Message creations refused, with Twilio's error (21211, 21610, …). */
    refusedMessages: state.refusedMessages,
    smsBlockedPrefixes: state.smsBlockedPrefixes,
    undeliverableNumbers: state.undeliverableNumbers,
    /** To numbers whose status callbacks reach the app before the message creation's 201 does. */
    callbacksBeforeAnswer: state.callbacksBeforeAnswer,
    failNextMessage(status: number, error: { code: number; message: string }) {
      state.messageFailures.push({ status, code: error.code, message: error.message });
    },
    /**
     * A person texts `to` (one of the account's numbers): Twilio's STOP filtering, then the signed
     * POST to the app's messaging webhook `url` (signed with `signWith` instead, to forge one).
     * Resolves with the app's answer (status, Content-Type, body: the TwiML).
     */
    sendSms(options: { from: string; to: string; body: string; url: string; signWith?: string }) {
      return inboundMessage(state, options);
    },
    /** Resolves once the message reached that status (sent, delivered, undelivered). */
    waitForMessageStatus(sid: string, status: string, timeoutMs = 5000) {
      return new Promise<FakeMessage>((resolve, reject) => {
        const check = () => {
          const message = state.messages.get(sid);
          if (message?.events.includes(status as never)) {
            done();
            resolve(message);
          }
        };
        const listener = (changed: string) => changed === sid && check();
        const timer = setTimeout(() => {
          done();
          reject(new Error(`Timed out waiting for message ${sid} to be ${status}`));
        }, timeoutMs);
        function done() {
          clearTimeout(timer);
          state.changes.off("message", listener);
        }
        state.changes.on("message", listener);
        check();
      });
    },
    /**
     * Someone rings one of the account's numbers (`to`): the signed POST of an incoming call to the
     * number's voice URL, then its TwiML run as Twilio does. Resolves with the call once the first
     * document came (call.twiml; null when the app answered none).
     */
    inboundCall(options: Omit<InboundCallOptions, "url"> & { url?: string }) {
      // As Twilio does: the number's own VoiceUrl and StatusCallback, unless the test names them.
      const number = incomingNumberByPhone(state, options.to);
      const url = options.url ?? number?.voiceUrl;
      if (!url) throw new Error(`fake Twilio: ${options.to} has no VoiceUrl`);
      const statusCallback = options.statusCallback ?? (number?.statusCallback || undefined);
      return inboundCall(state, { ...options, url, ...(statusCallback ? { statusCallback } : {}) });
    },
    /** What a caller says into a <Record> (its transcription; null: the transcription fails) and for how long. */
    setVoicemail(from: string, voicemail: { transcript: string | null; seconds?: number }) {
      state.voicemails.set(from, { transcript: voicemail.transcript, seconds: voicemail.seconds ?? 6 });
    },
    /** The next `status` callback of a call to `to` is lost on the way and, as Twilio does, not retried. */
    loseStatusCallback(to: string, status: CallStatus = "completed") {
      const lost = state.lostCallbacks.get(to) ?? new Set<string>();
      lost.add(status);
      state.lostCallbacks.set(to, lost);
    },
    setOutcome(number: string, outcome: CallOutcome | null) {
      if (outcome === null) state.numberOutcomes.delete(number);
      else state.numberOutcomes.set(number, outcome);
    },
    failNext(status: number, error: { code: number; message: string }, times = 1) {
      state.failures.push({ status, code: error.code, message: error.message, times });
    },
    /** The next `times` fetches of a call (GET Calls/{sid}) answer this error, as an API in trouble does. */
    failNextFetch(status: number, error: { code: number; message: string }, times = 1) {
      state.fetchFailures.push({ status, code: error.code, message: error.message, times });
    },
    clearFailures() {
      state.failures.length = 0;
      state.fetchFailures.length = 0;
    },
    hangNext(options: { to?: string; ms?: number } = {}) {
      let arrived!: (from: { remotePort: number }) => void;
      let release!: () => void;
      const handle = {
        /** Resolves when the request came, with the port it came from (which process sent it). */
        arrived: new Promise<{ remotePort: number }>((resolve) => (arrived = resolve)),
        release: () => release(),
      };
      state.hangs.push({
        to: options.to,
        ms: options.ms ?? 60_000,
        arrived,
        released: new Promise<void>((resolve) => (release = resolve)),
      });
      return handle;
    },
    statusCallbacks(sid: string) {
      return state.callbackDeliveries.filter((d) => d.kind === "status" && d.callSid === sid && d.replayOf === undefined);
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
        () => state.runtimes.get(sid)?.handle ?? undefined,
        "the media stream",
        timeoutMs,
        (call) =>
          FINAL_STATUSES.includes(call.status)
            ? `Call ${sid} ended ${call.status} without a media stream; errors ${JSON.stringify(call.errors)}`
            : undefined,
      );
    },
    dial(sid: string) {
      dial(state, sid);
    },
    hangup(sid: string) {
      const call = state.calls.get(sid);
      if (!call) throw new Error(`No call ${sid}`);
      if (call.status === "in-progress") finish(state, call, "completed", "caller");
    },
    async resendCallback(index: number) {
      const original = state.callbackDeliveries[index];
      if (!original) throw new Error(`No callback delivery #${index}`);
      const replay: CallbackDelivery = {
        ...original,
        headers: { ...original.headers },
        params: { ...original.params },
        status: 0,
        replayOf: index,
      };
      delete replay.error;
      state.callbackDeliveries.push(replay);
      await sendDelivery(state, replay);
      return replay.status;
    },
    async flush() {
      while (state.pending.size > 0) await Promise.allSettled([...state.pending]);
    },
    async close() {
      state.closing = true;
      state.closed.abort();
      for (const runtime of state.runtimes.values()) {
        if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
        runtime.abort.abort();
        if (runtime.handle?.isOpen) void runtime.handle.close();
      }
      await Promise.race([Promise.allSettled([...state.pending]), sleep(3000)]);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  state.fake = fake;
  return fake;
}

export type FakeTwilio = Awaited<ReturnType<typeof startFakeTwilio>>;
