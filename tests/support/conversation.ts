import type { FakeRealtime } from "../fakes/openai-realtime";
import type { FakeTwilio } from "../fakes/twilio";
import { waitFor } from "./wait";

/**
 * Makes an answered call a real conversation, the kind a paid call counts as delivered: the caller
 * hears the agent's greeting (a mark echoed after agent audio), speaks until the model hears them,
 * stays on for `seconds` from the answer, then hangs up. The call's realtime session is the one opened last.
 */
export async function converse(twilio: FakeTwilio, realtime: FakeRealtime, callSid: string, seconds: number) {
  const stream = await twilio.stream(callSid, 20_000);
  await waitFor(() => stream.marksEchoed.length > 0, { what: "the greeting heard", timeoutMs: 20_000 });
  // The greeting came from the session opened last: this call's.
  const session = realtime.sessions.length - 1;
  stream.sendSpeech(800);
  await realtime.waitForServerEvent(session, "input_audio_buffer.speech_started", undefined, 20_000);
  const call = twilio.calls.get(callSid)!;
  await waitFor(() => (call.startedAt && Date.now() - call.startedAt.getTime() > seconds * 1000 + 300 ? true : null), {
    what: `${seconds} s on the call`,
    timeoutMs: 20_000,
  });
  await stream.hangup();
}
