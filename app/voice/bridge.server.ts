import { bridgeFirstWords, bridgeFramesDropped, bridgeTurnLatency } from "~/platform/observability/metrics.server";
import { log as logger } from "~/platform/observability/log.server";
import WebSocket from "ws";
import type { QualityReport } from "#models/call-quality";
import type { CallMoment } from "#models/calls";
import type { AppServices } from "~/platform/services.server";
import { END_CALL, type Agent } from "~/voice/agents.server";
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
import { runAgentTool, sessionSetup, type BridgeServices } from "~/voice/model-session.server";
import { phoneLeg, type CallerLeg } from "~/voice/phone-leg.server";
import { perKey } from "~/lib/sharing/per-key";

/**
 * A mark follows every 250 ms of a reply's audio, and its end: the echoed marks tell how much the
 * caller has heard, to cut the reply there on barge-in, without a mark per 20 ms frame (each a
 * message out and one back).
 */
const MARK_EVERY_MS = 250;

/** What went wrong, in one line: a failed query's database error rather than its SQL and parameters. */
function reasonOf(error: unknown) {
  const cause = (error as { cause?: unknown })?.cause;
  const message = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
  return message.split("\n")[0];
}

/**
 * The call's media-stream URL, as Twilio is given it in the TwiML and as it signs the handshake:
 * MEDIA_STREAM_ORIGIN (a bridge process of its own) when set, else this server's public origin.
 */
export function mediaStreamUrl(services: Pick<AppServices, "env" | "publicOrigin">, callId: number | string) {
  const origin = services.env.MEDIA_STREAM_ORIGIN ? new URL(services.env.MEDIA_STREAM_ORIGIN).origin : services.publicOrigin();
  return `${origin.replace(/^http/, "ws")}/media-stream/${callId}`;
}

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
    // The tool has its own time limit; the wait for the agent's voice starts again once it answered.
    agentOwesNothing();
    stallAnswered();
    const { output, refused } = await runAgentTool(agent!, name, rawArguments);
    if (refused) quality.toolRefused(name, refused);
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
