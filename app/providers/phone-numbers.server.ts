import type { Env } from "~/platform/env.server";
import { TelephonyError, twilioClient } from "./telephony.server";

/** One of the account's own numbers (Twilio's IncomingPhoneNumber), as the owner's page needs it. */
export interface AccountNumber {
  /** PN… */
  sid: string;
  /** E.164. */
  phoneNumber: string;
  friendlyName: string;
  voice: boolean;
  sms: boolean;
  /** Where its calls and texts go now; "" or null when nowhere. */
  voiceUrl: string | null;
  smsUrl: string | null;
  /** Where the provider reports how a call to the number went ("" or null when nowhere). */
  statusCallback: string | null;
}

export interface NumberRouting {
  /** Where the provider asks what to do with a call to the number ("" stops it asking us). */
  voiceUrl?: string;
  /** Where the provider posts a text to the number ("" stops it). */
  smsUrl?: string;
  /** Where the provider posts a call's end (its duration and status: the provider's truth). */
  statusCallback?: string;
}

/**
 * The phone numbers of the platform's Twilio account (IncomingPhoneNumbers), which a business
 * connects as its own: listed for the owner to choose, and pointed at Sakina's webhooks.
 */
export interface PhoneNumbers {
  /** The account's SID and token are set. */
  configured: boolean;
  /** Every number of the account, voice-capable or not, in the provider's order. */
  list(): Promise<AccountNumber[]>;
  /** One number by SID; null when the account has no such number (Twilio's 20404). */
  fetch(sid: string): Promise<AccountNumber | null>;
  /** Sets where its calls and texts go (POST, each); only the URLs given change. */
  route(sid: string, routing: NumberRouting): Promise<AccountNumber>;
}

/** At most this many numbers are listed (the SDK follows next_page_uri page by page). */
const LIST_LIMIT = 500;

/**
 * Twilio's IncomingPhoneNumbers through its SDK. TWILIO_API_URL only moves the SDK's requests to
 * another host (the tests' fake Twilio), as for calls and texts.
 */
export function createPhoneNumbers(env: Env): PhoneNumbers {
  const configured = Boolean(env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN);
  const client = configured ? twilioClient(env) : null;
  function requireClient() {
    if (!client) throw new TelephonyError("Twilio is not configured (TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN).", undefined, 0);
    return client;
  }
  return {
    configured,
    async list() {
      try {
        const numbers = await requireClient().incomingPhoneNumbers.list({ pageSize: 100, limit: LIST_LIMIT });
        return numbers.map(accountNumber);
      } catch (error) {
        throw providerError(error);
      }
    },
    async fetch(sid) {
      try {
        return accountNumber(await requireClient().incomingPhoneNumbers(sid).fetch());
      } catch (error) {
        const failure = providerError(error);
        if (failure.status === 404) return null;
        throw failure;
      }
    },
    async route(sid, routing) {
      try {
        const updated = await requireClient()
          .incomingPhoneNumbers(sid)
          .update({
            ...(routing.voiceUrl === undefined ? {} : { voiceUrl: routing.voiceUrl, voiceMethod: "POST" }),
            ...(routing.smsUrl === undefined ? {} : { smsUrl: routing.smsUrl, smsMethod: "POST" }),
            ...(routing.statusCallback === undefined ? {} : { statusCallback: routing.statusCallback, statusCallbackMethod: "POST" }),
          });
        return accountNumber(updated);
      } catch (error) {
        throw providerError(error);
      }
    },
  };
}

function accountNumber(number: {
  sid: string;
  phoneNumber: string;
  friendlyName: string;
  capabilities: { voice?: boolean; sms?: boolean } | null;
  voiceUrl: string | null;
  smsUrl: string | null;
  statusCallback?: string | null;
}): AccountNumber {
  return {
    sid: number.sid,
    phoneNumber: number.phoneNumber,
    friendlyName: number.friendlyName ?? number.phoneNumber,
    voice: Boolean(number.capabilities?.voice),
    sms: Boolean(number.capabilities?.sms),
    voiceUrl: number.voiceUrl ?? null,
    smsUrl: number.smsUrl ?? null,
    statusCallback: number.statusCallback ?? null,
  };
}

function providerError(error: unknown) {
  const e = error as { message?: string; code?: number; status?: number };
  return new TelephonyError(
    e.message ?? String(error),
    typeof e.code === "number" ? e.code : undefined,
    typeof e.status === "number" ? e.status : undefined,
  );
}
