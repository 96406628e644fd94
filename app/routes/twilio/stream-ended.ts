import type { Route } from "./+types/stream-ended";
import { findCall } from "#models/calls";
import { afterStreamTwiml } from "~/calls/engine.server";
import { servicesContext } from "~/platform/context";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { parseDbId } from "~/lib/ids";

/** POST /twilio/stream-ended/{callId}: the <Connect> action, when the media stream ends and the call is still up (signed). */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const callId = parseDbId(params.callId);
  const call = callId ? await findCall(services.db, callId) : null;
  const sameCall = call && (!call.providerCallId || !verified.params.CallSid || call.providerCallId === verified.params.CallSid);
  const twiml = sameCall ? await afterStreamTwiml(services, call) : `<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`;
  return new Response(twiml, { headers: { "Content-Type": "text/xml" } });
}
