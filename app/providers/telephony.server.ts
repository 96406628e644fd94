import twilio from "twilio";
import type { Env } from "~/platform/env.server";

export class TelephonyNotConfiguredError extends Error {
  constructor() {
    super("Calls are not configured (TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM_NUMBER are needed).");
  }
}

/** A provider error with Twilio's code (21211 invalid number, 21215 not allowed, …). */
export class TelephonyError extends Error {
  constructor(
    message: string,
    readonly code: number | undefined,
    readonly status: number | undefined,
  ) {
    super(message);
  }
  /** Worth trying again later: the provider's own trouble, rate limits, the network. */
  get transient() {
    return this.status === undefined || this.status >= 500 || this.status === 429;
  }
}

export interface PlaceCallOptions {
  to: string;
  /** Where the provider fetches the call's instructions (TwiML). */
  voiceUrl: string;
  statusCallbackUrl: string;
  timeLimitSeconds: number;
  /**
   * Answering-machine detection, on every call: "message" waits for the greeting's end (to leave
   * a voicemail after the beep), "hang-up" answers as soon as a machine is recognised.
   */
  machineDetection: "message" | "hang-up";
  /** Record the call (both parties, one channel each) and report the recording here; no recording without it. */
  recordingStatusCallbackUrl?: string;
}

/** A call as the provider has it: what happened, whatever callbacks reached us. */
export interface ProviderCallRecord {
  /** The provider's own status: queued, ringing, in-progress, completed, busy, no-answer, failed, canceled. */
  status: string;
  /** Seconds from the answer to the end; null while the call is up. */
  durationSeconds: number | null;
  answeredBy: string | null;
  startedAt: Date | null;
  endedAt: Date | null;
}

export interface Telephony {
  name: "twilio";
  configured: boolean;
  placeCall(options: PlaceCallOptions): Promise<{ providerCallId: string; from: string }>;
  hangUp(providerCallId: string): Promise<void>;
  /**
   * The calls to `to` from one of our numbers created at or after `since`, newest first: how a
   * dial whose answer was lost (the process died while the provider created the call) is found.
   */
  recentCallsTo(to: string, since: Date): Promise<{ providerCallId: string; from: string; status: string; createdAt: Date }[]>;
  /** The provider's record of one call (GET Calls/{sid}): how the engine learns an end whose callback never came. */
  fetchCall(providerCallId: string): Promise<ProviderCallRecord>;
  /** Deletes a recording at the provider; one already gone counts as deleted. */
  deleteRecording(recordingSid: string): Promise<void>;
  /** Gives a live call new instructions (TwiML) at once: what it was doing (a media stream) ends. */
  redirectCall(providerCallId: string, twiml: string): Promise<void>;
  /** A real request with the credentials; `trial` when the account may only call verified numbers. */
  checkCredentials(): Promise<{ ok: boolean; message: string; trial?: boolean }>;
  /** X-Twilio-Signature over the full URL and POST parameters. */
  verifySignature(signature: string | null, url: string, params: Record<string, string>): boolean;
}

/**
 * Twilio through its SDK. TWILIO_API_URL only moves the SDK's requests to another host (the
 * tests' fake Twilio); the requests themselves are the production ones.
 */
export function createTelephony(env: Env): Telephony {
  const configured = Boolean(env.TWILIO_ACCOUNT_SID && env.TWILIO_AUTH_TOKEN && env.TWILIO_FROM_NUMBER);
  const client = configured ? twilioClient(env) : null;

  function requireClient() {
    if (!client) throw new TelephonyNotConfiguredError();
    return client;
  }

  function callerIdFor(to: string) {
    if (to.startsWith("+966") && env.TWILIO_FROM_NUMBER_SA) return env.TWILIO_FROM_NUMBER_SA;
    if (to.startsWith("+971") && env.TWILIO_FROM_NUMBER_AE) return env.TWILIO_FROM_NUMBER_AE;
    return env.TWILIO_FROM_NUMBER!;
  }

  return {
    name: "twilio",
    configured,
    async placeCall(options) {
      const from = callerIdFor(options.to);
      try {
        const call = await requireClient().calls.create({
          to: options.to,
          from,
          url: options.voiceUrl,
          method: "POST",
          statusCallback: options.statusCallbackUrl,
          statusCallbackMethod: "POST",
          statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
          timeLimit: options.timeLimitSeconds,
          machineDetection: options.machineDetection === "message" ? "DetectMessageEnd" : "Enable",
          machineDetectionTimeout: 15,
          ...(options.recordingStatusCallbackUrl
            ? {
                record: true,
                recordingChannels: "dual",
                recordingStatusCallback: options.recordingStatusCallbackUrl,
                recordingStatusCallbackMethod: "POST",
                recordingStatusCallbackEvent: ["completed"],
              }
            : {}),
        });
        return { providerCallId: call.sid, from };
      } catch (error) {
        throw toTelephonyError(error);
      }
    },
    async hangUp(providerCallId) {
      try {
        await requireClient().calls(providerCallId).update({ status: "completed" });
      } catch (error) {
        throw toTelephonyError(error);
      }
    },
    async recentCallsTo(to, since) {
      try {
        const found = await requireClient().calls.list({ to, from: callerIdFor(to), pageSize: 20, limit: 20 });
        return found
          .filter((call) => call.dateCreated && call.dateCreated.getTime() >= since.getTime())
          .map((call) => ({ providerCallId: call.sid, from: call.from, status: call.status, createdAt: call.dateCreated }));
      } catch (error) {
        throw toTelephonyError(error);
      }
    },
    async fetchCall(providerCallId) {
      try {
        const call = await requireClient().calls(providerCallId).fetch();
        // Seconds as a string once the call is over (the SDK's types say string; it is null while up).
        const duration = call.duration ? Number(call.duration) : NaN;
        return {
          status: call.status,
          durationSeconds: Number.isFinite(duration) ? duration : null,
          answeredBy: call.answeredBy ?? null,
          startedAt: (call.startTime as Date | undefined) ?? null,
          endedAt: (call.endTime as Date | undefined) ?? null,
        };
      } catch (error) {
        throw toTelephonyError(error);
      }
    },
    async deleteRecording(recordingSid) {
      try {
        await requireClient().recordings(recordingSid).remove();
      } catch (error) {
        const failure = toTelephonyError(error);
        if (failure.status !== 404) throw failure;
      }
    },
    async redirectCall(providerCallId, twiml) {
      try {
        await requireClient().calls(providerCallId).update({ twiml });
      } catch (error) {
        throw toTelephonyError(error);
      }
    },
    async checkCredentials() {
      if (!client) return { ok: false, message: "Not configured" };
      try {
        const account = await client.api.v2010.accounts(env.TWILIO_ACCOUNT_SID!).fetch();
        return {
          ok: account.status === "active",
          message: `Account ${account.friendlyName ?? account.sid}: ${account.status}`,
          trial: account.type === "Trial",
        };
      } catch (error) {
        return { ok: false, message: toTelephonyError(error).message };
      }
    },
    verifySignature(signature, url, params) {
      if (!env.TWILIO_AUTH_TOKEN || !signature) return false;
      return twilio.validateRequest(env.TWILIO_AUTH_TOKEN, signature, url, params);
    },
  };
}

function toTelephonyError(error: unknown) {
  const e = error as { message?: string; code?: number; status?: number };
  return new TelephonyError(
    e.message ?? String(error),
    typeof e.code === "number" ? e.code : undefined,
    typeof e.status === "number" ? e.status : undefined,
  );
}

/**
 * The Twilio SDK's client for the account: calls, texts and phone numbers each make theirs here, so
 * all reach the same host (TWILIO_API_URL sends them to another, the tests' fake Twilio).
 */
export function twilioClient(env: Env) {
  return twilio(
    env.TWILIO_ACCOUNT_SID,
    env.TWILIO_AUTH_TOKEN,
    env.TWILIO_API_URL ? { httpClient: new RedirectingClient(env.TWILIO_API_URL) } : {},
  );
}

/** Sends the SDK's requests for https://api.twilio.com (and its subdomains) to another origin. */
export class RedirectingClient extends twilio.RequestClient {
  constructor(private readonly base: string) {
    super();
  }
  override request<TData>(opts: Parameters<twilio.RequestClient["request"]>[0]) {
    const uri = new URL(opts.uri);
    const target = new URL(this.base);
    uri.protocol = target.protocol;
    uri.host = target.host;
    return super.request<TData>({ ...opts, uri: uri.toString() } as never);
  }
}
