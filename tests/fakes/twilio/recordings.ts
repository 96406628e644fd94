// Recordings: the recording an answered call made with Record=true leaves when it completes, its
// signed RecordingStatusCallback, and GET/DELETE /Recordings/{RecordingSid}.json.
import type http from "node:http";
import { randomSid } from "../media-stream";
import type { FakeCall } from "./index";
import { send } from "./http";
import { track, type FakeTwilioState } from "./state";
import { API_VERSION, first, rfc2822 } from "./util";
import { deliver } from "./webhooks";

/** The answered call's recording, and its signed status callback after the call's own. */
export function record(state: FakeTwilioState, call: FakeCall) {
  const channels = first(call.params, "RecordingChannels") === "dual" ? 2 : 1;
  const recording = { sid: randomSid("RE"), callSid: call.sid, duration: call.duration ?? 0, channels, deleted: false };
  state.recordings.set(recording.sid, recording);
  const target = first(call.params, "RecordingStatusCallback");
  const runtime = state.runtimes.get(call.sid);
  if (!target || !runtime) return;
  const params = {
    AccountSid: state.accountSid,
    CallSid: call.sid,
    RecordingSid: recording.sid,
    RecordingUrl: `https://api.twilio.com/${API_VERSION}/Accounts/${state.accountSid}/Recordings/${recording.sid}`,
    RecordingStatus: "completed",
    RecordingDuration: String(recording.duration),
    RecordingChannels: String(channels),
    RecordingStartTime: rfc2822(call.startedAt!),
    RecordingSource: "OutboundAPI",
    RecordingTrack: "both",
    ErrorCode: "0",
  };
  runtime.callbackChain = track(
    state,
    runtime.callbackChain
      .then(() => deliver(state, "recording", call.sid, target, first(call.params, "RecordingStatusCallbackMethod"), params))
      .then(() => undefined),
  );
}

/** GET (the Recording) or DELETE (204) /Recordings/{RecordingSid}.json; an unknown or deleted sid is a 404. */
export function recordingEndpoint(
  state: FakeTwilioState,
  res: http.ServerResponse,
  method: string,
  recordingSid: string,
  notFound: () => void,
  notAllowed: () => void,
) {
  const recording = state.recordings.get(recordingSid);
  if (!recording || recording.deleted) return notFound();
  if (method === "DELETE") {
    recording.deleted = true;
    return send(res, 204, null);
  }
  if (method !== "GET") return notAllowed();
  return send(res, 200, {
    sid: recording.sid,
    account_sid: state.accountSid,
    call_sid: recording.callSid,
    duration: String(recording.duration),
    channels: recording.channels,
    status: "completed",
    source: "OutboundAPI",
    api_version: API_VERSION,
  });
}
