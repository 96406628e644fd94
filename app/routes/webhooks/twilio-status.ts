import type { Route } from "./+types/twilio-status";
import { findCall } from "#models/calls";
import { adoptFromCallback, applyStatusCallback } from "~/calls/engine.server";
import { servicesContext } from "~/platform/context";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { parseDbId } from "~/lib/ids";

/** POST /webhooks/twilio/status/{callId}: signed call-progress events; replays change nothing. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const callId = parseDbId(params.callId);
  const found = callId ? await findCall(services.db, callId) : null;
  const call = found ? await adoptFromCallback(services, found, verified.params) : null;
  if (!call || (call.providerCallId && verified.params.CallSid !== call.providerCallId)) {
    return new Response(null, { status: 204 });
  }
  await applyStatusCallback(services, call.id, verified.params, verified.origin);
  return new Response(null, { status: 204 });
}
