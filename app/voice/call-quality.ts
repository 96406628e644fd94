import type { QualityReport } from "#models/call-quality";
import type { CallEnding, QualityTurn, ToolRefusal } from "#models/schema";

/** Endings on the agent's side: a turn still waiting for its answer then was never answered. */
const AGENT_SIDE_ENDINGS = new Set<CallEnding>(["dead_air", "model_failed", "model_idle", "error"]);

/**
 * A call's quality as the caller lives it, kept by the bridge through named transitions (ADR 0033):
 * the stream starts, the agent's audio goes out, the caller starts and stops speaking, the call
 * ends. Plain state and arithmetic, no I/O: the bridge writes what `agentAudio` and `end` return.
 */
export class CallQuality {
  private startedAt: number | null = null;
  private firstAudioAt: number | null = null;
  /** The caller stopped speaking then, and the agent has not answered yet. */
  private owedSince: number | null = null;
  private readonly turns: QualityTurn[] = [];
  private readonly interruptions: number[] = [];
  private readonly toolRefusals: ToolRefusal[] = [];
  private ending: CallEnding | null = null;

  constructor(private readonly now: () => number = Date.now) {}

  /** The media stream's "start" (accepted): the clock of every other figure. */
  streamStarted(at = this.now()) {
    this.startedAt ??= at;
  }

  /** Whether the media stream started (an accepted stream's "start"). */
  get started() {
    return this.startedAt !== null;
  }

  /** True until the first audio and while a turn waits for its answer: the hot path checks only this. */
  get waitingForAudio() {
    return this.startedAt !== null && (this.firstAudioAt === null || this.owedSince !== null);
  }

  /**
   * Agent audio was sent to the caller. Returns the first words (stream start and first audio)
   * the first time, for the bridge to keep at once; else null.
   */
  agentAudio(): { streamStartedAt: Date; firstAudioAt: Date } | null {
    if (this.startedAt === null) return null;
    const now = this.now();
    if (this.owedSince !== null) {
      this.turns.push({ at: this.owedSince - this.startedAt, latencyMs: now - this.owedSince });
      this.owedSince = null;
    }
    if (this.firstAudioAt !== null) return null;
    this.firstAudioAt = now;
    return { streamStartedAt: new Date(this.startedAt), firstAudioAt: new Date(now) };
  }

  /** The caller began to speak; `cutAgent`: the agent's audio was still playing and was cut (barge-in). */
  callerStarted(cutAgent: boolean) {
    if (this.startedAt === null) return;
    // Speaking again before the answer came: the turn goes on, it is measured from its new end.
    this.owedSince = null;
    if (cutAgent) this.interruptions.push(this.now() - this.startedAt);
  }

  /** The caller stopped speaking (now, or `at`, as the bridge heard it itself): the agent owes an answer from then. */
  callerStopped(at = this.now()) {
    if (this.startedAt === null) return;
    this.owedSince = at;
  }

  /** The bridge refused a tool call of the model (agents.server.ts admitToolCall): the owner sees the call tried something it may not do. */
  toolRefused(tool: string, reason: ToolRefusal["reason"]) {
    this.toolRefusals.push({ at: this.startedAt === null ? 0 : this.now() - this.startedAt, tool, reason });
  }

  /** How the call ended: the first reason given stands (the causes that follow are its echoes). */
  ended(how: CallEnding) {
    this.ending ??= how;
  }

  /** Everything measured, once the call's audio ended; null if the stream never started. */
  report(): QualityReport | null {
    if (this.startedAt === null) return null;
    const now = this.now();
    const turns = [...this.turns];
    // A turn the agent never answered stays, without a latency, when the agent's side ended the call
    // (dead air, a failed model): the owner should see it. A caller who hangs up after their last
    // words was owed nothing more.
    const agentsFault = this.ending !== null && AGENT_SIDE_ENDINGS.has(this.ending);
    if (this.owedSince !== null && agentsFault) turns.push({ at: this.owedSince - this.startedAt, latencyMs: null });
    return {
      streamStartedAt: new Date(this.startedAt),
      firstAudioAt: this.firstAudioAt === null ? null : new Date(this.firstAudioAt),
      turns,
      interruptions: [...this.interruptions],
      endedAt: new Date(now),
      endedBy: this.ending ?? "stream_lost",
      toolRefusals: [...this.toolRefusals],
    };
  }
}
