import type { Route } from "./+types/twilio-status";
import { findCall } from "#models/calls";
import { applyStatusCallback } from "~/server/calls.server";
import { servicesContext } from "~/server/context";
import { verifiedTwilioParams } from "~/server/twilio-webhooks.server";

/** POST /webhooks/twilio/status/{callId}: signed call-progress events; replays change nothing. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const call = await findCall(services.db, Number(params.callId));
  if (!call || (call.providerCallId && verified.params.CallSid !== call.providerCallId)) {
    return new Response(null, { status: 204 });
  }
  await applyStatusCallback(services, call.id, verified.params, verified.origin);
  return new Response(null, { status: 204 });
}
