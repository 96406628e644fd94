// The media stream side of a call: <Connect><Stream> opens a signed WebSocket to the app through
// ../media-stream.ts, sends live silence, reports stream-started/stream-stopped to the Stream's
// statusCallback, and ends the call when the caller hangs up on it.
import { connectMediaStream, type MediaStreamHandle } from "../media-stream";
import type { FakeCall } from "./index";
import { finish } from "./lifecycle";
import { track, type FakeTwilioState } from "./state";
import { FINAL_STATUSES, first } from "./util";
import { deliver } from "./webhooks";
import { elements, type XmlElement } from "./xml";

export async function runStream(state: FakeTwilioState, call: FakeCall, stream: XmlElement) {
  const runtime = state.runtimes.get(call.sid)!;
  const url = stream.attrs.url ?? "";
  if (state.unreachableStreams.has(String(first(call.params, "To")))) {
    call.errors.push({ code: 31920, message: "Stream - WebSocket - Handshake Error: connect ETIMEDOUT" });
    return;
  }
  if (!/^wss?:\/\//.test(url)) {
    call.errors.push({ code: 31920, message: `Stream - WebSocket - Handshake Error: invalid url "${url}"` });
    return;
  }
  const customParameters: Record<string, string> = {};
  for (const parameter of elements(stream).filter((e) => e.name === "Parameter")) {
    if (parameter.attrs.name !== undefined) customParameters[parameter.attrs.name] = parameter.attrs.value ?? "";
  }
  const streamStatus = (handle: MediaStreamHandle, event: string) => {
    if (!stream.attrs.statusCallback) return;
    const params = {
      AccountSid: state.accountSid,
      CallSid: call.sid,
      StreamSid: handle.streamSid,
      StreamName: stream.attrs.name ?? handle.streamSid,
      StreamEvent: event,
      Timestamp: new Date().toISOString(),
    };
    const target = stream.attrs.statusCallback;
    runtime.callbackChain = track(
      state,
      runtime.callbackChain
        .then(() => deliver(state, "stream-status", call.sid, target, stream.attrs.statusCallbackMethod, params))
        .then(() => undefined),
    );
  };
  let handle: MediaStreamHandle;
  try {
    handle = await connectMediaStream({
      url,
      authToken: state.authToken,
      accountSid: state.accountSid,
      callSid: call.sid,
      customParameters,
    });
  } catch (error) {
    call.errors.push({ code: 31920, message: `Stream - WebSocket - Handshake Error: ${(error as Error).message}` });
    return;
  }
  if (runtime.abort.signal.aborted || state.closing) {
    await handle.stop();
    return;
  }
  runtime.handle = handle;
  call.streamSid = handle.streamSid;
  call.customParameters = customParameters;
  streamStatus(handle, "stream-started");
  state.changes.emit("change", call.sid);
  if (state.realtimeAudio) handle.startRealtimeAudio({ speech: false });
  const closed = await handle.closed;
  if (closed.initiator === "app" && state.silentStreamDrops.has(String(first(call.params, "To")))) {
    // Twilio never saw the socket go: the call stays up, its audio going nowhere, until it is hung up.
    await untilAborted(runtime.abort.signal, state.closed.signal);
  }
  for (const error of handle.errors) call.errors.push({ code: error.code, message: error.message });
  streamStatus(handle, "stream-stopped");
  if (state.closing) return;
  // Stopped for new instructions (a redirect), the call goes on with them; else the caller hung up.
  if (!FINAL_STATUSES.includes(call.status) && closed.initiator === "twilio" && !runtime.redirect)
    finish(state, call, "completed", "caller");
}

function untilAborted(...signals: AbortSignal[]) {
  return new Promise<void>((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    for (const signal of signals) signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
