import type { Route } from "./+types/twilio-message-status";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { parseDbId } from "~/lib/ids";
import { servicesContext } from "~/platform/context";
import { handleTextStatus } from "~/texts/inbound.server";

/** POST /webhooks/twilio/message-status/{textId}: a signed message status callback; replays change nothing. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const textId = parseDbId(params.textId);
  if (textId) await handleTextStatus(services, textId, verified.params);
  return new Response(null, { status: 204 });
}
