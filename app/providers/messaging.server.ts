import type { Env } from "~/platform/env.server";
import { TelephonyError, twilioClient } from "./telephony.server";

/** Twilio's "Attempt to send to unsubscribed recipient": the person texted STOP to that sender. */
export const TWILIO_UNSUBSCRIBED = 21610;

export interface SendTextOptions {
  to: string;
  /** The sender: the platform's TWILIO_SMS_FROM today, a business's own number later. */
  from: string;
  body: string;
  statusCallback: string;
}

export interface Messaging {
  /** Texts can be sent: the account's SID and token and a sender (TWILIO_SMS_FROM) are set. */
  configured: boolean;
  /** The platform's own sender (TWILIO_SMS_FROM), null when none is set. */
  platformSender: string | null;
  /**
   * One Messages.create. Only the text gate's job (app/texts/gate.server.ts) calls it;
   * tests/unit/text-gate.test.ts fails if anything else does.
   */
  send(options: SendTextOptions): Promise<{ sid: string; status: string }>;
}

/**
 * Twilio Programmable Messaging through its SDK. TWILIO_API_URL only moves the SDK's requests to
 * another host (the tests' fake Twilio), as for calls.
 */
export function createMessaging(env: Env): Messaging {
  const configured = Boolean(env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN && env.TWILIO_SMS_FROM);
  const client = configured ? twilioClient(env) : null;
  return {
    configured,
    platformSender: env.TWILIO_SMS_FROM ?? null,
    async send({ to, from, body, statusCallback }) {
      if (!client)
        throw new TelephonyError("Texts are not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_SMS_FROM).", undefined, 0);
      try {
        const message = await client.messages.create({ to, from, body, statusCallback });
        return { sid: message.sid, status: message.status };
      } catch (error) {
        const e = error as { message?: string; code?: number; status?: number };
        throw new TelephonyError(
          e.message ?? String(error),
          typeof e.code === "number" ? e.code : undefined,
          typeof e.status === "number" ? e.status : undefined,
        );
      }
    },
  };
}
