// A call's lifecycle: dialling it and running it (initiated, ringing, the outcome, the answer with
// machine detection, the voice URL and its TwiML), its status transitions, its time limit and its end.
import type { CallStatus, FakeCall } from "./index";
import { record } from "./recordings";
import { track, type FakeTwilioState } from "./state";
import { execute, fetchTwiml } from "./twiml";
import { FINAL_STATUSES, first, sleep } from "./util";
import { deliver, statusCallback } from "./webhooks";

export function transition(state: FakeTwilioState, call: FakeCall, status: CallStatus) {
  call.status = status;
  call.events.push(status);
  call.dateUpdated = new Date();
  statusCallback(state, call, status);
  state.changes.emit("change", call.sid);
}

export function armTimeLimit(state: FakeTwilioState, call: FakeCall) {
  const runtime = state.runtimes.get(call.sid);
  if (!runtime || !call.startedAt) return;
  if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
  const limit = Number(first(call.params, "TimeLimit") ?? 14400);
  const remaining = call.startedAt.getTime() + limit * 1000 - Date.now();
  runtime.timeLimitTimer = setTimeout(() => finish(state, call, "completed", "time-limit"), Math.max(0, remaining));
}

/** Ends the call (once): stops its stream, records it, sends the final status callback. */
export function finish(state: FakeTwilioState, call: FakeCall, status: CallStatus, hangupBy: FakeCall["hangupBy"]) {
  const runtime = state.runtimes.get(call.sid);
  if (FINAL_STATUSES.includes(call.status)) return;
  call.endedAt = new Date();
  if (call.startedAt && status === "completed") {
    const limit = Number(first(call.params, "TimeLimit") ?? 14400);
    call.duration = hangupBy === "time-limit" ? limit : Math.max(1, Math.ceil((call.endedAt.getTime() - call.startedAt.getTime()) / 1000));
    call.hangupBy = hangupBy;
  } else {
    call.duration = 0;
    call.hangupBy = status === "canceled" ? hangupBy : null;
  }
  if (runtime) {
    if (runtime.timeLimitTimer) clearTimeout(runtime.timeLimitTimer);
    runtime.abort.abort();
    if (runtime.handle?.isOpen) void runtime.handle.stop();
  }
  transition(state, call, status);
  if (status === "completed" && call.startedAt && first(call.params, "Record") === "true") record(state, call);
}

export async function run(state: FakeTwilioState, call: FakeCall) {
  const runtime = state.runtimes.get(call.sid)!;
  const { signal } = runtime.abort;
  const ended = () => signal.aborted || FINAL_STATUSES.includes(call.status);
  transition(state, call, "initiated");
  await sleep(state.timing.ringMs, signal);
  if (ended()) return;
  if (runtime.outcome === "failed") return finish(state, call, "failed", null);
  transition(state, call, "ringing");
  await sleep(state.timing.ringMs, signal);
  if (ended()) return;
  if (runtime.outcome === "busy" || runtime.outcome === "no-answer") return finish(state, call, runtime.outcome, null);

  call.startedAt = new Date();
  call.status = "in-progress";
  call.events.push("in-progress");
  call.dateUpdated = new Date();
  state.changes.emit("change", call.sid);
  armTimeLimit(state, call);

  const machineDetection = first(call.params, "MachineDetection");
  const asyncAmd = first(call.params, "AsyncAmd") === "true";
  const answeredBy = runtime.outcome === "machine" ? (machineDetection === "Enable" ? "machine_start" : "machine_end_beep") : "human";
  const amd: Record<string, string> = {};
  if (machineDetection) {
    call.answeredBy = answeredBy;
    if (!asyncAmd) {
      amd.AnsweredBy = answeredBy;
      amd.MachineDetectionDuration = runtime.outcome === "machine" ? "4210" : "1530";
    }
  }

  let xml: string | null;
  let documentUrl: string | undefined;
  const twiml = first(call.params, "Twiml");
  if (twiml !== undefined) {
    xml = twiml;
  } else {
    documentUrl = first(call.params, "Url")!;
    xml = await fetchTwiml(state, call, "voice", documentUrl, first(call.params, "Method"), amd);
    const fallback = first(call.params, "FallbackUrl");
    if (xml === null && fallback && !ended()) {
      documentUrl = fallback;
      xml = await fetchTwiml(state, call, "fallback", fallback, first(call.params, "FallbackMethod"), {
        ...amd,
        ErrorCode: "11200",
        ErrorUrl: first(call.params, "Url")!,
      });
    }
  }
  if (ended()) return;
  statusCallback(state, call, "in-progress");
  if (machineDetection && asyncAmd && first(call.params, "AsyncAmdStatusCallback")) {
    const target = first(call.params, "AsyncAmdStatusCallback")!;
    const params = {
      AccountSid: state.accountSid,
      CallSid: call.sid,
      AnsweredBy: answeredBy,
      MachineDetectionDuration: runtime.outcome === "machine" ? "4210" : "1530",
    };
    runtime.callbackChain = track(
      state,
      runtime.callbackChain
        .then(() => deliver(state, "amd", call.sid, target, first(call.params, "AsyncAmdStatusCallbackMethod"), params))
        .then(() => undefined),
    );
  }
  if (xml !== null && !ended()) await execute(state, call, xml, documentUrl);
  finish(state, call, "completed", "app");
}

export function dial(state: FakeTwilioState, sid: string) {
  const call = state.calls.get(sid);
  const runtime = state.runtimes.get(sid);
  if (!call || !runtime || runtime.dialed || state.closing) return;
  runtime.dialed = true;
  void track(
    state,
    run(state, call).catch((error: unknown) => {
      call.errors.push({ code: 0, message: `Fake Twilio failure: ${(error as Error).message}` });
      finish(state, call, "failed", null);
    }),
  );
}
