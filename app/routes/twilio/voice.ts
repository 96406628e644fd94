import type { Route } from "./+types/voice";
import { findCall } from "#models/calls";
import { adoptFromCallback, voiceTwiml } from "~/calls/engine.server";
import { servicesContext } from "~/platform/context";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { parseDbId } from "~/lib/ids";

/** POST /twilio/voice/{callId}: Twilio asks what to do with the answered call (signed). */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const callId = parseDbId(params.callId);
  const found = callId ? await findCall(services.db, callId) : null;
  const call = found ? await adoptFromCallback(services, found, verified.params) : null;
  if (!call || (call.providerCallId && verified.params.CallSid && call.providerCallId !== verified.params.CallSid)) {
    return new Response(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`, {
      headers: { "Content-Type": "text/xml" },
    });
  }
  const twiml = await voiceTwiml(services, call, verified.params);
  return new Response(twiml, { headers: { "Content-Type": "text/xml" } });
}
