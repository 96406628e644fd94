import type { Route } from "./+types/twilio-inbound";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { answerInboundCall } from "~/features/receptionist/index.server";
import { servicesContext } from "~/platform/context";

/** POST /webhooks/twilio/voice/inbound: a call to a business's own number, signed by Twilio (403 otherwise); answered with TwiML. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  const twiml = await answerInboundCall(services, verified.params);
  return new Response(twiml, { headers: { "Content-Type": "text/xml" } });
}
