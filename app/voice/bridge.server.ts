import { bridgeFirstWords, bridgeFramesDropped, bridgeTurnLatency } from "~/platform/observability/metrics.server";
import { log as logger } from "~/platform/observability/log.server";
import WebSocket from "ws";
import { recordCallEnd, recordFirstWords, type QualityReport } from "#models/call-quality";
import { appendTranscript, consumeStreamToken, findCall, flagCall, markCallMoment, type Call, type CallMoment } from "#models/calls";
import type { AppServices } from "~/platform/services.server";
import { admitToolCall, END_CALL, withPurposeTools, type Agent } from "~/voice/agents.server";
import { crisisScript, redact, soundsLikeCrisis } from "~/voice/crisis.server";
import { CallQuality } from "~/voice/call-quality";
import { CallerVoice } from "~/voice/caller-voice";
import {
  appendAudioMessage,
  callerAudioOf,
  clearMessage,
  markMessage,
  mediaMessage,
  parseModelEvent,
  parseTwilioMessage,
  readCallerAudio,
  readModelAudio,
  responseCancelEvent,
  responseCreateEvent,
  toolOutputEvent,
  truncateEvent,
  type ModelEvent,
  type TwilioMessage,
} from "~/voice/bridge-codec.server";
import { CallState } from "~/voice/call-state.server";
import { perKey } from "~/lib/sharing/per-key";

export type { TwilioMessage } from "~/voice/bridge-codec.server";

const TOOL_TIMEOUT_MS = 8_000;
/**
 * A mark follows every 250 ms of a reply's audio, and its end: the echoed marks tell how much the
 * caller has heard, to cut the reply there on barge-in, without a mark per 20 ms frame (each a
 * message out and one back).
 */
const MARK_EVERY_MS = 250;

/** The audio of one side of the bridge, as the Realtime API names it, and its bytes per millisecond. */
export interface CallAudio {
  format: { type: "audio/pcmu" } | { type: "audio/pcm"; rate: 24000 };
  bytesPerMs: number;
}
/** The phone: G.711 μ-law at 8 kHz, 8 bytes of audio per millisecond, passed through untouched. */
export const PHONE_AUDIO: CallAudio = { format: { type: "audio/pcmu" }, bytesPerMs: 8 };
/** A browser: 16-bit PCM at 24 kHz (the model's own rate), 48 bytes per millisecond. */
export const BROWSER_AUDIO: CallAudio = { format: { type: "audio/pcm", rate: 24000 }, bytesPerMs: 48 };

/** What went wrong, in one line: a failed query's database error rather than its SQL and parameters. */
function reasonOf(error: unknown) {
  const cause = (error as { cause?: unknown })?.cause;
  const message = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return message.split("\n")[0];
}

/**
 * What the bridge needs of the app's services: the settings, the database, the realtime model, the
 * telephony provider (to hang up), the job queue with its sealing secret (a booking the agent
 * makes queues its e-mails and confirmation call), and the call purposes that give each call its
 * agent. The web server passes its own; the bridge
 * process (app/server/bridge-server.ts) makes only these.
 */
export type BridgeServices = Pick<
  AppServices,
  "env" | "db" | "jobs" | "signingSecret" | "voiceModel" | "telephony" | "publicOrigin" | "callPurposes"
>;

/**
 * The call's media-stream URL, as Twilio is given it in the TwiML and as it signs the handshake:
 * MEDIA_STREAM_ORIGIN (a bridge process of its own) when set, else this server's public origin.
 */
export function mediaStreamUrl(services: Pick<AppServices, "env" | "publicOrigin">, callId: number | string) {
  const origin = services.env.MEDIA_STREAM_ORIGIN ? new URL(services.env.MEDIA_STREAM_ORIGIN).origin : services.publicOrigin();
  return `${origin.replace(/^http/, "ws")}/media-stream/${callId}`;
}

/**
 * The call's agent, from its purpose as registered at start-up. The agents and their tools read
 * the settings and the database and queue jobs, which the bridge process has.
 */
const agentForCall = async (services: BridgeServices, call: Call) =>
  withPurposeTools(call.purpose, await services.callPurposes[call.purpose].agent(services as AppServices, call));

/**
 * The longest a caller waits for the agent's voice: from the stream's start to the first words,
 * and from the end of each of the caller's turns to the reply. Past it the model is taken as
 * failed: the stream closes, Twilio's voice says the apology, and the call does not count.
 */
export const AGENT_SILENCE_MS = 8_000;

export interface StreamLimits {
  /** A socket that has not sent "start" by then is closed. */
  startTimeoutMs: number;
  /**
   * A call with nothing from the model for this long ends: no audio, and no sign that it hears the
   * caller start or stop speaking. The caller's own frames do not count: a live phone line sends
   * them every 20 ms whether or not anyone answers.
   */
  idleTimeoutMs: number;
  /** AGENT_SILENCE_MS unless set. */
  agentSilenceMs?: number;
  /** The delivered minimum of the agent's voice heard (CALL_DELIVERED_MIN_SECONDS): a call our side cuts counts only past it. */
  agentMinimumMs?: number;
}
export const STREAM_LIMITS: StreamLimits = { startTimeoutMs: 10_000, idleTimeoutMs: 60_000 };

/** The limits for this deployment: AGENT_SILENCE_SECONDS shortens the wait for the agent's voice (tests). */
export function streamLimits(env: Pick<AppServices["env"], "AGENT_SILENCE_SECONDS" | "CALL_DELIVERED_MIN_SECONDS">): StreamLimits {
  const silence = env.AGENT_SILENCE_SECONDS;
  return {
    ...STREAM_LIMITS,
    ...(silence === undefined ? {} : { agentSilenceMs: Math.round(silence * 1000) }),
    agentMinimumMs: env.CALL_DELIVERED_MIN_SECONDS * 1000,
  };
}

/** The close codes a browser's stream reads: its "start" was refused; the model is unavailable (it falls back to recorded turns). */
export const CLOSE_REFUSED = 4403;
export const CLOSE_MODEL_UNAVAILABLE = 4503;

/** The session configuration and the greeting request: the first events of every call's realtime session. */
function sessionSetup(agent: Agent, audio: CallAudio) {
  return [
    {
      type: "session.update",
      session: {
        type: "realtime",
        output_modalities: ["audio"],
        instructions: agent.instructions,
        audio: {
          input: {
            format: audio.format,
            turn_detection: { type: "server_vad" },
            transcription: { model: "gpt-4o-mini-transcribe" },
          },
          output: {
            format: audio.format,
            voice: agent.voice,
            ...(agent.speed && agent.speed !== 1 ? { speed: Math.min(1.5, Math.max(0.25, agent.speed)) } : {}),
          },
        },
        tools: agent.tools.map(({ name, description, parameters }) => ({ type: "function", name, description, parameters })),
        tool_choice: "auto",
      },
    },
    { type: "response.create", response: { instructions: agent.greeting } },
  ];
}

export interface PreparedSession {
  socket: WebSocket;
  agent: Agent;
  /** The model's events so far, for the bridge to play through once the stream is there. */
  events: WebSocket.RawData[];
}

/**
 * Realtime sessions opened while Twilio fetched a call's TwiML, until its media stream takes them
 * (this process only), by database (a call's id names it in its own database: two apps in one
 * process never take each other's). The entry exists from the first moment, so a stream arriving
 * while the session is still connecting waits for it rather than opening a second one.
 */
type PreparedEntry = { ready: Promise<PreparedSession | null>; expiry: NodeJS.Timeout };
const preparedByDatabase = perKey((_db: BridgeServices["db"]) => new Map<number, PreparedEntry>());
const preparedSessions = (services: Pick<BridgeServices, "db">) => preparedByDatabase(services.db);

/**
 * Fast first words: the realtime session is opened, configured and asked for the greeting when
 * Twilio requests the call's TwiML, so the greeting is being generated while the media stream
 * connects. A session no stream claims within `ttlMs` is closed. Never throws.
 */
export function prepareVoiceSession(services: BridgeServices, call: Call, ttlMs: number) {
  const sessions = preparedSessions(services);
  if (!services.voiceModel.configured || sessions.has(call.id)) return;
  const ready = (async (): Promise<PreparedSession | null> => {
    const agent = await agentForCall(services, call);
    const socket = services.voiceModel.openSession();
    const prepared: PreparedSession = { socket, agent, events: [] };
    socket.on("message", (data) => prepared.events.push(data));
    await new Promise<void>((resolve, reject) => {
      socket.once("open", resolve);
      socket.once("error", reject);
      socket.once("close", () => reject(new Error("closed before it opened")));
    });
    for (const event of sessionSetup(agent, PHONE_AUDIO)) socket.send(JSON.stringify(event));
    return prepared;
  })().catch(() => null);
  const expiry = setTimeout(
    () => void takePreparedSession(services, call.id).then((prepared) => prepared?.socket.close(1000, "not claimed")),
    ttlMs,
  );
  sessions.set(call.id, { ready, expiry });
}

/** The call's prepared session once it is open (null if there is none, or it failed); it is no longer kept. */
async function takePreparedSession(services: Pick<BridgeServices, "db">, callId: number) {
  const sessions = preparedSessions(services);
  const entry = sessions.get(callId);
  if (!entry) return null;
  sessions.delete(callId);
  clearTimeout(entry.expiry);
  return entry.ready;
}

/**
 * The caller's side of a bridged call: a phone call's media stream (Twilio), or a browser's, which
 * speaks the same messages. The bridge relays the audio and runs the conversation; the leg knows
 * where the call is kept and what its end means.
 */
export interface CallerLeg {
  /** Names the call in the logs: "call 12", "web call 3". */
  label: string;
  audio: CallAudio;
  /**
   * Checks the stream's "start" message: null refuses the stream. Otherwise the call's agent (made
   * only when no session was opened in advance) and that session, if the leg has one.
   */
  begin(message: TwilioMessage): Promise<{ agent(): Promise<Agent>; prepared(): Promise<PreparedSession | null> } | null>;
  /** Writes what happened on the call (each once). */
  record(moment: CallMoment): Promise<void>;
  /** Keeps a line of the conversation. */
  transcript(role: "caller" | "agent", text: string): Promise<void>;
  /** The fixed safety text to read when the caller's words sound like a crisis and this call answers them; else null. */
  crisisScript(text: string): string | null;
  /** Marks the call for review. */
  flag(reason: string): Promise<void>;
  /** Once the session is configured: the call's own timers (the empathy call's last minute, a time limit). */
  sessionStarted(controls: { requestResponse(response: object): void; hangUp(): Promise<void> }): NodeJS.Timeout[];
  /** The call ends (both sockets are closed): the provider hangs up, the record is closed. Never rejects. */
  hangUp(): Promise<void>;
  /** Keeps the call's quality (ADR 0033): the first words as soon as known, the rest when it ends. None for a browser. */
  quality?: {
    firstWords(streamStartedAt: Date, firstAudioAt: Date): Promise<void>;
    ended(report: QualityReport): Promise<void>;
  };
}

/** The quality writes not yet done, for a server that shuts down to wait for (ADR 0033). */
const qualityWrites = new Set<Promise<unknown>>();
function keepWriting(write: Promise<unknown>) {
  qualityWrites.add(write);
  void write.finally(() => qualityWrites.delete(write));
}
/** Resolves once every call's quality write in progress is done (or failed), those they lead to included. */
export async function qualityWritesSettled() {
  while (qualityWrites.size > 0) await Promise.allSettled([...qualityWrites]);
}

/**
 * The calls each app bridges now (by its realtime model client, one per app), each with the way to
 * end it: a server that shuts down ends every one that is left, so no call of a stopped app keeps
 * its timers or writes (two apps in one process, in the tests, each end only their own).
 */
const bridgedCalls = perKey((_voiceModel: BridgeServices["voiceModel"]) => new Set<() => Promise<void>>());

/**
 * Ends every call the app still bridges, as the server shuts down: each call first writes that our
 * side cut it (so the <Connect> action tells the caller, and the call is judged as ours), then its
 * sockets close and its quality is written. Resolves once the cuts are written.
 */
export async function endBridgedCalls(services: Pick<BridgeServices, "voiceModel">) {
  await Promise.all([...bridgedCalls(services.voiceModel)].map((end) => end()));
}

/** Within this of its time limit, a call Twilio ends was ended by the limit (Twilio's clock starts at the answer, a little before the stream). */
const TIME_LIMIT_SLACK_MS = 2_000;

/** A phone call's leg: Twilio's media stream, the call kept in `calls`. */
function phoneLeg(services: BridgeServices, callId: number, log: (message: string) => void): CallerLeg {
  let call: Call | null = null;
  return {
    label: `call ${callId}`,
    audio: PHONE_AUDIO,
    async begin(message) {
      const token = message.start?.customParameters?.token ?? "";
      if (!token || !(await consumeStreamToken(services.db, callId, token))) {
        log(`media stream for call ${callId} refused: bad or used token`);
        return null;
      }
      call = await findCall(services.db, callId);
      if (!call) return null;
      const found = call;
      return {
        agent: () => agentForCall(services, found),
        // The session opened when Twilio asked for the TwiML is taken over: its greeting is on its way.
        prepared: () => takePreparedSession(services, callId),
      };
    },
    record: (moment) => markCallMoment(services.db, callId, moment),
    transcript: (role, text) => appendTranscript(services.db, callId, [{ role, text: redact(text), at: new Date().toISOString() }]),
    crisisScript(text) {
      const crisis = call && services.callPurposes[call.purpose].crisis;
      return call && crisis && soundsLikeCrisis(text) ? crisisScript(call.language, crisis.callerNumber(call)) : null;
    },
    flag: (reason) => flagCall(services.db, callId, reason),
    sessionStarted({ requestResponse, hangUp }) {
      if (!call) return [];
      const cues = services.callPurposes[call.purpose].cues?.(call) ?? [];
      const timers = cues.map(({ afterSeconds, instructions }) =>
        setTimeout(() => requestResponse({ instructions }), Math.max(0, afterSeconds) * 1000),
      );
      // A call someone made to us has no time limit at the provider (it is set on a dial): the
      // bridge keeps it and ends the call there.
      if (call.direction === "inbound") timers.push(setTimeout(() => void hangUp(), call.timeLimitSeconds * 1000));
      return timers;
    },
    quality: {
      firstWords: (streamStartedAt, firstAudioAt) => recordFirstWords(services.db, callId, streamStartedAt, firstAudioAt),
      ended(report) {
        const elapsed = report.endedAt.getTime() - report.streamStartedAt.getTime();
        const limited = report.endedBy === "caller_hung_up" && call && elapsed >= call.timeLimitSeconds * 1000 - TIME_LIMIT_SLACK_MS;
        return recordCallEnd(services.db, callId, limited ? { ...report, endedBy: "time_limit" } : report);
      },
    },
    async hangUp() {
      const providerCallId = call?.providerCallId;
      if (providerCallId) {
        await services.telephony
          .hangUp(providerCallId)
          .catch((error) => log(`call ${callId}: hang-up failed: ${(error as Error).message}`));
      }
    },
  };
}

/**
 * One phone call's audio bridge: Twilio's media stream on one side, the OpenAI Realtime session
 * on the other, G.711 μ-law passed through both ways. Each call gets its own instance and state.
 */
export function bridgeMediaStream(
  services: BridgeServices,
  twilio: WebSocket,
  callId: number,
  log: (message: string) => void = (message) => logger.warn({ callId }, message),
  limits: StreamLimits = streamLimits(services.env),
) {
  bridgeCall(services, twilio, phoneLeg(services, callId, log), log, limits);
}

/**
 * A call's audio bridge: the caller's stream (a phone's or a browser's) on one side, the OpenAI
 * Realtime session on the other, the audio passed through both ways in the leg's format, with
 * barge-in cut at what the caller heard, the agent's tools, and the crisis script.
 */
export function bridgeCall(
  services: Pick<BridgeServices, "voiceModel">,
  twilio: WebSocket,
  leg: CallerLeg,
  log: (message: string) => void = (message) => logger.warn(message),
  limits: StreamLimits = STREAM_LIMITS,
) {
  const label = leg.label;
  // The call's state, changed through its named transitions; the sockets, timers and writes are here.
  const state = new CallState(leg.audio.bytesPerMs, MARK_EVERY_MS * leg.audio.bytesPerMs);
  let agent: Agent | null = null;
  let model: WebSocket | null = null;
  const timers: NodeJS.Timeout[] = [];
  // The caller's experience: first words, each turn's wait, interruptions, how it ended (ADR 0033).
  const quality = new CallQuality();
  const calls = bridgedCalls(services.voiceModel);
  // Our side cuts the stream: written first, so the <Connect> action Twilio asks next says goodbye
  // (or sorry) and the call is judged as one we cut. The quality says the stream was lost.
  const endForShutdown = () => {
    const cut = (async () => {
      if (state.hasStarted) await moment("streamCutAt");
      close("server shutting down", 1001);
    })();
    keepWriting(cut);
    return cut;
  };
  calls.add(endForShutdown);
  const startTimer = setTimeout(() => {
    if (!state.hasStarted) {
      log(`media stream for ${label} closed: no "start" within ${limits.startTimeoutMs / 1000} s`);
      close("no start");
    }
  }, limits.startTimeoutMs);
  // Refreshed by every message of the model, never by the caller's frames.
  const idleTimer = setTimeout(onIdle, limits.idleTimeoutMs);
  function onIdle() {
    log(`media stream for ${label} closed: no audio for ${limits.idleTimeoutMs / 1000} s from the model's side`);
    quality.ended("model_idle");
    void hangUp();
  }

  // Dead air: armed whenever the agent owes the caller words (the stream started, the caller's turn
  // ended, a tool answered), disarmed by the agent's audio or the caller speaking again.
  const agentSilenceMs = limits.agentSilenceMs ?? AGENT_SILENCE_MS;
  let silenceTimer: NodeJS.Timeout | null = null;
  function awaitAgent(after: string) {
    if (state.ending) return;
    if (silenceTimer) clearTimeout(silenceTimer);
    stallAnswered();
    silenceTimer = setTimeout(() => void modelFailed(`no audio within ${agentSilenceMs / 1000} s ${after}`), agentSilenceMs);
  }
  function agentOwesNothing() {
    if (!silenceTimer) return;
    clearTimeout(silenceTimer);
    silenceTimer = null;
  }

  // A stalled model: its socket open, nothing sent, not even that it heard the caller, so no
  // deadline above is ever armed. The caller's own audio says they spoke (its energy, judged here):
  // once they did, the model has agentSilenceMs from their last voiced frame, or its own last
  // event, to be heard. A pause in which the caller never spoke is not a stall.
  const callerVoice = new CallerVoice(leg.audio);
  let stallTimer: NodeJS.Timeout | null = null;
  let callerSpokeAt = 0;
  function callerSpeaking() {
    // A deadline the model's own events armed covers it already.
    if (state.ending || silenceTimer || !quality.started) return;
    callerSpokeAt = Date.now();
    if (stallTimer) stallTimer.refresh();
    else stallTimer = setTimeout(onStall, agentSilenceMs);
  }
  function stallAnswered() {
    if (!stallTimer) return;
    clearTimeout(stallTimer);
    stallTimer = null;
  }
  function onStall() {
    stallTimer = null;
    quality.callerStopped(callerSpokeAt);
    void modelFailed(`no audio within ${agentSilenceMs / 1000} s after the caller spoke, and nothing else from the model`);
  }

  // What really happened on the call, written once each: whether it counts as delivered follows from these.
  function moment(name: CallMoment) {
    if (!state.reached(name)) return Promise.resolve();
    return leg.record(name).catch((error) => log(`${label}: could not record ${name}: ${reasonOf(error)}`));
  }

  /**
   * The model refused the session, could not be reached or dropped it: the stream is closed
   * without hanging up, so Twilio asks the <Connect> action what next and the caller hears the
   * apology in their language from the provider's own voice (a browser offers the other ways).
   */
  async function modelFailed(reason: string) {
    if (!state.modelFailed()) return;
    log(`${label}: the realtime model failed (${reason})`);
    quality.ended(reason.startsWith("no audio within") ? "dead_air" : "model_failed");
    await moment("modelFailedAt");
    close("model unavailable", CLOSE_MODEL_UNAVAILABLE);
  }

  const sendTwilio = (message: object) => twilio.readyState === WebSocket.OPEN && twilio.send(JSON.stringify(message));
  const sendModel = (event: object) => model?.readyState === WebSocket.OPEN && model.send(JSON.stringify(event));

  function close(reason: string, code = 1000) {
    if (!state.endCall()) return;
    calls.delete(endForShutdown);
    clearTimeout(startTimer);
    clearTimeout(idleTimer);
    agentOwesNothing();
    stallAnswered();
    for (const timer of timers) clearTimeout(timer);
    if (model && model.readyState <= WebSocket.OPEN) model.close(1000, reason);
    if (twilio.readyState <= WebSocket.OPEN) twilio.close(code, reason);
    const report = quality.report();
    if (state.droppedFrames > 0) bridgeFramesDropped.inc(state.droppedFrames);
    if (report) observeQuality(report);
    if (report && leg.quality)
      keepWriting(leg.quality.ended(report).catch((error) => log(`${label}: could not keep its quality: ${reasonOf(error)}`)));
  }

  /** Something failed: the call ends, and its quality says so. */
  function failed(message: string, error: unknown) {
    log(`${label} ${message}: ${reasonOf(error)}`);
    quality.ended("error");
    void hangUp();
  }

  /**
   * Ends the call: the leg hangs up first, then both sockets close. The provider ends the call
   * before its stream closes, so it asks nothing next: a stream the <Connect> action hears of
   * ended without us (our process or its connection died), or after a hang-up that failed. Never rejects.
   */
  async function hangUp() {
    if (!state.hangUpStarted()) return;
    agentOwesNothing();
    stallAnswered();
    await leg.hangUp().catch((error) => log(`${label}: hang-up failed: ${reasonOf(error)}`));
    close("end_call");
  }

  /** Asks for a response now, or once the one in flight is done (CallState.responseRequested). */
  function requestResponse(response: object = {}) {
    if (state.responseRequested(response)) sendModel(responseCreateEvent(response));
  }

  /** The model's audio to the caller, with a mark every markEveryBytes (the hot path: no JSON work). */
  function play(itemId: string, delta: string) {
    if (twilio.readyState !== WebSocket.OPEN) return;
    agentOwesNothing();
    stallAnswered();
    sendMark(state.replyAudio(itemId, delta));
    twilio.send(mediaMessage(state.mediaHead, delta));
    if (quality.waitingForAudio) {
      const first = quality.agentAudio();
      if (first && leg.quality) {
        keepWriting(
          leg.quality
            .firstWords(first.streamStartedAt, first.firstAudioAt)
            .catch((error) => log(`${label}: could not keep its first words: ${reasonOf(error)}`)),
        );
      }
    }
    sendMark(state.markDue());
  }

  /** A mark after the audio sent so far: Twilio echoes it once the caller has heard that audio. */
  function markPlayback() {
    sendMark(state.marked());
  }
  function sendMark(name: string | null) {
    if (name !== null && twilio.readyState === WebSocket.OPEN) twilio.send(markMessage(state.markHead, name));
  }

  /** The caller's audio to the model (the hot path: no JSON work), or kept until the model is ready. */
  function hear(payload: string) {
    if (state.callerAudio(payload)) {
      if (model?.readyState === WebSocket.OPEN) model.send(appendAudioMessage(payload));
      else bridgeFramesDropped.inc();
    }
    if (callerVoice.heard(payload)) callerSpeaking();
  }

  /**
   * Stops what the caller is hearing: Twilio drops its buffer and the item is cut at what was heard
   * (from the marks). True if something was still playing.
   */
  function stopPlayback() {
    const item = state.currentItem;
    const heardMs = state.playbackStopped();
    if (heardMs === null) return false;
    sendModel(truncateEvent(item!, heardMs));
    sendTwilio(clearMessage(state.streamSid));
    return true;
  }

  /** Stops playback and cancels the response in flight, for something that must be said at once. */
  function interrupt() {
    stopPlayback();
    if (state.responseActive) sendModel(responseCancelEvent());
  }

  function maybeFinish() {
    if (!state.finished) return;
    quality.ended("agent_ended");
    void hangUp();
  }

  async function start(message: TwilioMessage, startedAt: number) {
    state.streamIdentified(message.start?.streamSid ?? message.streamSid ?? "");
    const call = await leg.begin(message);
    if (!call) {
      close("unauthorized", CLOSE_REFUSED);
      return;
    }
    // Measured from the "start" message; kept only for a stream the leg accepted.
    quality.streamStarted(startedAt);
    await moment("streamConnectedAt");
    if (!services.voiceModel.configured) {
      await modelFailed("not configured");
      return;
    }
    const ready = await call.prepared();
    if (state.closed) {
      ready?.socket.close();
      return;
    }
    if (ready && ready.socket.readyState === WebSocket.OPEN) {
      agent = ready.agent;
      model = ready.socket;
      for (const name of ["open", "message", "error", "close"]) model.removeAllListeners(name);
      listenToModel(model);
      state.responseStarted();
      sessionStarted();
      for (const data of ready.events.splice(0)) onModelMessage(data);
      return;
    }
    ready?.socket.close();
    agent = await call.agent();
    if (state.closed) return;
    model = services.voiceModel.openSession();
    listenToModel(model);
    model.on("open", () => {
      try {
        for (const event of sessionSetup(agent!, leg.audio)) sendModel(event);
        state.responseStarted();
        sessionStarted();
      } catch (error) {
        void modelFailed(`the session could not be set up: ${reasonOf(error)}`);
      }
    });
  }

  /** The session is configured and the greeting asked for: early audio goes to the model, the call's timers start. */
  function sessionStarted() {
    for (const payload of state.modelReady()) model!.send(appendAudioMessage(payload));
    timers.push(...leg.sessionStarted({ requestResponse, hangUp }));
  }

  function onModelMessage(data: WebSocket.RawData) {
    // A refreshed timer would start again: after the end, the last transcripts are still kept.
    if (!state.closed) {
      idleTimer.refresh();
      stallTimer?.refresh();
    }
    if (readModelAudio(data, play)) return;
    const event = parseModelEvent(data);
    if (event === undefined) {
      log(`${label}: the realtime model sent a message that is not JSON`);
      return;
    }
    // A failure here (a database write, a tool) ends this call cleanly, never the process.
    onModelEvent(event).catch((error) => failed("ended after an error", error));
  }

  function listenToModel(socket: WebSocket) {
    // A throw inside a socket listener would be an uncaught exception: this call ends, not the process.
    socket.on("message", (data) => {
      try {
        onModelMessage(data);
      } catch (error) {
        failed("ended after an error", error);
      }
    });
    socket.on("error", (error) => void modelFailed(`connection error: ${error.message}`));
    socket.on("close", (code) => void modelFailed(`connection closed (${code})`));
  }

  async function onModelEvent(event: ModelEvent) {
    switch (event.type) {
      case "session.updated":
        await moment("modelReadyAt");
        return;
      case "response.created":
        state.responseStarted();
        return;
      case "response.output_audio.delta":
        play(event.item_id, event.delta);
        return;
      case "response.output_audio.done":
        markPlayback();
        return;
      case "input_audio_buffer.speech_started": {
        // The caller's turn: nothing is owed until it ends.
        agentOwesNothing();
        void moment("callerHeardAt");
        // Barge-in: cut the reply at what the caller heard, and drop what Twilio still holds (the
        // server's turn detection cancels its own response).
        quality.callerStarted(stopPlayback());
        return;
      }
      case "input_audio_buffer.speech_stopped":
        quality.callerStopped();
        awaitAgent("after the caller's turn");
        return;
      case "input_audio_buffer.committed":
        awaitAgent("after the caller's turn");
        return;
      case "conversation.item.input_audio_transcription.completed": {
        const text = String(event.transcript ?? "");
        if (!text.trim()) return;
        void moment("callerHeardAt");
        await leg.transcript("caller", text);
        const script = state.crisisHandled ? null : leg.crisisScript(text);
        if (script) {
          state.crisisHeard();
          await leg.flag("crisis language");
          // The script comes first: whatever is playing stops, and nothing queued goes before it.
          interrupt();
          state.waitingDropped();
          requestResponse({
            instructions: `Read this message to the caller exactly, word for word, calmly, then keep listening and do not end the call: "${script}"`,
          });
        }
        return;
      }
      case "response.output_audio_transcript.done": {
        const text = String(event.transcript ?? "");
        if (text.trim()) await leg.transcript("agent", text);
        return;
      }
      case "response.function_call_arguments.done":
        await runTool(event.call_id, event.name, event.arguments);
        return;
      case "response.done": {
        markPlayback();
        const next = state.replyDone();
        if (next) requestResponse(next);
        else maybeFinish();
        return;
      }
      case "error":
        // Before the session is accepted, an error is the model refusing it (a voice it rejects, a bad setting).
        if (!state.hasReached("modelReadyAt")) return modelFailed(`the session was refused: ${event.error?.message ?? "unknown"}`);
        // A cancel that crossed the response's end on the wire: there was nothing left to stop.
        if (event.error?.code === "response_cancel_not_active") return;
        log(`realtime error on ${label}: ${event.error?.message ?? "unknown"}`);
        return;
      default:
        return;
    }
  }

  async function runTool(callIdOfTool: string, name: string, rawArguments: string) {
    let output: string;
    let toolTimer: NodeJS.Timeout | undefined;
    // The tool has its own time limit; the wait for the agent's voice starts again once it answered.
    agentOwesNothing();
    stallAnswered();
    try {
      const args = rawArguments ? (JSON.parse(rawArguments) as Record<string, unknown>) : {};
      const admitted = admitToolCall(agent!, name, args);
      if (admitted.refused) quality.toolRefused(name, admitted.refused);
      output = await Promise.race([
        admitted.refused ? admitted.output : admitted.tool.run(args),
        new Promise<string>((_, reject) => {
          toolTimer = setTimeout(() => reject(new Error("timed out")), TOOL_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      output = `The action failed (${(error as Error).message}). Apologise briefly and continue.`;
    } finally {
      clearTimeout(toolTimer);
    }
    sendModel(toolOutputEvent(callIdOfTool, output));
    // After a crisis the agent stays: the caller is never hung up on.
    if (name === END_CALL && !state.crisisHandled) {
      state.hangUpRequested();
      maybeFinish();
      return;
    }
    requestResponse();
    awaitAgent("after a tool's answer");
  }

  // A throw inside a socket listener would be an uncaught exception: this call ends, not the process.
  twilio.on("message", (data) => {
    try {
      onTwilioMessage(data);
    } catch (error) {
      failed("ended after an error in the media stream", error);
    }
  });

  function onTwilioMessage(data: WebSocket.RawData) {
    if (readCallerAudio(data, hear)) return;
    const message = parseTwilioMessage(data);
    if (message === undefined) return;
    switch (message.event) {
      case "start":
        if (!state.streamStarted()) return;
        clearTimeout(startTimer);
        awaitAgent("of the stream's start");
        void start(message, Date.now()).catch((error) => {
          log(`${label} could not start: ${reasonOf(error)}`);
          quality.ended("error");
          close("error");
        });
        return;
      case "media": {
        const payload = callerAudioOf(message);
        if (payload) hear(payload);
        return;
      }
      case "mark": {
        if (state.markHeard(message.mark?.name)) {
          // The agent's voice is reaching the caller: what they said before it is being answered.
          stallAnswered();
          void moment("agentHeardAt");
          if (limits.agentMinimumMs !== undefined && state.agentHeardMs >= limits.agentMinimumMs) void moment("agentMinimumHeardAt");
        }
        maybeFinish();
        return;
      }
      case "stop":
        // The caller hung up, or Twilio ended the call (its time limit: the leg tells them apart).
        quality.ended("caller_hung_up");
        close("stop");
        return;
      default:
        return;
    }
  }
  twilio.on("close", () => close("twilio closed"));
  twilio.on("error", () => close("twilio error"));
}

/** A call's first words and turn waits, into the process's histograms (sakina_bridge_*). */
function observeQuality(report: QualityReport) {
  if (report.firstAudioAt) bridgeFirstWords.observe((report.firstAudioAt.getTime() - report.streamStartedAt.getTime()) / 1000);
  for (const turn of report.turns) if (turn.latencyMs !== null) bridgeTurnLatency.observe(turn.latencyMs / 1000);
}
