import type { CallMoment } from "#models/calls";
import { streamHeads } from "~/voice/bridge-codec.server";

/** Audio that arrives before the model is ready is kept, up to this much (5 s). */
const MAX_EARLY_FRAMES = 250;

/**
 * One bridged call's state, changed only through named transitions that the bridge drives from the
 * socket events: the stream, the model's readiness, the responses, the playback the caller has
 * heard (for barge-in), the crisis script and the end. Plain state, no I/O: a transition returns
 * what the bridge is to send, and the bridge sends it.
 */
export class CallState {
  /** The caller's stream id, once its "start" came. */
  streamSid = "";
  // The text around the audio of the messages to the caller's stream, made once the stream's id is known.
  mediaHead = "";
  markHead = "";
  private started = false;
  private ready = false;
  private readonly early: string[] = [];
  // Playback tracking with marks: a mark follows every markEveryBytes of an item's audio and the
  // end of each reply; an echoed mark means the caller has heard everything up to it.
  private markSeq = 0;
  private readonly pendingMarks: { name: string; itemId: string; bytes: number }[] = [];
  private readonly playedBytes = new Map<string, number>();
  /** The agent's audio the caller has heard, all replies together (from the marks). */
  private heardBytes = 0;
  /** The item of the reply playing, once there is one. */
  currentItem: string | null = null;
  /** Audio sent to the caller since the last mark, and whose it is. */
  private unmarkedBytes = 0;
  private unmarkedItem: string | null = null;
  private active = false;
  /**
   * One response in flight at a time, as the Realtime API requires: a response asked for while
   * another is active (the model's own after the caller spoke, a tool's follow-up) waits for
   * `response.done`, in order.
   */
  private readonly waitingResponses: object[] = [];
  private hangupRequested = false;
  private crisis = false;
  private ended = false;
  private failed = false;
  private hangingUp = false;
  // What really happened on the call, written once each: whether it counts as delivered follows from these.
  private readonly recorded = new Set<CallMoment>();

  constructor(
    private readonly bytesPerMs: number,
    private readonly markEveryBytes: number,
  ) {}

  /** The stream's "start" came: false if it had already (the repeat is ignored). */
  streamStarted() {
    if (this.started) return false;
    this.started = true;
    return true;
  }

  /** Whether the stream's "start" came. */
  get hasStarted() {
    return this.started;
  }

  /** The stream's id is known: the messages to it are written around it from now. */
  streamIdentified(streamSid: string) {
    this.streamSid = streamSid;
    const heads = streamHeads(streamSid);
    this.mediaHead = heads.media;
    this.markHead = heads.mark;
  }

  /** Caller frames that came while the model was not ready and the early buffer was full: dropped. */
  droppedFrames = 0;

  /** A frame of the caller's audio (the hot path): true to send it to the model now; kept until the model is ready, else dropped. */
  callerAudio(payload: string) {
    if (this.ended) return false;
    if (!this.ready) {
      if (this.early.length < MAX_EARLY_FRAMES) this.early.push(payload);
      else this.droppedFrames += 1;
      return false;
    }
    return true;
  }

  /** The session is configured and the greeting asked for: returns the early audio, for the model, in order. */
  modelReady() {
    this.ready = true;
    return this.early.splice(0);
  }

  /**
   * A frame of the reply goes to the caller (the hot path): its item is the one playing. Returns the
   * name of the mark to send before it, ending the previous item's audio, or null.
   */
  replyAudio(itemId: string, delta: string) {
    // A new item: the previous one's audio ends here.
    const ended = itemId !== this.unmarkedItem ? this.marked() : null;
    this.currentItem = itemId;
    this.unmarkedItem = itemId;
    this.unmarkedBytes += Buffer.byteLength(delta, "base64");
    return ended;
  }

  /** After a frame of the reply: the name of the mark due once markEveryBytes went unmarked, or null. */
  markDue() {
    return this.unmarkedBytes >= this.markEveryBytes ? this.marked() : null;
  }

  /** A mark after the audio sent so far (the end of an item or a reply): its name, or null if there is no audio to mark. */
  marked() {
    if (this.unmarkedBytes === 0 || !this.unmarkedItem) return null;
    const name = `m${++this.markSeq}`;
    this.pendingMarks.push({ name, itemId: this.unmarkedItem, bytes: this.unmarkedBytes });
    this.unmarkedBytes = 0;
    return name;
  }

  /** Twilio echoed a mark: the caller has heard everything up to it. False if it is not one still awaited. */
  markHeard(name: string | undefined) {
    const index = this.pendingMarks.findIndex((m) => m.name === name);
    if (index < 0) return false;
    for (const played of this.pendingMarks.splice(0, index + 1)) {
      this.playedBytes.set(played.itemId, (this.playedBytes.get(played.itemId) ?? 0) + played.bytes);
      this.heardBytes += played.bytes;
    }
    return true;
  }

  /** How much of the agent's voice the caller has heard, in ms of audio (not of the call's clock). */
  get agentHeardMs() {
    return this.heardBytes / this.bytesPerMs;
  }

  /**
   * Playback stops (barge-in, or something to say at once): if the item playing was not all heard,
   * returns where to cut it (the milliseconds heard, from the marks) and forgets the audio still
   * unheard; else null.
   */
  playbackStopped() {
    const currentItem = this.currentItem;
    const unheard =
      (this.unmarkedBytes > 0 && this.unmarkedItem === currentItem) || this.pendingMarks.some((m) => m.itemId === currentItem);
    if (!currentItem || !unheard) return null;
    const heardMs = Math.floor((this.playedBytes.get(currentItem) ?? 0) / this.bytesPerMs);
    this.pendingMarks.length = 0;
    this.unmarkedBytes = 0;
    return heardMs;
  }

  /** A response is asked for: true to ask the model now; false if one is active, and this one waits its turn. */
  responseRequested(response: object) {
    if (this.active) {
      this.waitingResponses.push(response);
      return false;
    }
    this.active = true;
    return true;
  }

  /** The model started a response (its own, or the greeting asked for in the session's set-up). */
  responseStarted() {
    this.active = true;
  }

  /** Whether a response is in flight. */
  get responseActive() {
    return this.active;
  }

  /** The response is done: returns the next one waiting, to ask for now, if any. */
  replyDone() {
    this.active = false;
    return this.waitingResponses.shift();
  }

  /** The caller's words sounded like a crisis: the script is read, once. */
  crisisHeard() {
    this.crisis = true;
  }

  /** Whether the crisis script was read: after it the agent stays, the caller is never hung up on. */
  get crisisHandled() {
    return this.crisis;
  }

  /** The crisis script comes first: nothing queued goes before it. */
  waitingDropped() {
    this.waitingResponses.length = 0;
  }

  /** The agent ended the call: it ends once the reply is done and heard. */
  hangUpRequested() {
    this.hangupRequested = true;
  }

  /** True once the agent asked to end the call and nothing is left to play or hear. */
  get finished() {
    return this.hangupRequested && !this.active && this.pendingMarks.length === 0;
  }

  /** A moment of the call happened: true the first time, to write it. */
  reached(moment: CallMoment) {
    if (this.recorded.has(moment)) return false;
    this.recorded.add(moment);
    return true;
  }

  /** Whether the moment happened. */
  hasReached(moment: CallMoment) {
    return this.recorded.has(moment);
  }

  /** The model failed: true the first time, and only while the call is on (not once the bridge hangs up). */
  modelFailed() {
    if (this.ending || this.failed) return false;
    this.failed = true;
    return true;
  }

  /** The bridge hangs up: true the first time, and only while the call is on. */
  hangUpStarted() {
    if (this.ending) return false;
    this.hangingUp = true;
    return true;
  }

  /** Whether the call is ending (the bridge hangs up) or ended: nothing more is owed to the caller. */
  get ending() {
    return this.ended || this.hangingUp;
  }

  /** The call ends (both sockets close): true the first time. */
  endCall() {
    if (this.ended) return false;
    this.ended = true;
    return true;
  }

  /** Whether the call ended. */
  get closed() {
    return this.ended;
  }
}
