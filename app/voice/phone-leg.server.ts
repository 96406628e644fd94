import { recordCallEnd, recordFirstWords, type QualityReport } from "#models/call-quality";
import { appendTranscript, consumeStreamToken, findCall, flagCall, markCallMoment, type Call, type CallMoment } from "#models/calls";
import type { Agent } from "~/voice/agents.server";
import type { TwilioMessage } from "~/voice/bridge-codec.server";
import { crisisScript, redact, soundsLikeCrisis } from "~/voice/crisis.server";
import {
  agentForCall,
  PHONE_AUDIO,
  takePreparedSession,
  type BridgeServices,
  type CallAudio,
  type PreparedSession,
} from "~/voice/model-session.server";

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

/** Within this of its time limit, a call Twilio ends was ended by the limit (Twilio's clock starts at the answer, a little before the stream). */
const TIME_LIMIT_SLACK_MS = 2_000;

/** A phone call's leg: Twilio's media stream, the call kept in `calls`. */
export function phoneLeg(services: BridgeServices, callId: number, log: (message: string) => void): CallerLeg {
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
