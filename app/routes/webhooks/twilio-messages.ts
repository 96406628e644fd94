import type { Route } from "./+types/twilio-messages";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { servicesContext } from "~/platform/context";
import { handleInboundText } from "~/texts/inbound.server";

/** POST /webhooks/twilio/messages: an incoming text, signed by Twilio (403 otherwise); answered with TwiML. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const answer = await handleInboundText(services, verified.params);
  return new Response(answer, { status: 200, headers: { "Content-Type": "text/xml; charset=utf-8" } });
}
