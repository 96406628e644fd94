import WebSocket from "ws";

/** 16-bit PCM at 24 kHz: 48 bytes per millisecond, a 20 ms frame is 960 bytes. */
export const PCM_BYTES_PER_MS = 48;
const FRAME_MS = 20;

/** `ms` of PCM16 24 kHz audio: a loud 300 Hz tone (speech to a VAD) or zeros (silence), whole 20 ms frames. */
export function pcmAudio(ms: number, kind: "speech" | "silence") {
  const samples = Math.ceil(ms / FRAME_MS) * FRAME_MS * 24;
  const audio = Buffer.alloc(samples * 2);
  if (kind === "speech")
    for (let n = 0; n < samples; n++) audio.writeInt16LE(Math.round(12000 * Math.sin((2 * Math.PI * 300 * n) / 24000)), n * 2);
  return audio;
}

/**
 * What the /call page's voice script does, without a browser: connects to the web call's voice
 * stream, sends "start" with the conversation's token and the microphone as PCM16 frames, plays the
 * agent's audio in real time (48 bytes a millisecond from its arrival), echoes each mark once the
 * audio before it has played, and drops what is unplayed on "clear".
 */
export async function connectBrowserVoice(url: string, token: string, options: { forwardedFor?: string } = {}) {
  // Against a server with TRUST_PROXY=1, the visitor's address (as httpClient's forwardedFor).
  const socket = new WebSocket(url, options.forwardedFor ? { headers: { "X-Forwarded-For": options.forwardedFor } } : {});
  const messages: { event: string; [key: string]: unknown }[] = [];
  // The agent's audio plays from its arrival, one chunk after the other: playheadEnd is when the
  // audio received so far will have played (Date.now() time).
  let playheadEnd = 0;
  let receivedMs = 0;
  let clearedMs = 0;
  let clears = 0;
  const pendingMarks: { name: string; timer: NodeJS.Timeout }[] = [];
  const send = (message: object) => socket.readyState === WebSocket.OPEN && socket.send(JSON.stringify(message));
  const unplayedMs = () => Math.max(0, playheadEnd - Date.now());

  socket.on("message", (data) => {
    const message = JSON.parse(String(data)) as { event: string; media?: { payload: string }; mark?: { name: string } };
    messages.push(message);
    if (message.event === "media" && message.media) {
      const ms = Buffer.from(message.media.payload, "base64").length / PCM_BYTES_PER_MS;
      receivedMs += ms;
      playheadEnd = Math.max(Date.now(), playheadEnd) + ms;
    } else if (message.event === "mark" && message.mark) {
      const name = message.mark.name;
      const timer = setTimeout(() => {
        pendingMarks.splice(
          pendingMarks.findIndex((m) => m.name === name),
          1,
        );
        send({ event: "mark", mark: { name } });
      }, unplayedMs());
      pendingMarks.push({ name, timer });
    } else if (message.event === "clear") {
      clears += 1;
      clearedMs += unplayedMs();
      playheadEnd = Date.now();
      for (const mark of pendingMarks.splice(0)) {
        clearTimeout(mark.timer);
        send({ event: "mark", mark: { name: mark.name } });
      }
    }
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on("close", (code, reason) => {
      for (const mark of pendingMarks.splice(0)) clearTimeout(mark.timer);
      resolve({ code, reason: String(reason) });
    }),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  send({ event: "start", start: { customParameters: { token } } });

  return {
    messages,
    closed,
    get clears() {
      return clears;
    },
    /** ms of the agent's audio received. */
    receivedMs: () => receivedMs,
    /** ms of the agent's audio played so far. */
    playedMs: () => receivedMs - clearedMs - unplayedMs(),
    /** Sends audio as 20 ms frames, all at once. */
    say(audio: Buffer) {
      for (let at = 0; at < audio.length; at += FRAME_MS * PCM_BYTES_PER_MS) {
        send({ event: "media", media: { payload: audio.subarray(at, at + FRAME_MS * PCM_BYTES_PER_MS).toString("base64") } });
      }
    },
    close: () => socket.close(),
  };
}
