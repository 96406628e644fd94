import type { Route } from "./+types/twilio-inbound-step";
import { verifiedTwilioParams } from "~/calls/twilio-webhooks.server";
import { inboundStatus, transferEnded, voicemailRecorded, voicemailTranscription } from "~/features/receptionist/index.server";
import { servicesContext } from "~/platform/context";

const xml = (twiml: string) => new Response(twiml, { headers: { "Content-Type": "text/xml" } });

/**
 * POST /webhooks/twilio/voice/inbound/{status|voicemail|transcription|dialled}: the signed callbacks
 * of a call to a business's own number (403 unsigned); replays change nothing.
 */
export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const verified = await verifiedTwilioParams(services, request);
  switch (params.step) {
    case "status":
      await inboundStatus(services, verified.params, verified.origin);
      return new Response(null, { status: 204 });
    case "voicemail":
      return xml(await voicemailRecorded(services, verified.params));
    case "transcription":
      await voicemailTranscription(services, verified.params);
      return new Response(null, { status: 204 });
    case "dialled":
      return xml(await transferEnded(services, verified.params));
    default:
      return new Response(null, { status: 404 });
  }
}
