import { textsSent } from "~/platform/observability/metrics.server";
import { findBusinessById } from "#models/businesses";
import type { Db } from "#models/db";
import { claimText, isTextOptedOut, markTextSending, optOutOfTexts, recordTextSent, updateText } from "#models/texts";
import { allowedCountries, classifyNumber } from "~/calls/dialling-policy.server";
import type { AppJob, AppServices } from "~/platform/services.server";
import { TWILIO_UNSUBSCRIBED } from "~/providers/messaging.server";
import type { TelephonyError } from "~/providers/telephony.server";

/** What a text is for; kept on its row (and in the key) so the owner and the admin can tell them apart. */
export type TextPurpose = "booking_confirmation" | "booking_reminder";

/** Twilio's limit on a Body (error 21617 above it). */
export const TEXT_MAX_LENGTH = 1600;

export interface TextRequest {
  /** Whose customer is texted: their opt-outs and countries apply (null: the platform's own text). */
  businessId: number | null;
  to: string;
  body: string;
  purpose: TextPurpose;
  /** Unique per text meant: a second request with the same key is the same text, sent at most once. */
  key: string;
}

export type QueuedText = { queued: true } | { queued: false; reason: "not_configured" };

/**
 * The one way a text (SMS) is asked for: a durable job inserted in `tx`, the caller's transaction,
 * so the text exists if and only if what needs it commits. The job (sendTextJob) applies the rules
 * every text obeys before Twilio is asked: the customer's STOP for that business and for the
 * platform, the dialling policy's countries and number types (no premium, personal or unroutable
 * ranges), and one send per key. tests/unit/text-gate.test.ts fails when anything else queues the
 * job or calls Twilio's Messages API.
 */
export async function queueText(services: AppServices, tx: Db, request: TextRequest): Promise<QueuedText> {
  if (!services.messaging.configured) return { queued: false, reason: "not_configured" };
  if (!request.body.trim() || request.body.length > TEXT_MAX_LENGTH)
    throw new Error(`A text's body must be 1 to ${TEXT_MAX_LENGTH} characters`);
  await services.jobs.enqueue(sendTextJob, request, { tx, singletonKey: `text-${request.key}` });
  return { queued: true };
}

/** Why the gate did not send a text; stored on its row. */
export type TextRefusal = "not_configured" | "opted_out" | "invalid" | "country" | "premium" | "unroutable";

/** Decides whether the text may go: the stored opt-outs, then the dialling policy's classification. */
async function refusalOf(services: AppServices, request: TextRequest): Promise<{ refusal: TextRefusal } | { e164: string }> {
  const business = request.businessId === null ? null : await findBusinessById(services.db, request.businessId);
  const classified = classifyNumber(request.to, allowedCountries(services.env.CALL_COUNTRIES, business?.callCountries));
  if (!classified.ok) {
    const reason = classified.reason;
    return { refusal: reason === "premium" || reason === "unroutable" || reason === "country" ? reason : "invalid" };
  }
  const e164 = classified.e164;
  // A STOP to the platform's sender stops every text from it; a STOP to a business's own number, that business's.
  if (await isTextOptedOut(services.db, null, e164)) return { refusal: "opted_out" };
  if (request.businessId !== null && (await isTextOptedOut(services.db, request.businessId, e164))) return { refusal: "opted_out" };
  return { e164 };
}

/**
 * Sends one text, at most once per key. The row is claimed first (unique key); a row already past
 * "pending" is a text an earlier run of this job handled (sent, refused, or in flight when its
 * worker died: that one is marked "unconfirmed" and never sent again, since Twilio may have it).
 * Twilio's 21610 (the number texted STOP to the sender) is stored as an opt-out.
 */
export const sendTextJob: AppJob<TextRequest> = {
  name: "send-text",
  retryLimit: 5,
  retryDelaySeconds: 30,
  sealed: { owner: (data) => data.to },
  async handle(request, services) {
    const row = await claimText(services.db, {
      key: request.key,
      businessId: request.businessId,
      purpose: request.purpose,
      toPhone: request.to,
    });
    if (row.status === "sending" && !row.providerSid) {
      await updateText(services.db, row.id, { status: "unconfirmed" });
      return;
    }
    // Sent already (Twilio's SID is kept), refused, or past sending: nothing more to do.
    if (row.status !== "pending" || row.providerSid) return;
    const from = services.messaging.platformSender;
    if (!services.messaging.configured || !from) {
      await updateText(services.db, row.id, { status: "refused", refusal: "not_configured" });
      textsSent.inc({ result: "refused" });
      return;
    }
    const decision = await refusalOf(services, request);
    if ("refusal" in decision) {
      await updateText(services.db, row.id, { status: "refused", refusal: decision.refusal });
      textsSent.inc({ result: decision.refusal === "opted_out" ? "opted_out" : "refused" });
      return;
    }
    if (!(await markTextSending(services.db, row.id, from))) return;
    try {
      const sent = await services.messaging.send({
        to: decision.e164,
        from,
        body: request.body,
        statusCallback: `${services.publicOrigin()}/webhooks/twilio/message-status/${row.id}`,
      });
      await recordTextSent(services.db, row.id, sent.sid, sent.status);
      textsSent.inc({ result: "sent" });
    } catch (error) {
      const failure = error as TelephonyError;
      if (failure.code === TWILIO_UNSUBSCRIBED) {
        // Sent from the platform's number, so the STOP Twilio holds is the platform's.
        await optOutOfTexts(services.db, null, decision.e164);
        await updateText(services.db, row.id, { status: "refused", refusal: "opted_out", errorCode: failure.code });
        textsSent.inc({ result: "opted_out" });
        return;
      }
      // Twilio's own trouble or a rate limit: nothing was sent; the queue tries again.
      if (failure.status !== undefined && (failure.status >= 500 || failure.status === 429)) {
        await updateText(services.db, row.id, { status: "pending" });
        textsSent.inc({ result: "retry" });
        throw error;
      }
      // Refused by Twilio (a number it cannot text, a region not enabled), or the answer was lost:
      // never sent again, so a lost answer cannot become a second text.
      await updateText(services.db, row.id, {
        status: failure.status === undefined ? "unconfirmed" : "failed",
        errorCode: failure.code ?? null,
      });
      textsSent.inc({ result: failure.status === undefined ? "unconfirmed" : "failed" });
    }
  },
};
