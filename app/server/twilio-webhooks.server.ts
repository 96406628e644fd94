import { data } from "react-router";
import type { AppServices } from "./services.server";

/**
 * Reads a Twilio webhook and checks its X-Twilio-Signature over the URL Twilio called (APP_URL's
 * origin when set, else the one the request arrived at) and the POST parameters. 403 otherwise.
 */
export async function verifiedTwilioParams(services: AppServices, request: Request) {
  const params = Object.fromEntries(
    [...new URLSearchParams(await request.text())].map(([key, value]) => [key, value]),
  ) as Record<string, string>;
  const url = new URL(request.url);
  const candidates = [url.toString()];
  if (services.env.APP_URL) candidates.unshift(`${services.env.APP_URL.replace(/\/$/, "")}${url.pathname}${url.search}`);
  const signature = request.headers.get("X-Twilio-Signature");
  if (!candidates.some((candidate) => services.telephony.verifySignature(signature, candidate, params))) {
    throw data({ error: "Invalid Twilio signature." }, { status: 403 });
  }
  return { params, origin: url.origin };
}
