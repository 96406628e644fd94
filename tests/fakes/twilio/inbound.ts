// Calls someone makes TO one of the account's numbers, as Twilio runs them: the signed voice
// webhook (Direction=inbound, CallStatus=ringing, the standard request parameters), the TwiML it
// answers (<Connect><Stream> to the app's bridge, <Say>, <Record> with its action and its
// transcription callback, <Dial> with its action), the number's status callback at the end; and
// <Dial> and <Record> as the TwiML runner executes them for any call.
import { randomSid } from "../media-stream";
import type { FakeCall } from "./index";
import { armTimeLimit, finish, transition } from "./lifecycle";
import { track, type FakeTwilioState } from "./state";
import { execute, fetchTwiml } from "./twiml";
import { API_VERSION, FINAL_STATUSES, first, sleep } from "./util";
import { callParams, deliver } from "./webhooks";
import { elements, textOf, type XmlElement } from "./xml";

export interface InboundCallOptions {
  /** The caller's number (E.164). */
  from: string;
  /** The account's number they rang. */
  to: string;
  /** The number's VoiceUrl (POST). */
  url: string;
  /** The number's StatusCallback (POST): the final status always, others if listed in `statusCallbackEvents`. */
  statusCallback?: string;
  statusCallbackEvents?: string[];
}

/**
 * Someone rings `to`: a call is made (direction "inbound"), Twilio asks the number's voice URL what
 * to do (signed, CallStatus=ringing), and runs the TwiML it gets; the call completes at its end or
 * when the caller hangs up (fake.hangup). Resolves with the call once the first document came
 * (its `twiml`), or null when the app did not answer with TwiML.
 */
export async function inboundCall(state: FakeTwilioState, options: InboundCallOptions) {
  const now = new Date();
  const params: Record<string, string | string[]> = { From: options.from, To: options.to, Url: options.url };
  if (options.statusCallback) params.StatusCallback = options.statusCallback;
  if (options.statusCallbackEvents) params.StatusCallbackEvent = options.statusCallbackEvents;
  const call: FakeCall = {
    sid: randomSid("CA"),
    params,
    status: "ringing",
    events: ["ringing"],
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
    direction: "inbound",
    dialled: [],
  };
  state.calls.set(call.sid, call);
  state.runtimes.set(call.sid, {
    abort: new AbortController(),
    handle: null,
    callbackChain: Promise.resolve(),
    sequence: 0,
    outcome: "answer",
    dialed: true,
  });
  state.changes.emit("change", call.sid);
  let firstDocument!: (xml: string | null) => void;
  const fetched = new Promise<string | null>((resolve) => (firstDocument = resolve));
  const run = async () => {
    // Twilio asks while the call rings, with the standard parameters of an incoming call.
    const xml = await fetchTwiml(state, call, "voice", options.url, "POST", {
      CallerCountry: countryOf(options.from),
      CalledCountry: countryOf(options.to),
      FromCountry: countryOf(options.from),
      ToCountry: countryOf(options.to),
    });
    firstDocument(xml);
    if (xml === null) return finish(state, call, "failed", null);
    // Answered by the TwiML: in progress from here, until its end or the caller's hang-up.
    call.startedAt = new Date();
    transition(state, call, "in-progress");
    armTimeLimit(state, call);
    await execute(state, call, xml, options.url);
    finish(state, call, "completed", "app");
  };
  void track(
    state,
    run().catch((error: unknown) => {
      call.errors.push({ code: 0, message: `Fake Twilio failure: ${(error as Error).message}` });
      firstDocument(null);
      finish(state, call, "failed", null);
    }),
  );
  await fetched;
  return call;
}

const countryOf = (number: string) =>
  number.startsWith("+1")
    ? "US"
    : number.startsWith("+44")
      ? "GB"
      : number.startsWith("+49")
        ? "DE"
        : number.startsWith("+966")
          ? "SA"
          : "";

type Next = { xml: string; url: string | undefined } | null;

/**
 * <Dial>: rings the number (the text, or its <Number> nouns); the person there answers unless
 * fake.setOutcome gave that number busy / no-answer / failed; the bridged conversation lasts
 * timing.sayMs. Then the action URL is asked (DialCallStatus, DialCallSid, DialCallDuration), or
 * the document goes on.
 */
export async function runDial(
  state: FakeTwilioState,
  call: FakeCall,
  verb: XmlElement,
  resolveUrl: (url: string) => string,
): Promise<Next> {
  const signal = state.runtimes.get(call.sid)!.abort.signal;
  const nouns = elements(verb).filter((e) => e.name === "Number");
  const number = (nouns.length ? textOf(nouns[0]!) : textOf(verb)).trim();
  const outcome = state.numberOutcomes.get(number) ?? "answer";
  const status = outcome === "answer" || outcome === "machine" ? "completed" : outcome;
  call.dialled.push({ number, attrs: { ...verb.attrs }, status });
  state.changes.emit("change", call.sid);
  await sleep(state.timing.sayMs, signal);
  if (FINAL_STATUSES.includes(call.status) || !verb.attrs.action) return null;
  const url = resolveUrl(verb.attrs.action);
  const xml = await fetchTwiml(state, call, "action", url, verb.attrs.method, {
    DialCallStatus: status,
    DialCallSid: randomSid("CA"),
    DialCallDuration: status === "completed" ? "1" : "0",
  });
  return xml === null ? { xml: `<Response><Hangup/></Response>`, url } : { xml, url };
}

/**
 * <Record>: the caller speaks what fake.setVoicemail gave for their number (default a short
 * message) after the beep; the recording is kept (fake.recordings); its action (default: the
 * current document's URL) is asked with RecordingUrl, RecordingDuration and RecordingSid; with
 * transcribe="true" the transcription callback follows (TranscriptionText, TranscriptionStatus
 * completed, or failed for a voicemail with no transcript). Twilio transcribes only recordings of
 * at most 120 s: a larger maxLength is warning 13615 and no transcription. An empty recording (0 s)
 * asks no action and the document goes on.
 */
export async function runRecord(
  state: FakeTwilioState,
  call: FakeCall,
  verb: XmlElement,
  resolveUrl: (url: string) => string,
  documentUrl: string | undefined,
): Promise<Next> {
  const runtime = state.runtimes.get(call.sid)!;
  const from = first(call.params, call.direction === "inbound" ? "From" : "To") ?? "";
  const spoken = state.voicemails.get(from) ?? { transcript: "Hello, this is a test message, please call me back.", seconds: 6 };
  const maxLength = Number(verb.attrs.maxLength ?? 3600);
  await sleep(state.timing.sayMs, runtime.abort.signal);
  if (FINAL_STATUSES.includes(call.status)) return null;
  if (spoken.seconds <= 0) return null;
  const seconds = Math.min(spoken.seconds, maxLength);
  const recording = { sid: randomSid("RE"), callSid: call.sid, duration: seconds, channels: 1, deleted: false };
  state.recordings.set(recording.sid, recording);
  const recordingUrl = `https://api.twilio.com/${API_VERSION}/Accounts/${state.accountSid}/Recordings/${recording.sid}`;
  const transcribe = verb.attrs.transcribe === "true" && verb.attrs.transcribeCallback;
  if (transcribe && maxLength > 120) {
    call.errors.push({ code: 13615, message: "Record: maxLength too high for transcription" });
  } else if (transcribe) {
    const target = resolveUrl(verb.attrs.transcribeCallback!);
    const params = {
      ...callParams(state, call, "completed"),
      RecordingSid: recording.sid,
      RecordingUrl: recordingUrl,
      TranscriptionSid: randomSid("TR"),
      TranscriptionStatus: spoken.transcript === null ? "failed" : "completed",
      TranscriptionText: spoken.transcript ?? "",
      TranscriptionUrl: `https://api.twilio.com/${API_VERSION}/Accounts/${state.accountSid}/Recordings/${recording.sid}/Transcriptions`,
    };
    // Transcriptions come a while after the recording, whatever the call does meanwhile.
    runtime.callbackChain = track(
      state,
      runtime.callbackChain
        .then(() => sleep(state.timing.sayMs))
        .then(() => deliver(state, "transcription", call.sid, target, "POST", params))
        .then(() => undefined),
    );
  }
  const action = verb.attrs.action ? resolveUrl(verb.attrs.action) : documentUrl;
  if (!action) return null;
  const xml = await fetchTwiml(state, call, "action", action, verb.attrs.method, {
    RecordingUrl: recordingUrl,
    RecordingDuration: String(seconds),
    RecordingSid: recording.sid,
  });
  return xml === null ? null : { xml, url: action };
}
