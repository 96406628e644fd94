import type { Route } from "./+types/voice";
import { findCall } from "#models/calls";
import { voiceTwiml } from "~/server/calls.server";
import { servicesContext } from "~/server/context";
import { verifiedTwilioParams } from "~/server/twilio-webhooks.server";
import { voicemailFor } from "~/server/voice/agents.server";

/** POST /twilio/voice/{callId}: Twilio asks what to do with the answered call (signed). */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const call = await findCall(services.db, Number(params.callId));
  if (!call || (call.providerCallId && verified.params.CallSid && call.providerCallId !== verified.params.CallSid)) {
    return new Response(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`, { headers: { "Content-Type": "text/xml" } });
  }
  const twiml = await voiceTwiml(services, call, verified.params, verified.origin, (c) => voicemailFor(services, c));
  return new Response(twiml, { headers: { "Content-Type": "text/xml" } });
}
