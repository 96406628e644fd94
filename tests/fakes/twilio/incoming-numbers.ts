// The account's own phone numbers: the IncomingPhoneNumbers resource of the 2010-04-01 API, as
// Twilio's reference describes it (https://www.twilio.com/docs/phone-numbers/api/incomingphonenumber-resource):
// list with Twilio's paging (PageSize up to 1000, Page, PageToken; next_page_uri null on the last
// page), fetch, update (VoiceUrl, SmsUrl, … as form parameters; a URL that is not absolute http(s)
// is 400 21402 "Invalid Url"; a method other than GET or POST 400 21200) and delete (release,
// 204), an unknown SID 404 20404. Provisioning (POST to the list) is not modelled. The numbers live
// in `state.incomingNumbers`, so the inbound-call side of the fake finds a number's VoiceUrl there.
import type http from "node:http";
import { randomSid } from "../media-stream";
import { send, sendError } from "./http";
import type { FormParams } from "./index";
import type { FakeTwilioState } from "./state";
import { API_VERSION, first, formatted, isHttpUrl, rfc2822, twilioError } from "./util";

export interface FakeIncomingNumber {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  capabilities: { voice: boolean; sms: boolean; mms: boolean; fax: boolean };
  voiceUrl: string | null;
  voiceMethod: "GET" | "POST";
  voiceFallbackUrl: string | null;
  smsUrl: string;
  smsMethod: "GET" | "POST";
  smsFallbackUrl: string;
  statusCallback: string;
  statusCallbackMethod: "GET" | "POST";
  dateCreated: Date;
  dateUpdated: Date;
  /** Every update's form parameters, in order. */
  updates: FormParams[];
}

/** A number the test seeds into the account (startFakeTwilio's `incomingNumbers`, or fake.addIncomingNumber). */
export interface IncomingNumberSeed {
  phoneNumber: string;
  friendlyName?: string;
  voice?: boolean;
  sms?: boolean;
  voiceUrl?: string | null;
  smsUrl?: string;
}

const URL_PARAMS = ["VoiceUrl", "VoiceFallbackUrl", "SmsUrl", "SmsFallbackUrl", "StatusCallback"] as const;
const METHOD_PARAMS = ["VoiceMethod", "VoiceFallbackMethod", "SmsMethod", "SmsFallbackMethod", "StatusCallbackMethod"] as const;
/** The update parameters the reference lists; anything else Twilio ignores, and the fake warns. */
const KNOWN_UPDATE_PARAMS = new Set<string>([
  ...URL_PARAMS,
  ...METHOD_PARAMS,
  "AccountSid",
  "ApiVersion",
  "FriendlyName",
  "SmsApplicationSid",
  "VoiceApplicationSid",
  "VoiceCallerIdLookup",
  "EmergencyStatus",
  "EmergencyAddressSid",
  "TrunkSid",
  "VoiceReceiveMode",
  "IdentitySid",
  "AddressSid",
  "BundleSid",
]);

export function addIncomingNumber(state: FakeTwilioState, seed: IncomingNumberSeed): FakeIncomingNumber {
  const sid = state.phoneNumberSids.get(seed.phoneNumber) ?? randomSid("PN");
  state.phoneNumberSids.set(seed.phoneNumber, sid);
  const now = new Date();
  const number: FakeIncomingNumber = {
    sid,
    phoneNumber: seed.phoneNumber,
    friendlyName: seed.friendlyName ?? formatted(seed.phoneNumber),
    capabilities: { voice: seed.voice ?? true, sms: seed.sms ?? true, mms: false, fax: false },
    voiceUrl: seed.voiceUrl ?? null,
    voiceMethod: "POST",
    voiceFallbackUrl: null,
    smsUrl: seed.smsUrl ?? "",
    smsMethod: "POST",
    smsFallbackUrl: "",
    statusCallback: "",
    statusCallbackMethod: "POST",
    dateCreated: now,
    dateUpdated: now,
    updates: [],
  };
  state.incomingNumbers.set(sid, number);
  return number;
}

/** The account's number with this E.164 phone number, if it has one (what an inbound call to it reaches). */
export function incomingNumberByPhone(state: FakeTwilioState, phoneNumber: string) {
  return [...state.incomingNumbers.values()].find((n) => n.phoneNumber === phoneNumber);
}

function listUri(state: FakeTwilioState) {
  return `/${API_VERSION}/Accounts/${state.accountSid}/IncomingPhoneNumbers.json`;
}

export function incomingNumberResource(state: FakeTwilioState, n: FakeIncomingNumber) {
  const base = `/${API_VERSION}/Accounts/${state.accountSid}/IncomingPhoneNumbers/${n.sid}`;
  return {
    account_sid: state.accountSid,
    address_requirements: "none",
    address_sid: null,
    api_version: API_VERSION,
    beta: false,
    bundle_sid: null,
    capabilities: n.capabilities,
    date_created: rfc2822(n.dateCreated),
    date_updated: rfc2822(n.dateUpdated),
    emergency_address_sid: null,
    emergency_address_status: "unregistered",
    emergency_status: "Inactive",
    friendly_name: n.friendlyName,
    identity_sid: null,
    origin: "twilio",
    phone_number: n.phoneNumber,
    sid: n.sid,
    sms_application_sid: "",
    sms_fallback_method: "POST",
    sms_fallback_url: n.smsFallbackUrl,
    sms_method: n.smsMethod,
    sms_url: n.smsUrl,
    status: "in-use",
    status_callback: n.statusCallback,
    status_callback_method: n.statusCallbackMethod,
    subresource_uris: { assigned_add_ons: `${base}/AssignedAddOns.json` },
    trunk_sid: null,
    type: "local",
    uri: `${base}.json`,
    voice_application_sid: "",
    voice_caller_id_lookup: false,
    voice_fallback_method: "POST",
    voice_fallback_url: n.voiceFallbackUrl,
    voice_method: n.voiceMethod,
    voice_receive_mode: "voice",
    voice_url: n.voiceUrl,
  };
}

/**
 * GET IncomingPhoneNumbers.json: filtered by PhoneNumber (a part of the number matches, as
 * Twilio's reference says), FriendlyName (exact), Beta and Origin; paged by PageSize (default 50,
 * at most 1000), Page and PageToken ("PA" + the SID of the last number of the page before).
 */
export function listIncomingNumbers(state: FakeTwilioState, res: http.ServerResponse, params: FormParams) {
  const rawSize = first(params, "PageSize");
  const pageSize = rawSize === undefined ? 50 : Number(rawSize);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 1000)
    return sendError(res, twilioError(400, 20007, `Invalid PageSize: ${rawSize} (1 to 1000)`));
  const page = Number(first(params, "Page") ?? 0);
  if (!Number.isInteger(page) || page < 0) return sendError(res, twilioError(400, 20007, `Invalid Page: ${first(params, "Page")}`));
  const wantedNumber = first(params, "PhoneNumber")?.replace(/[^\d+]/g, "");
  const wantedName = first(params, "FriendlyName");
  const wantedOrigin = first(params, "Origin");
  const all = [...state.incomingNumbers.values()]
    .filter((n) => !wantedNumber || n.phoneNumber.includes(wantedNumber))
    .filter((n) => wantedName === undefined || n.friendlyName === wantedName)
    // Every number of the fake was bought from Twilio (origin "twilio"), none hosted.
    .filter(() => wantedOrigin === undefined || wantedOrigin === "twilio");
  const token = first(params, "PageToken");
  let start = page * pageSize;
  if (token) {
    const after = all.findIndex((n) => `PA${n.sid}` === token);
    if (after < 0) return sendError(res, twilioError(400, 20007, `Invalid PageToken: ${token}`));
    start = after + 1;
  }
  const items = all.slice(start, start + pageSize);
  const query = (p: number, extra = "") => `${listUri(state)}?PageSize=${pageSize}&Page=${p}${extra}`;
  const last = items.at(-1);
  const hasNext = start + pageSize < all.length && last !== undefined;
  return send(res, 200, {
    end: start + Math.max(items.length, 1) - 1,
    first_page_uri: query(0),
    incoming_phone_numbers: items.map((n) => incomingNumberResource(state, n)),
    next_page_uri: hasNext ? query(page + 1, `&PageToken=PA${last.sid}`) : null,
    page,
    page_size: pageSize,
    previous_page_uri: page > 0 ? query(page - 1) : null,
    start,
    uri: `${listUri(state)}?PageSize=${pageSize}&Page=${page}${token ? `&PageToken=${token}` : ""}`,
  });
}

/** GET (fetch), POST (update) and DELETE (release) IncomingPhoneNumbers/{Sid}.json. */
export function incomingNumberEndpoint(
  state: FakeTwilioState,
  res: http.ServerResponse,
  method: string,
  params: FormParams,
  sid: string,
  notFound: () => void,
  notAllowed: () => void,
) {
  const number = state.incomingNumbers.get(sid);
  if (!number) return notFound();
  if (method === "GET") return send(res, 200, incomingNumberResource(state, number));
  if (method === "DELETE") {
    state.incomingNumbers.delete(sid);
    return send(res, 204, null);
  }
  if (method !== "POST") return notAllowed();
  for (const key of Object.keys(params)) {
    if (Array.isArray(params[key])) return sendError(res, twilioError(400, 21200, `Parameter ${key} was given more than once`));
    if (!KNOWN_UPDATE_PARAMS.has(key))
      state.warnings.push(`IncomingPhoneNumbers/${sid}.json: unknown parameter ${key} (Twilio ignores it)`);
  }
  for (const name of URL_PARAMS) {
    const value = first(params, name);
    if (value !== undefined && value !== "" && !isHttpUrl(value))
      return sendError(res, twilioError(400, 21402, `Invalid Url: ${name} ${value} is not a valid URL`));
  }
  for (const name of METHOD_PARAMS) {
    const value = first(params, name);
    if (value !== undefined && !/^(GET|POST)$/i.test(value))
      return sendError(res, twilioError(400, 21200, `${name} must be either GET or POST`));
  }
  const method_ = (value: string | undefined, current: "GET" | "POST") => (value ? (value.toUpperCase() as "GET" | "POST") : current);
  const url = (name: string) => first(params, name);
  if (url("VoiceUrl") !== undefined) number.voiceUrl = url("VoiceUrl")!;
  if (url("VoiceFallbackUrl") !== undefined) number.voiceFallbackUrl = url("VoiceFallbackUrl")!;
  if (url("SmsUrl") !== undefined) number.smsUrl = url("SmsUrl")!;
  if (url("SmsFallbackUrl") !== undefined) number.smsFallbackUrl = url("SmsFallbackUrl")!;
  if (url("StatusCallback") !== undefined) number.statusCallback = url("StatusCallback")!;
  number.voiceMethod = method_(url("VoiceMethod"), number.voiceMethod);
  number.smsMethod = method_(url("SmsMethod"), number.smsMethod);
  number.statusCallbackMethod = method_(url("StatusCallbackMethod"), number.statusCallbackMethod);
  const friendlyName = url("FriendlyName");
  if (friendlyName !== undefined) number.friendlyName = friendlyName;
  number.dateUpdated = new Date();
  number.updates.push({ ...params });
  state.changes.emit("incoming-number", sid);
  return send(res, 200, incomingNumberResource(state, number));
}
