// Calls, the REST resource: the Call as Twilio returns it, the checks on a call creation, and
// creating (with the test controls failNext/hangNext), listing, fetching, updating (hanging up,
// TimeLimit) and deleting calls.
import type http from "node:http";
import { randomSid } from "../media-stream";
import type { FakeCall, FormParams } from "./index";
import { send, sendError } from "./http";
import { armTimeLimit, dial, finish } from "./lifecycle";
import type { FakeTwilioState } from "./state";
import { API_VERSION, FINAL_STATUSES, first, formatted, isHttpUrl, rfc2822, sleep, twilioError, type TwilioError } from "./util";

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

export function callResource(state: FakeTwilioState, call: FakeCall) {
  const from = first(call.params, "From")!;
  const to = first(call.params, "To")!;
  if (!state.phoneNumberSids.has(from)) state.phoneNumberSids.set(from, randomSid("PN"));
  const base = `/${API_VERSION}/Accounts/${state.accountSid}/Calls/${call.sid}`;
  return {
    account_sid: state.accountSid,
    annotation: null,
    answered_by: call.answeredBy,
    api_version: API_VERSION,
    caller_name: null,
    date_created: rfc2822(call.dateCreated),
    date_updated: rfc2822(call.dateUpdated),
    direction: call.direction,
    duration: call.duration === null ? null : String(call.duration),
    end_time: call.endedAt ? rfc2822(call.endedAt) : null,
    forwarded_from: null,
    from,
    from_formatted: formatted(from),
    group_sid: null,
    parent_call_sid: null,
    phone_number_sid: state.phoneNumberSids.get(from),
    price: null,
    price_unit: "USD",
    queue_time: "0",
    sid: call.sid,
    start_time: call.startedAt ? rfc2822(call.startedAt) : null,
    // The resource knows no "initiated" (only callbacks do): a call not yet ringing is "queued".
    status: call.status === "initiated" ? "queued" : call.status,
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

export function validateCreate(state: FakeTwilioState, params: FormParams): TwilioError | null {
  for (const key of Object.keys(params))
    if (!KNOWN_CREATE_PARAMS.has(key)) state.warnings.push(`Calls.json: unknown parameter ${key} (Twilio ignores it)`);
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
  if (!state.ownedNumbers.includes(from)) {
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
      state.warnings.push(`Calls.json: StatusCallbackEvent ${event} is not an event Twilio knows (initiated ringing answered completed)`);
  }
  const blocked = state.blockedPrefixes.find((prefix) => to.startsWith(prefix));
  if (blocked) {
    return twilioError(
      400,
      21215,
      `Account not authorized to call ${to}. Perhaps you need to enable some international permissions: https://www.twilio.com/console/voice/calls/geo-permissions/low-risk`,
    );
  }
  return null;
}

export function createCall(state: FakeTwilioState, params: FormParams): FakeCall {
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
    direction: "outbound-api",
    dialled: [],
  };
  const outcome = state.fake.nextOutcome ?? state.numberOutcomes.get(to) ?? "answer";
  state.fake.nextOutcome = undefined;
  state.calls.set(call.sid, call);
  state.runtimes.set(call.sid, {
    abort: new AbortController(),
    handle: null,
    callbackChain: Promise.resolve(),
    sequence: 0,
    outcome,
    dialed: false,
  });
  state.changes.emit("change", call.sid);
  return call;
}

/** GET /Calls.json: the calls, newest first (To, From, Status filters; PageSize). */
export function listCalls(state: FakeTwilioState, res: http.ServerResponse, params: FormParams) {
  const pageSize = Math.min(1000, Number(first(params, "PageSize") ?? 50) || 50);
  const list = [...state.calls.values()]
    .filter((c) => !params.To || first(c.params, "To") === first(params, "To"))
    .filter((c) => !params.From || first(c.params, "From") === first(params, "From"))
    .filter((c) => !params.Status || c.status === first(params, "Status"))
    .reverse();
  const uri = `/${API_VERSION}/Accounts/${state.accountSid}/Calls.json?PageSize=${pageSize}&Page=0`;
  return send(res, 200, {
    calls: list.slice(0, pageSize).map((c) => callResource(state, c)),
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

/** POST /Calls.json: a held (hangNext) or failed (failNext) creation, the checks, then the 201 and the dialling. */
export async function createCallEndpoint(state: FakeTwilioState, req: http.IncomingMessage, res: http.ServerResponse, params: FormParams) {
  const hang = state.hangs.findIndex((h) => h.to === undefined || h.to === first(params, "To"));
  if (hang >= 0) {
    const [held] = state.hangs.splice(hang, 1);
    held!.arrived({ remotePort: req.socket.remotePort ?? 0 });
    await Promise.race([held!.released, sleep(held!.ms, state.closed.signal)]);
    if (state.closing) return;
  }
  const failure = state.failures[0];
  if (failure) {
    if (--failure.times <= 0) state.failures.shift();
    return sendError(res, failure);
  }
  const invalid = validateCreate(state, params);
  if (invalid) return sendError(res, invalid);
  const call = createCall(state, params);
  send(res, 201, callResource(state, call));
  // Twilio places the call whether or not its answer reached the app (a client killed mid-request
  // never reads it): the call goes ahead once the answer is written, or once the connection is gone.
  if (state.autoDial) {
    let dialled = false;
    const go = () => {
      if (dialled) return;
      dialled = true;
      dial(state, call.sid);
    };
    if (res.destroyed || req.socket.destroyed) go();
    else {
      res.once("finish", go);
      res.once("close", go);
    }
  }
  return;
}

/** GET, POST (update) and DELETE /Calls/{CallSid}.json. */
export function callEndpoint(
  state: FakeTwilioState,
  res: http.ServerResponse,
  method: string,
  params: FormParams,
  callSid: string,
  notFound: () => void,
  notAllowed: () => void,
) {
  const call = state.calls.get(callSid);
  if (!call) return notFound();
  if (method === "GET") {
    const failure = state.fetchFailures[0];
    if (failure) {
      if (--failure.times <= 0) state.fetchFailures.shift();
      return sendError(res, failure);
    }
    return send(res, 200, callResource(state, call));
  }
  if (method === "DELETE") {
    state.calls.delete(callSid);
    return send(res, 204, null);
  }
  if (method !== "POST") return notAllowed();
  const status = first(params, "Status");
  if (status !== undefined) {
    if (status !== "completed" && status !== "canceled")
      return sendError(res, twilioError(400, 21200, `Status must be either canceled or completed, not ${status}`));
    const notAnswered = call.status === "queued" || call.status === "initiated" || call.status === "ringing";
    if (notAnswered) finish(state, call, "canceled", "app");
    else if (status === "completed" && call.status === "in-progress") finish(state, call, "completed", "app");
  }
  const timeLimit = first(params, "TimeLimit");
  if (timeLimit !== undefined) {
    if (!/^\d+$/.test(timeLimit) || Number(timeLimit) < 1 || Number(timeLimit) > 14400)
      return sendError(res, twilioError(400, 13216, `Invalid TimeLimit value (${timeLimit})`));
    call.params = { ...call.params, TimeLimit: timeLimit };
    if (call.status === "in-progress") armTimeLimit(state, call);
  }
  if (first(params, "Url") !== undefined || first(params, "Twiml") !== undefined) {
    // Twilio refuses to redirect a call that has ended. A live one leaves what it was doing: its
    // media stream stops and the new instructions run (modelled while a <Connect><Stream> runs).
    if (FINAL_STATUSES.includes(call.status)) return sendError(res, twilioError(400, 21220, "Call is not in-progress. Cannot redirect."));
    const runtime = state.runtimes.get(callSid);
    const twiml = first(params, "Twiml");
    if (runtime?.handle?.isOpen) {
      runtime.redirect = twiml !== undefined ? { twiml } : { url: first(params, "Url")!, method: first(params, "Method") };
      void runtime.handle.stop();
    } else state.warnings.push(`Calls/${callSid}.json: redirecting a call outside a <Connect><Stream> is not modelled by the fake`);
  }
  call.dateUpdated = new Date();
  return send(res, 200, callResource(state, call));
}
