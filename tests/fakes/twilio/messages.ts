// Messages, the REST resource of Programmable Messaging (2010-04-01): creating a message as Twilio
// does (its checks and error codes, 201 with the Message, status "queued"), its signed status
// callbacks (sent, then delivered or undelivered/failed), and incoming texts sent to the app's
// messaging webhook, with Twilio's own STOP filtering (a number that texted STOP to one of the
// account's numbers gets no message from it: 21610, until it texts START).
import type http from "node:http";
import { randomSid } from "../media-stream";
import type { FormParams } from "./index";
import { send, sendError } from "./http";
import type { FakeTwilioState } from "./state";
import { track } from "./state";
import { API_VERSION, first, isHttpUrl, rfc2822, twilioError, type TwilioError } from "./util";
import { deliver } from "./webhooks";

export type MessageStatus = "queued" | "sent" | "delivered" | "undelivered" | "failed" | "received";

export interface FakeMessage {
  sid: string;
  direction: "outbound-api" | "inbound";
  from: string;
  to: string;
  body: string;
  status: MessageStatus;
  /** Every status the message went through, in order. */
  events: MessageStatus[];
  numSegments: number;
  errorCode: number | null;
  statusCallback: string | null;
  dateCreated: Date;
  dateUpdated: Date;
}

const E164 = /^\+[1-9]\d{6,14}$/;
/** Twilio's default keywords on a long code (case-insensitive, the whole message). */
const OPT_OUT = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"];
const OPT_IN = ["START", "YES", "UNSTOP"];
const KNOWN_PARAMS = new Set([
  "To",
  "From",
  "Body",
  "StatusCallback",
  "MessagingServiceSid",
  "MediaUrl",
  "ApplicationSid",
  "MaxPrice",
  "ProvideFeedback",
  "Attempt",
  "ValidityPeriod",
  "ForceDelivery",
  "ContentRetention",
  "AddressRetention",
  "SmartEncoded",
  "PersistentAction",
  "ShortenUrls",
  "ScheduleType",
  "SendAt",
  "SendAsMms",
  "ContentSid",
  "ContentVariables",
  "RiskCheck",
]);

// GSM 03.38 basic set and its extension (the extension's characters take two septets).
const GSM_BASIC =
  "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENDED = "^{}\\[~]|€";

/** How many SMS segments Twilio would bill for this body: GSM-7 160/153, else UCS-2 70/67 (by UTF-16 units). */
export function segmentsOf(body: string) {
  let septets = 0;
  let gsm = true;
  for (const char of body) {
    if (GSM_BASIC.includes(char)) septets += 1;
    else if (GSM_EXTENDED.includes(char)) septets += 2;
    else gsm = false;
  }
  if (gsm) return septets <= 160 ? 1 : Math.ceil(septets / 153);
  const units = body.length;
  return units <= 70 ? 1 : Math.ceil(units / 67);
}

export function messageResource(state: FakeTwilioState, message: FakeMessage) {
  const base = `/${API_VERSION}/Accounts/${state.accountSid}/Messages/${message.sid}`;
  return {
    account_sid: state.accountSid,
    api_version: API_VERSION,
    body: message.body,
    date_created: rfc2822(message.dateCreated),
    date_sent: message.status === "queued" ? null : rfc2822(message.dateUpdated),
    date_updated: rfc2822(message.dateUpdated),
    direction: message.direction,
    error_code: message.errorCode,
    error_message: null,
    from: message.from,
    messaging_service_sid: null,
    num_media: "0",
    num_segments: String(message.numSegments),
    price: null,
    price_unit: "USD",
    sid: message.sid,
    status: message.status,
    subresource_uris: { media: `${base}/Media.json`, feedback: `${base}/Feedback.json` },
    to: message.to,
    uri: `${base}.json`,
  };
}

const optOutKey = (from: string, to: string) => `${from}|${to}`;

function validate(state: FakeTwilioState, params: FormParams): TwilioError | null {
  for (const key of Object.keys(params))
    if (!KNOWN_PARAMS.has(key)) state.warnings.push(`Messages.json: unknown parameter ${key} (Twilio ignores it)`);
  const to = first(params, "To");
  const from = first(params, "From");
  const body = first(params, "Body");
  if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
  if (!from && !first(params, "MessagingServiceSid")) return twilioError(400, 21603, "A 'From' phone number is required.");
  if (!from) return twilioError(400, 21603, "The fake Twilio has no Messaging Services: use From.");
  if (!body && !first(params, "MediaUrl") && !first(params, "ContentSid")) return twilioError(400, 21602, "Message body is required.");
  if (!E164.test(to)) return twilioError(400, 21211, `Invalid 'To' Phone Number: ${to}`);
  if (!state.ownedNumbers.includes(from))
    return twilioError(
      400,
      21606,
      `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`,
    );
  if ((body ?? "").length > 1600) return twilioError(400, 21617, "The concatenated message body exceeds the 1600 character limit.");
  const callback = first(params, "StatusCallback");
  if (callback !== undefined && !isHttpUrl(callback)) return twilioError(400, 21609, `Invalid StatusCallback url: ${callback}`);
  if (state.smsBlockedPrefixes.some((prefix) => to.startsWith(prefix)))
    return twilioError(400, 21408, `Permission to send an SMS has not been enabled for the region indicated by the 'To' number: ${to}`);
  if (state.smsOptOuts.has(optOutKey(to, from))) return twilioError(400, 21610, "Attempt to send to unsubscribed recipient");
  return null;
}

function callbackParams(state: FakeTwilioState, message: FakeMessage, status: MessageStatus) {
  return {
    AccountSid: state.accountSid,
    ApiVersion: API_VERSION,
    From: message.from,
    To: message.to,
    MessageSid: message.sid,
    SmsSid: message.sid,
    MessageStatus: status,
    SmsStatus: status,
    ...(message.errorCode !== null && (status === "undelivered" || status === "failed") ? { ErrorCode: String(message.errorCode) } : {}),
  };
}

function setStatus(state: FakeTwilioState, message: FakeMessage, status: MessageStatus, chain: Promise<unknown>) {
  message.status = status;
  message.events.push(status);
  message.dateUpdated = new Date();
  state.changes.emit("message", message.sid);
  if (!message.statusCallback) return chain;
  const url = message.statusCallback;
  return chain.then(() => deliver(state, "message-status", message.sid, url, "POST", callbackParams(state, message, status)));
}

/** POST Messages.json: validated as Twilio does, then sent, then delivered (or not), each reported to StatusCallback. */
export async function createMessageEndpoint(state: FakeTwilioState, res: http.ServerResponse, params: FormParams) {
  const planned = state.messageFailures.shift();
  if (planned) return sendError(res, twilioError(planned.status, planned.code, planned.message));
  const error = validate(state, params);
  if (error) {
    state.refusedMessages.push({ params, error });
    return sendError(res, error);
  }
  const now = new Date();
  const to = first(params, "To")!;
  const body = first(params, "Body") ?? "";
  const message: FakeMessage = {
    sid: randomSid("SM"),
    direction: "outbound-api",
    from: first(params, "From")!,
    to,
    body,
    status: "queued",
    events: ["queued"],
    numSegments: segmentsOf(body),
    errorCode: null,
    statusCallback: first(params, "StatusCallback") ?? null,
    dateCreated: now,
    dateUpdated: now,
  };
  state.messages.set(message.sid, message);
  const answer = messageResource(state, message);
  // Usually the answer goes first; for a To in callbacksBeforeAnswer the callbacks reach the app
  // before the 201 does (a slow response on the way back), as can happen with Twilio.
  const late = state.callbacksBeforeAnswer.has(to);
  if (!late) send(res, 201, answer);
  state.changes.emit("message", message.sid);
  // No callback for the initial status (Twilio's docs); then sent and the handset's answer.
  const undeliverable = state.undeliverableNumbers.has(to);
  let chain: Promise<unknown> = Promise.resolve();
  chain = setStatus(state, message, "sent", chain);
  if (undeliverable) message.errorCode = 30003;
  chain = setStatus(state, message, undeliverable ? "undelivered" : "delivered", chain);
  track(state, chain);
  if (late) {
    await chain;
    send(res, 201, answer);
  }
}

/** GET Messages/{sid}.json. */
export function messageEndpoint(state: FakeTwilioState, res: http.ServerResponse, method: string, sid: string, notFound: () => void) {
  const message = state.messages.get(sid);
  if (!message) return notFound();
  if (method !== "GET") return sendError(res, twilioError(405, 20004, "Method not allowed"));
  return send(res, 200, messageResource(state, message));
}

/**
 * Someone texts one of the account's numbers: Twilio's STOP filtering (an opt-out keyword stops
 * that number's messages to the sender; an opt-in keyword lifts it), then the signed request to
 * the app's messaging webhook `url` with Twilio's parameters. Resolves with the app's answer.
 */
export async function inboundMessage(
  state: FakeTwilioState,
  options: { from: string; to: string; body: string; url: string; signWith?: string },
) {
  const word = options.body.trim().toUpperCase();
  if (OPT_OUT.includes(word)) state.smsOptOuts.add(optOutKey(options.from, options.to));
  if (OPT_IN.includes(word)) state.smsOptOuts.delete(optOutKey(options.from, options.to));
  const now = new Date();
  const message: FakeMessage = {
    sid: randomSid("SM"),
    direction: "inbound",
    from: options.from,
    to: options.to,
    body: options.body,
    status: "received",
    events: ["received"],
    numSegments: segmentsOf(options.body),
    errorCode: null,
    statusCallback: null,
    dateCreated: now,
    dateUpdated: now,
  };
  state.messages.set(message.sid, message);
  const params: Record<string, string> = {
    ToCountry: "US",
    ToState: "",
    SmsMessageSid: message.sid,
    NumMedia: "0",
    ToCity: "",
    FromZip: "",
    SmsSid: message.sid,
    FromState: "",
    SmsStatus: "received",
    FromCity: "",
    Body: options.body,
    FromCountry: "",
    To: options.to,
    ToZip: "",
    NumSegments: String(message.numSegments),
    MessageSid: message.sid,
    AccountSid: state.accountSid,
    From: options.from,
    ApiVersion: API_VERSION,
    ...(OPT_OUT.includes(word)
      ? { OptOutType: "STOP" }
      : OPT_IN.includes(word)
        ? { OptOutType: "START" }
        : word === "HELP"
          ? { OptOutType: "HELP" }
          : {}),
  };
  const authToken = state.authToken;
  if (options.signWith) state.authToken = options.signWith;
  const answer = deliver(state, "inbound-message", message.sid, options.url, "POST", params);
  state.authToken = authToken;
  const result = await track(state, answer);
  return { status: result?.status ?? 0, contentType: result?.contentType ?? "", body: result?.text ?? "", sid: message.sid };
}
