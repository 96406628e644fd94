// Its own file, never inlined as a data: address, which the CSP (script-src 'self') would refuse.
import workletUrl from "./mic-worklet.js?url&no-inline";

/**
 * The browser's side of the live voice (JavaScript only): the microphone streamed as 24 kHz PCM16
 * over a WebSocket to the server's realtime bridge, the agent's audio played as it arrives. It
 * speaks the media-stream messages the phone calls use: "media" both ways, "mark" echoed once the
 * audio before it has played (so a barge-in cuts the reply where the caller stopped hearing it),
 * "clear" to drop what is still unplayed.
 */

/** The server's close codes (app/voice/bridge.server.ts, and the address cap in web-voice.server.ts). */
const CLOSE_REFUSED = 4403;
const CLOSE_MODEL_UNAVAILABLE = 4503;
const CLOSE_TOO_MANY_VOICES = 4429;
const RATE = 24000;

export type LiveVoiceEnd = "ended" | "refused" | "busy" | "unavailable" | "failed";

export interface LiveVoiceHandlers {
  /** The agent's audio started or stopped playing. */
  onSpeaking(speaking: boolean): void;
  /** A line was added to the conversation (the caller's words or the agent's). */
  onTranscript(): void;
  /**
   * The voice ended: by the agent or the time limit ("ended"), refused, too many voices open from
   * this address ("busy"), the model unavailable, or the connection lost.
   */
  onEnd(why: LiveVoiceEnd): void;
}

export interface LiveVoice {
  setMuted(muted: boolean): void;
  stop(): void;
}

/** Whether this browser can do the live voice (else the recorded turns). */
export const canStreamVoice = () =>
  typeof window !== "undefined" &&
  typeof window.AudioWorkletNode !== "undefined" &&
  typeof window.WebSocket !== "undefined" &&
  typeof navigator.mediaDevices?.getUserMedia === "function";

function toBase64(bytes: Uint8Array) {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function pcmFromBase64(base64: string) {
  const binary = atob(base64);
  const samples = new Float32Array(binary.length >> 1);
  for (let i = 0; i < samples.length; i++) {
    const value = binary.charCodeAt(2 * i) | (binary.charCodeAt(2 * i + 1) << 8);
    samples[i] = (value >= 0x8000 ? value - 0x10000 : value) / 32768;
  }
  return samples;
}

/**
 * Starts the live voice of web call `callId`: asks for the microphone (throws its DOMException when
 * refused or absent), connects, and streams until stop() or the server ends it.
 */
export async function startLiveVoice(callId: number, token: string, handlers: LiveVoiceHandlers): Promise<LiveVoice> {
  const microphone = await navigator.mediaDevices.getUserMedia({
    audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true },
  });
  const context = new AudioContext();
  let socket: WebSocket | null = null;
  let stopped = false;
  const playing = new Set<AudioBufferSourceNode>();
  const marks: { name: string; timer: number }[] = [];
  let playhead = 0;
  let speaking = false;
  let speakingTimer = 0;

  const send = (message: object) => socket?.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));
  const echo = (name: string) => send({ event: "mark", mark: { name } });

  function setSpeaking(now: boolean) {
    if (now !== speaking) handlers.onSpeaking((speaking = now));
  }

  function play(payload: string) {
    const samples = pcmFromBase64(payload);
    if (samples.length === 0) return;
    const buffer = context.createBuffer(1, samples.length, RATE);
    buffer.copyToChannel(samples, 0);
    const source = context.createBufferSource();
    source.buffer = buffer;
    source.connect(context.destination);
    const at = Math.max(context.currentTime, playhead);
    source.start(at);
    playhead = at + buffer.duration;
    playing.add(source);
    source.onended = () => playing.delete(source);
    setSpeaking(true);
    window.clearTimeout(speakingTimer);
    speakingTimer = window.setTimeout(() => setSpeaking(false), (playhead - context.currentTime) * 1000 + 50);
  }

  function mark(name: string) {
    const wait = (playhead - context.currentTime) * 1000;
    if (wait <= 0) return echo(name);
    const entry = { name, timer: 0 };
    entry.timer = window.setTimeout(() => {
      marks.splice(marks.indexOf(entry), 1);
      echo(name);
    }, wait);
    marks.push(entry);
  }

  /** The caller barged in: what has not played is dropped, and every pending mark answered. */
  function clear() {
    for (const source of playing) source.stop();
    playing.clear();
    playhead = context.currentTime;
    for (const entry of marks.splice(0)) {
      window.clearTimeout(entry.timer);
      echo(entry.name);
    }
    window.clearTimeout(speakingTimer);
    setSpeaking(false);
  }

  function release() {
    if (stopped) return;
    stopped = true;
    for (const entry of marks.splice(0)) window.clearTimeout(entry.timer);
    window.clearTimeout(speakingTimer);
    microphone.getTracks().forEach((track) => track.stop());
    void context.close().catch(() => {});
  }

  let capture: AudioWorkletNode;
  try {
    await context.audioWorklet.addModule(workletUrl);
    capture = new AudioWorkletNode(context, "mic-capture");
    context.createMediaStreamSource(microphone).connect(capture);
  } catch (error) {
    release();
    throw error;
  }

  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${window.location.host}/web-call-stream/${callId}`);
  socket.onopen = () => send({ event: "start", start: { customParameters: { token } } });
  socket.onmessage = (event) => {
    let message: { event?: string; media?: { payload?: string }; mark?: { name?: string } };
    try {
      message = JSON.parse(String(event.data));
    } catch {
      return;
    }
    if (message.event === "media" && message.media?.payload) play(message.media.payload);
    else if (message.event === "mark" && message.mark?.name) mark(message.mark.name);
    else if (message.event === "clear") clear();
    else if (message.event === "transcript") handlers.onTranscript();
  };
  socket.onclose = (event) => {
    const wasStopped = stopped;
    release();
    if (wasStopped) return;
    handlers.onEnd(
      event.code === CLOSE_REFUSED
        ? "refused"
        : event.code === CLOSE_TOO_MANY_VOICES
          ? "busy"
          : event.code === CLOSE_MODEL_UNAVAILABLE
            ? "unavailable"
            : event.code === 1000
              ? "ended"
              : "failed",
    );
  };
  capture.port.onmessage = (event: MessageEvent<ArrayBuffer>) =>
    send({ event: "media", media: { payload: toBase64(new Uint8Array(event.data)) } });
  // A page opened without a click (autoplay rules) starts suspended: the microphone button was one.
  await context.resume().catch(() => {});

  return {
    setMuted: (muted) => capture.port.postMessage({ muted }),
    stop() {
      release();
      socket?.close(1000, "hang up");
    },
  };
}
