/**
 * A stand-in for Twilio's side of a bidirectional Media Stream (`<Connect><Stream>`): a `ws`
 * client that connects to the app's WebSocket and speaks Twilio's Media Streams protocol. The fake
 * Twilio (./twilio/streams.ts) uses it for the calls it dials; the load benchmark can use it alone.
 *
 *   const stream = await connectMediaStream({ url: "ws://127.0.0.1:PORT/stream", authToken,
 *                                             callSid?, accountSid?, customParameters?, signature? });
 *
 * Handshake: like Twilio, the upgrade request carries `X-Twilio-Signature`, the SDK's
 * getExpectedTwilioSignature(authToken, url, {}) over the stream URL exactly as given (query string
 * included) with no parameters. `signature: "..."` sends that value instead, `signature: false`
 * sends none (to test that the app refuses it). A refused handshake rejects with an Error whose
 * `statusCode` is the HTTP status the app answered.
 *
 * Sent to the app (every message but `connected` carries `sequenceNumber`, a STRING counting up from
 * "1", and `streamSid`, exactly as Twilio does; media.chunk and media.timestamp are strings too):
 *   {"event":"connected","protocol":"Call","version":"1.0.0"}
 *   {"event":"start","sequenceNumber":"1","start":{"accountSid","streamSid":"MZ…","callSid","tracks":["inbound"],
 *      "customParameters":{…},"mediaFormat":{"encoding":"audio/x-mulaw","sampleRate":8000,"channels":1}},"streamSid"}
 *   {"event":"media","sequenceNumber","media":{"track":"inbound","chunk":"1","timestamp":"0","payload":<base64, 160 bytes>},"streamSid"}
 *   {"event":"mark","sequenceNumber","streamSid","mark":{"name"}}     (echo of the app's mark once played)
 *   {"event":"dtmf","sequenceNumber","streamSid","dtmf":{"track":"inbound_track","digit"}}
 *   {"event":"stop","sequenceNumber","streamSid","stop":{"accountSid","callSid"}}   then the socket closes
 *
 * Handle (what the caller "says"; each frame is 20 ms = 160 bytes of 8 kHz μ-law):
 *   stream.sendSilence(ms) / sendSpeech(ms)   send ceil(ms/20) frames at once (silence is 0xFF bytes; speech
 *                                              is a synthetic voiced sound, loud enough for any VAD; pass
 *                                              `speech: "tone"` to connect for a plain 440 Hz tone instead)
 *   stream.sendAudio(mulawBytes)              any μ-law audio, cut into 160-byte frames (last one padded)
 *   stream.startRealtimeAudio({ speech })     one frame every 20 ms like a live call (drift-corrected);
 *                                              calling it again switches between speech and silence
 *   stream.stopRealtimeAudio()
 *   stream.sendDtmf(digit)
 *   stream.hangup()                           the caller hangs up: `stop`, then close (resolves once closed)
 *   stream.stop()                             same messages (Twilio ending the stream: time limit, REST hangup)
 *   stream.close()                            drops the connection without `stop` (a network failure)
 *
 * What the app sends, modelled like Twilio: `media` audio is queued and "played" in real time at
 * 8000 bytes/s from its arrival; a `mark` is echoed once all audio queued before it has played
 * (at once if nothing is queued); `clear` drops the unplayed audio immediately and echoes every
 * pending mark at once, in order. Messages with another streamSid, unknown events, bad JSON, binary
 * frames, or media payloads that are not base64 are ignored and recorded in `stream.errors`
 * (Twilio's 31951 "Stream - Protocol - Invalid Message"); the stream goes on.
 *   stream.played              ms of app audio actually played so far (getter)
 *   stream.receivedAudioMs()   ms of app audio received (played or not)
 *   stream.pendingPlaybackMs() ms still queued
 *   stream.receivedAudio()     the app's μ-law audio, concatenated (unless keepAudio: false)
 *   stream.marksEchoed         names of the marks echoed, in order
 *   stream.clears              number of `clear` messages
 *   stream.messages            every JSON message received from the app
 *   stream.onMessage(cb)       subscribe (returns an unsubscribe function)
 *   stream.waitForMessage(event, predicate?, timeoutMs?)   the next (or an already received) matching message
 *   stream.waitForMark(name, timeoutMs?)                   resolves once that mark has been echoed
 *   stream.closed              Promise<{ code, reason, initiator: "twilio" | "app" }> (who closed the socket)
 * Timing hooks for benchmarks (performance.now() values):
 *   stream.inboundSendTimes    when each inbound media frame was handed to the socket
 *   stream.outboundArrivals    when each outbound media message from the app arrived
 *   stream.startedAt           when `start` was sent
 */
import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import twilio from "twilio";
import WebSocket from "ws";

export const SAMPLE_RATE = 8000;
export const FRAME_MS = 20;
export const FRAME_BYTES = 160;
const BYTES_PER_MS = SAMPLE_RATE / 1000;

// ---------------------------------------------------------------------------------------------
// G.711 μ-law and test signals

/** 16-bit linear PCM sample to a G.711 μ-law byte. */
export function linearToMulaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  let s = Math.max(-32768, Math.min(32767, Math.round(sample)));
  const sign = s < 0 ? 0x80 : 0;
  if (sign) s = -s;
  if (s > CLIP) s = CLIP;
  s += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (s & mask) === 0 && exponent > 0; exponent--, mask >>= 1);
  const mantissa = (s >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 μ-law byte to a 16-bit linear PCM sample. */
export function mulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

/** Root mean square of μ-law audio, in 16-bit units (silence is 0, speech here is several thousand). */
export function mulawRms(audio: Buffer): number {
  if (audio.length === 0) return 0;
  let sum = 0;
  for (const byte of audio) {
    const v = mulawToLinear(byte);
    sum += v * v;
  }
  return Math.sqrt(sum / audio.length);
}

let voiceClip: Buffer | undefined;
let toneClip: Buffer | undefined;

/**
 * One second of synthetic speech: a voiced sound (glottal harmonics of a gliding 110–170 Hz pitch
 * shaped by vowel formants /a/ /i/ /u/ /e/), four syllables with a never-silent envelope. Built
 * once, then looped.
 */
function speechClip(): Buffer {
  if (voiceClip) return voiceClip;
  const vowels = [
    [730, 1090, 2440],
    [270, 2290, 3010],
    [300, 870, 2240],
    [530, 1840, 2480],
  ];
  const pcm = new Float64Array(SAMPLE_RATE);
  let phase = 0;
  for (let n = 0; n < SAMPLE_RATE; n++) {
    const t = n / SAMPLE_RATE;
    const syllable = Math.floor(t * 4);
    const within = t * 4 - syllable;
    const f0 = 140 + 30 * Math.sin(2 * Math.PI * 1.3 * t);
    phase += (2 * Math.PI * f0) / SAMPLE_RATE;
    const formants = vowels[syllable % vowels.length]!;
    let v = 0;
    for (let k = 1; k * f0 < 3600; k++) {
      const f = k * f0;
      let gain = 0;
      for (const formant of formants) gain += 1 / (1 + ((f - formant) / 90) ** 2);
      v += (gain / k ** 0.7) * Math.sin(k * phase);
    }
    const envelope = 0.35 + 0.65 * Math.sin(Math.PI * within) ** 2;
    pcm[n] = v * envelope;
  }
  let peak = 0;
  for (const v of pcm) peak = Math.max(peak, Math.abs(v));
  voiceClip = Buffer.alloc(SAMPLE_RATE);
  for (let n = 0; n < SAMPLE_RATE; n++) voiceClip[n] = linearToMulaw((pcm[n]! / peak) * 16000);
  return voiceClip;
}

/** One second of a 440 Hz tone (exactly 440 periods, so it loops without a click). */
function tone440Clip(): Buffer {
  if (toneClip) return toneClip;
  toneClip = Buffer.alloc(SAMPLE_RATE);
  for (let n = 0; n < SAMPLE_RATE; n++) toneClip[n] = linearToMulaw(12000 * Math.sin((2 * Math.PI * 440 * n) / SAMPLE_RATE));
  return toneClip;
}

/** `ms` of μ-law silence (0xFF), whole 20 ms frames. */
export function silence(ms: number): Buffer {
  return Buffer.alloc(Math.ceil(ms / FRAME_MS) * FRAME_BYTES, 0xff);
}

/** `ms` of audible μ-law (whole 20 ms frames) from the looped speech or tone clip. */
export function speech(ms: number, kind: "voice" | "tone" = "voice", offsetBytes = 0): Buffer {
  const clip = kind === "tone" ? tone440Clip() : speechClip();
  const out = Buffer.alloc(Math.ceil(ms / FRAME_MS) * FRAME_BYTES);
  for (let i = 0; i < out.length; i++) out[i] = clip[(offsetBytes + i) % clip.length]!;
  return out;
}

// ---------------------------------------------------------------------------------------------
// The client

export interface MediaStreamOptions {
  /** The stream URL from `<Stream url="…">` (ws:// or wss://). */
  url: string;
  /** Signs the handshake like Twilio. */
  authToken: string;
  accountSid?: string;
  callSid?: string;
  streamSid?: string;
  /** `<Parameter name value>` pairs, sent in `start.customParameters`. */
  customParameters?: Record<string, string>;
  /** Override the handshake signature, or `false` to send none. */
  signature?: string | false;
  /** Extra upgrade headers. */
  headers?: Record<string, string>;
  /** What sendSpeech sends: a synthetic voice (default) or a 440 Hz tone. */
  speech?: "voice" | "tone";
  /** Keep the app's audio for receivedAudio() (default true; a long benchmark may turn it off). */
  keepAudio?: boolean;
  handshakeTimeoutMs?: number;
}

export type StreamMessage = { event: string; [key: string]: any };

export interface StreamProtocolError {
  code: number;
  message: string;
  raw?: string;
}

export interface StreamClose {
  code: number;
  reason: string;
  /** "twilio": this client closed the socket (hangup/stop/close); "app": the app's server did. */
  initiator: "twilio" | "app";
}

export interface MediaStreamHandle {
  readonly url: string;
  readonly streamSid: string;
  readonly callSid: string;
  readonly accountSid: string;
  readonly customParameters: Record<string, string>;
  readonly socket: WebSocket;
  readonly isOpen: boolean;
  readonly startedAt: number;
  readonly inboundSendTimes: number[];
  readonly outboundArrivals: number[];
  readonly messages: StreamMessage[];
  readonly marksEchoed: string[];
  readonly errors: StreamProtocolError[];
  readonly clears: number;
  readonly played: number;
  readonly closed: Promise<StreamClose>;
  receivedAudioMs(): number;
  pendingPlaybackMs(): number;
  receivedAudio(): Buffer;
  sendAudio(mulaw: Buffer): Promise<void>;
  sendSilence(ms: number): Promise<void>;
  sendSpeech(ms: number): Promise<void>;
  startRealtimeAudio(options?: { speech?: boolean }): void;
  stopRealtimeAudio(): void;
  sendDtmf(digit: string): void;
  onMessage(callback: (message: StreamMessage) => void): () => void;
  waitForMessage(event: string, predicate?: (message: StreamMessage) => boolean, timeoutMs?: number): Promise<StreamMessage>;
  waitForMark(name: string, timeoutMs?: number): Promise<void>;
  hangup(): Promise<StreamClose>;
  stop(): Promise<StreamClose>;
  close(): Promise<StreamClose>;
}

export function randomSid(prefix: string) {
  return prefix + randomBytes(16).toString("hex");
}

/** Opens the stream, sends `connected` and `start`, and resolves once both are on the wire. */
export function connectMediaStream(options: MediaStreamOptions): Promise<MediaStreamHandle> {
  const accountSid = options.accountSid ?? randomSid("AC");
  const callSid = options.callSid ?? randomSid("CA");
  const streamSid = options.streamSid ?? randomSid("MZ");
  const customParameters = { ...(options.customParameters ?? {}) };
  const speechKind = options.speech ?? "voice";
  const keepAudio = options.keepAudio ?? true;

  const headers: Record<string, string> = { "User-Agent": "Twilio.TmeWs/1.0", ...(options.headers ?? {}) };
  const signature =
    options.signature === undefined ? twilio.getExpectedTwilioSignature(options.authToken, options.url, {}) : options.signature;
  if (signature !== false) headers["X-Twilio-Signature"] = signature;

  const socket = new WebSocket(options.url, { headers, handshakeTimeout: options.handshakeTimeoutMs ?? 10_000, perMessageDeflate: false });

  let sequence = 0;
  const nextSequence = () => String(++sequence);
  let chunk = 0;
  let lastTimestamp = -FRAME_MS;
  let startedAt = 0;
  let speechOffset = 0;

  const inboundSendTimes: number[] = [];
  const outboundArrivals: number[] = [];
  const messages: StreamMessage[] = [];
  const marksEchoed: string[] = [];
  const errors: StreamProtocolError[] = [];
  const listeners = new Set<(message: StreamMessage) => void>();
  const audioChunks: Buffer[] = [];
  let clears = 0;

  // Playback clock (performance.now() ms).
  let receivedBytes = 0;
  let queuedMs = 0;
  let droppedMs = 0;
  let playbackEnd = 0;
  const pendingMarks: { name: string; due: number }[] = [];
  let markTimer: NodeJS.Timeout | undefined;

  // Realtime audio.
  let realtimeTimer: NodeJS.Timeout | undefined;
  let realtimeSpeech = false;
  let realtimeStart = 0;
  let realtimeSent = 0;

  let closedByUs = false;
  let resolveClosed!: (close: StreamClose) => void;
  const closed = new Promise<StreamClose>((resolve) => (resolveClosed = resolve));

  const isOpen = () => socket.readyState === WebSocket.OPEN;

  function send(message: object, onWritten?: (error?: Error) => void) {
    if (!isOpen()) {
      onWritten?.();
      return false;
    }
    socket.send(JSON.stringify(message), onWritten);
    return true;
  }

  function remainingMs(now = performance.now()) {
    return Math.max(0, playbackEnd - now);
  }

  function echoMark(name: string) {
    marksEchoed.push(name);
    send({ event: "mark", sequenceNumber: nextSequence(), streamSid, mark: { name } });
  }

  function scheduleMarks() {
    if (markTimer) clearTimeout(markTimer);
    markTimer = undefined;
    const first = pendingMarks[0];
    if (!first) return;
    // A timer can fire a little before its time (Node's loop reads its clock once a turn): a mark
    // not yet due waits another millisecond, so none is echoed before its audio has played.
    markTimer = setTimeout(releaseMarks, Math.max(1, Math.ceil(first.due - performance.now())));
  }

  function releaseMarks() {
    markTimer = undefined;
    const now = performance.now();
    while (pendingMarks.length > 0 && pendingMarks[0]!.due <= now) echoMark(pendingMarks.shift()!.name);
    scheduleMarks();
  }

  function protocolError(message: string, raw?: string) {
    errors.push({ code: 31951, message, ...(raw === undefined ? {} : { raw: raw.slice(0, 500) }) });
  }

  function onAppMessage(data: WebSocket.RawData, isBinary: boolean) {
    const now = performance.now();
    if (isBinary) {
      protocolError("Binary frames are not part of the protocol");
      return;
    }
    const raw = data.toString();
    let message: StreamMessage;
    try {
      message = JSON.parse(raw) as StreamMessage;
    } catch {
      protocolError("Message is not JSON", raw);
      return;
    }
    if (!message || typeof message !== "object" || typeof message.event !== "string") {
      protocolError("Message has no event", raw);
      return;
    }
    messages.push(message);
    if (message.streamSid !== streamSid) {
      protocolError(`Message with streamSid ${String(message.streamSid)}, expected ${streamSid}`, raw);
    } else if (message.event === "media") {
      const payload = message.media?.payload;
      if (typeof payload !== "string" || payload.length === 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(payload) || payload.length % 4 !== 0) {
        protocolError("media.payload must be base64 audio/x-mulaw", raw);
      } else {
        const audio = Buffer.from(payload, "base64");
        outboundArrivals.push(now);
        receivedBytes += audio.length;
        if (keepAudio) audioChunks.push(audio);
        const duration = audio.length / BYTES_PER_MS;
        queuedMs += duration;
        playbackEnd = Math.max(playbackEnd, now) + duration;
      }
    } else if (message.event === "mark") {
      const name = message.mark?.name;
      if (typeof name !== "string") {
        protocolError("mark.name is required", raw);
      } else if (remainingMs(now) === 0 && pendingMarks.length === 0) {
        echoMark(name);
      } else {
        pendingMarks.push({ name, due: Math.max(playbackEnd, pendingMarks.at(-1)?.due ?? 0) });
        scheduleMarks();
      }
    } else if (message.event === "clear") {
      clears++;
      droppedMs += remainingMs(now);
      playbackEnd = now;
      if (markTimer) clearTimeout(markTimer);
      markTimer = undefined;
      for (const mark of pendingMarks.splice(0)) echoMark(mark.name);
    } else {
      protocolError(`Unknown event ${message.event}`, raw);
    }
    for (const listener of [...listeners]) listener(message);
  }

  function sendFrame(frame: Buffer, onWritten?: (error?: Error) => void) {
    const now = performance.now();
    const elapsed = Math.round(now - startedAt);
    const timestamp = chunk === 0 ? elapsed : Math.max(lastTimestamp + FRAME_MS, elapsed);
    lastTimestamp = timestamp;
    chunk++;
    inboundSendTimes.push(now);
    return send(
      {
        event: "media",
        sequenceNumber: nextSequence(),
        media: { track: "inbound", chunk: String(chunk), timestamp: String(timestamp), payload: frame.toString("base64") },
        streamSid,
      },
      onWritten,
    );
  }

  function sendAudio(mulaw: Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (!isOpen() || mulaw.length === 0) return resolve();
      const frames = Math.ceil(mulaw.length / FRAME_BYTES);
      for (let i = 0; i < frames; i++) {
        let frame = mulaw.subarray(i * FRAME_BYTES, (i + 1) * FRAME_BYTES);
        if (frame.length < FRAME_BYTES) frame = Buffer.concat([frame, Buffer.alloc(FRAME_BYTES - frame.length, 0xff)]);
        sendFrame(frame, i === frames - 1 ? () => resolve() : undefined);
      }
    });
  }

  function nextSpeech(ms: number) {
    const audio = speech(ms, speechKind, speechOffset);
    speechOffset = (speechOffset + audio.length) % SAMPLE_RATE;
    return audio;
  }

  function realtimeTick() {
    realtimeTimer = undefined;
    if (!isOpen()) return;
    const now = performance.now();
    const due = Math.floor((now - realtimeStart) / FRAME_MS) + 1;
    // After a long stall send at most one second of catch-up, as a real media server would.
    if (due - realtimeSent > 50) realtimeSent = due - 50;
    while (realtimeSent < due) {
      sendFrame(realtimeSpeech ? nextSpeech(FRAME_MS) : silence(FRAME_MS));
      realtimeSent++;
    }
    realtimeTimer = setTimeout(realtimeTick, Math.max(0, realtimeStart + realtimeSent * FRAME_MS - performance.now()));
  }

  function stopRealtimeAudio() {
    if (realtimeTimer) clearTimeout(realtimeTimer);
    realtimeTimer = undefined;
  }

  function cleanup() {
    stopRealtimeAudio();
    if (markTimer) clearTimeout(markTimer);
    markTimer = undefined;
    pendingMarks.length = 0;
    // Audio still queued when the stream ends is never played.
    droppedMs += remainingMs();
    playbackEnd = 0;
  }

  function closeSocket(withStop: boolean): Promise<StreamClose> {
    if (isOpen()) {
      closedByUs = true;
      stopRealtimeAudio();
      if (withStop) send({ event: "stop", sequenceNumber: nextSequence(), streamSid, stop: { accountSid, callSid } });
      socket.close(1000);
      // A peer that never answers the close frame: drop the TCP connection after a while.
      const kill = setTimeout(() => socket.terminate(), 2000);
      kill.unref();
      void closed.then(() => clearTimeout(kill));
    } else if (socket.readyState === WebSocket.CONNECTING) {
      closedByUs = true;
      socket.terminate();
    }
    return closed;
  }

  function waitForMessage(event: string, predicate: (message: StreamMessage) => boolean = () => true, timeoutMs = 5000) {
    const found = messages.find((m) => m.event === event && predicate(m));
    if (found) return Promise.resolve(found);
    return new Promise<StreamMessage>((resolve, reject) => {
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`No ${event} message from the app within ${timeoutMs} ms`));
      }, timeoutMs);
      const unsubscribe = handle.onMessage((m) => {
        if (m.event === event && predicate(m)) {
          clearTimeout(timer);
          unsubscribe();
          resolve(m);
        }
      });
    });
  }

  const handle: MediaStreamHandle = {
    url: options.url,
    streamSid,
    callSid,
    accountSid,
    customParameters,
    socket,
    get isOpen() {
      return isOpen();
    },
    get startedAt() {
      return startedAt;
    },
    inboundSendTimes,
    outboundArrivals,
    messages,
    marksEchoed,
    errors,
    get clears() {
      return clears;
    },
    get played() {
      return Math.max(0, queuedMs - droppedMs - remainingMs());
    },
    closed,
    receivedAudioMs: () => receivedBytes / BYTES_PER_MS,
    pendingPlaybackMs: () => remainingMs(),
    receivedAudio: () => Buffer.concat(audioChunks),
    sendAudio,
    sendSilence: (ms) => sendAudio(silence(ms)),
    sendSpeech: (ms) => sendAudio(nextSpeech(ms)),
    startRealtimeAudio(opts = {}) {
      realtimeSpeech = Boolean(opts.speech);
      if (realtimeTimer || !isOpen()) return;
      realtimeStart = performance.now();
      realtimeSent = 0;
      realtimeTick();
    },
    stopRealtimeAudio,
    sendDtmf(digit) {
      send({ event: "dtmf", sequenceNumber: nextSequence(), streamSid, dtmf: { track: "inbound_track", digit } });
    },
    onMessage(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
    waitForMessage,
    waitForMark(name, timeoutMs = 5000) {
      if (marksEchoed.includes(name)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const started = Date.now();
        const poll = setInterval(() => {
          if (marksEchoed.includes(name)) {
            clearInterval(poll);
            resolve();
          } else if (Date.now() - started > timeoutMs || (!isOpen() && pendingMarks.every((m) => m.name !== name))) {
            clearInterval(poll);
            reject(new Error(`Mark ${name} was not echoed within ${timeoutMs} ms`));
          }
        }, 2);
      });
    },
    hangup: () => closeSocket(true),
    stop: () => closeSocket(true),
    close: () => closeSocket(false),
  };

  socket.on("message", onAppMessage);

  return new Promise<MediaStreamHandle>((resolve, reject) => {
    let opened = false;
    socket.once("open", () => {
      opened = true;
      send({ event: "connected", protocol: "Call", version: "1.0.0" });
      startedAt = performance.now();
      send(
        {
          event: "start",
          sequenceNumber: nextSequence(),
          start: {
            accountSid,
            streamSid,
            callSid,
            tracks: ["inbound"],
            customParameters,
            mediaFormat: { encoding: "audio/x-mulaw", sampleRate: SAMPLE_RATE, channels: 1 },
          },
          streamSid,
        },
        () => resolve(handle),
      );
    });
    socket.on("error", (error: Error & { statusCode?: number }) => {
      if (opened) return; // the close event follows and settles `closed`
      const status = /Unexpected server response: (\d+)/.exec(error.message)?.[1];
      const failure = Object.assign(new Error(`Media stream handshake to ${options.url} failed: ${error.message}`), {
        statusCode: status ? Number(status) : undefined,
        cause: error,
      });
      reject(failure);
    });
    socket.on("close", (code, reason) => {
      cleanup();
      resolveClosed({ code, reason: reason.toString(), initiator: closedByUs ? "twilio" : "app" });
      if (!opened) reject(new Error(`Media stream to ${options.url} closed before it opened (${code})`));
    });
  });
}
