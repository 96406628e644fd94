import type { Route } from "./+types/twilio-recording";
import { findCall, setCallRecording } from "#models/calls";
import { servicesContext } from "~/platform/context";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { parseDbId } from "~/lib/ids";

/** POST /webhooks/twilio/recording/{callId}: the signed report of a finished recording (RECORD_CALLS=true). */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const callId = parseDbId(params.callId);
  const call = callId ? await findCall(services.db, callId) : null;
  const { CallSid, RecordingSid, RecordingStatus, RecordingDuration } = verified.params;
  const sameCall = call && call.providerCallId && CallSid === call.providerCallId;
  if (sameCall && RecordingStatus === "completed" && RecordingSid && /^RE[0-9a-f]{32}$/i.test(RecordingSid)) {
    const duration = Number(RecordingDuration);
    await setCallRecording(services.db, call.id, {
      sid: RecordingSid,
      durationSeconds: Number.isInteger(duration) && duration >= 0 ? duration : null,
    });
  }
  return new Response(null, { status: 204 });
}
