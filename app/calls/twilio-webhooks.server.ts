import { data } from "react-router";
import type { AppServices } from "~/platform/services.server";

/**
 * Reads a Twilio webhook and checks its X-Twilio-Signature over the URL Twilio was given (the
 * public origin: APP_URL, else the listening address; never the request's Host) and the POST
 * parameters. 403 otherwise.
 */
export async function verifiedTwilioParams(services: AppServices, request: Request) {
  const params = Object.fromEntries([...new URLSearchParams(await request.text())].map(([key, value]) => [key, value])) as Record<
    string,
    string
  >;
  // The request's own path and query, as Twilio asked for them (React Router 8 passes the request
  // unchanged, and Twilio never asks for a page's data): what Twilio signed.
  const url = new URL(request.url);
  const origin = services.publicOrigin();
  const signature = request.headers.get("X-Twilio-Signature");
  if (!services.telephony.verifySignature(signature, `${origin}${url.pathname}${url.search}`, params)) {
    throw data({ error: "Invalid Twilio signature." }, { status: 403 });
  }
  return { params, origin };
}
