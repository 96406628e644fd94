// The REST side of HTTP: JSON answers with Twilio's headers, Twilio error bodies, form parsing
// and the Basic auth check (AccountSid:AuthToken).
import type http from "node:http";
import { randomSid } from "../media-stream";
import type { FormParams } from "./index";
import type { FakeTwilioState } from "./state";
import type { TwilioError } from "./util";

export function send(res: http.ServerResponse, status: number, body: unknown) {
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Twilio-Request-Id": randomSid("RQ"),
    "X-Home-Region": "us1",
    ...(status === 401 ? { "WWW-Authenticate": 'Basic realm="Twilio API"' } : {}),
  });
  res.end(status === 204 ? undefined : JSON.stringify(body));
}

export function sendError(res: http.ServerResponse, error: TwilioError) {
  send(res, error.status, {
    code: error.code,
    message: error.message,
    more_info: `https://www.twilio.com/docs/errors/${error.code}`,
    status: error.status,
  });
}

export function parseForm(text: string): FormParams {
  const params: FormParams = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const existing = params[key];
    if (existing === undefined) params[key] = value;
    else params[key] = Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return params;
}

export function authorized(state: FakeTwilioState, req: http.IncomingMessage) {
  const header = req.headers.authorization ?? "";
  if (!header.startsWith("Basic ")) return false;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon > 0 && decoded.slice(0, colon) === state.accountSid && decoded.slice(colon + 1) === state.authToken;
}
