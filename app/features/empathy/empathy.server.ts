import { paymentsReceived, refunds } from "~/platform/observability/metrics.server";
import { errorFields, log } from "~/platform/observability/log.server";
import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import type { Call } from "#models/calls";
import {
  claimEmpathyPayment,
  createEmpathyRequest,
  empathyCalls,
  eraseExpiredEmpathyContacts,
  findEmpathyRequest,
  findEmpathyRequestByPaymentIntent,
  markFailureNotified,
  markPaymentRefunded,
  recordEmpathyPayment,
  recordFunnelEvent,
  refundingEmpathyRequestIds,
  setEmpathyCheckoutSession,
  setEmpathyPaymentIntent,
  setEmpathyStatus,
  type EmpathyRequest,
} from "#models/empathy";
import { listAdminEmails } from "#models/admin";
import type { Db } from "#models/db";
import { refundFailedEmail } from "#emails/admin";
import { empathyFailedEmail, empathyRefundedEmail } from "#emails/empathy";
import type { EmpathyDetailsInput } from "~/features/empathy/schemas";
import { callLanguages } from "~/lib/languages";
import { refusalMessage, screenNumber } from "~/calls/dialling-policy.server";
import { placeCallJob, placeNow, publicOrigin } from "~/calls/engine.server";
import { originOfCall, queueCall, requestOrigin, type CallOrigin } from "~/calls/gate.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { helpCountryOf } from "~/voice/crisis.server";
import { callTexts } from "~/voice/call-texts.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppJob, AppServices, CallPurpose } from "~/platform/services.server";
import { empathyAgent } from "./agent.server";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";
import { requirePayments, type Payment } from "~/providers/payments.server";
import { capabilityToken, parseCapabilityToken } from "~/platform/security/capability.server";
import { parseDbId } from "~/lib/ids";
import { formatMoney } from "~/lib/money";

export const EMPATHY_AMOUNT_CENTS = 500;
export const EMPATHY_CURRENCY = "usd";
/** The first call and two more; then the $5 goes back. */
export const EMPATHY_CALL_ATTEMPTS = 3;
const PURPOSE = "empathy_call";

export interface EmpathyDetails {
  phone: string;
  email: string | null;
  /** A call language id: english, arabic, … */
  language: string;
  voice: "female" | "male";
}

// ---------------------------------------------------------------------------------------------
// The confirmation page's address: `${id}.${HMAC}`, so an e-mail can carry it without any secret
// being stored, and nobody can guess another request's page.

export function empathyToken(services: AppServices, id: number) {
  return capabilityToken(services, "empathy-request", id);
}

export function empathyStatusPath(services: AppServices, id: number) {
  return `/empathy/${empathyToken(services, id)}`;
}

export function parseEmpathyToken(services: AppServices, token: string): number | null {
  return parseCapabilityToken(services, "empathy-request", token);
}

// ---------------------------------------------------------------------------------------------
// Step one: the details, checked on the server

/** The server's checks beyond the form's: a real number in a country we call, not a premium line, with calls left today. */
export async function checkEmpathyDetails(
  services: AppServices,
  t: TFunction,
  input: EmpathyDetailsInput,
  ip: string | null = null,
): Promise<{ ok: true; details: EmpathyDetails } | { ok: false; field: "phone"; message: string }> {
  const origin = requestOrigin(services, "payment", ip);
  // A number whose calls of the day are used up is refused here, before the $5 is taken, not refunded after.
  const phone = await screenNumber(services, input.phone, {
    path: "empathy",
    origin,
    countries: services.env.EMPATHY_CALL_COUNTRIES,
    foreseeNumberCap: true,
  });
  if (!phone.ok) {
    const messages: Partial<Record<typeof phone.reason, string>> = {
      empty: t("empathy.phoneRequired"),
      invalid: t("empathy.phoneInvalid"),
      country: t("empathy.countryRefused"),
      premium: t("empathy.premiumRefused"),
      unroutable: t("empathy.premiumRefused"),
    };
    return { ok: false, field: "phone", message: messages[phone.reason] ?? refusalMessage(t, phone.reason) };
  }
  return { ok: true, details: { phone: phone.e164, email: input.email || null, language: input.language, voice: input.voice } };
}

/** How many $5 payments one visitor, and one number, may start: Stripe objects are not free to spam. */
export function exceededPaymentLimit(context: Readonly<RouterContextProvider>, phone: string) {
  return firstExceededRule(context, [
    { name: "empathy-pay:ip", subject: clientIp(context), limit: 20, windowSeconds: 3600 },
    { name: "empathy-pay:number", subject: phoneLimitSubject(phone), limit: 10, windowSeconds: 86_400 },
  ]);
}

export function languageCode(id: string) {
  return callLanguages.find((language) => language.id === id)?.code ?? "en";
}

function newRequest(services: AppServices, details: EmpathyDetails) {
  return createEmpathyRequest(services.db, {
    phone: details.phone,
    email: details.email,
    language: languageCode(details.language),
    voiceGender: details.voice,
    amountCents: EMPATHY_AMOUNT_CENTS,
    currency: EMPATHY_CURRENCY,
  });
}

// ---------------------------------------------------------------------------------------------
// Step two: the payment

/**
 * The $5 PaymentIntent for the Payment Element. The phone, language and voice stay in our
 * database, tied to the PaymentIntent; nothing a later request says about them is believed.
 */
export async function createEmpathyPaymentIntent(services: AppServices, details: EmpathyDetails) {
  const payments = requirePayments(services.payments);
  const request = await newRequest(services, details);
  const payment = await payments.createPayment(empathyPayment(request.id), `empathy-pi-${request.id}`);
  await setEmpathyPaymentIntent(services.db, request.id, payment.id);
  return { clientSecret: payment.clientSecret!, paymentIntentId: payment.id, request };
}

function empathyPayment(requestId: number) {
  return {
    amountCents: EMPATHY_AMOUNT_CENTS,
    currency: EMPATHY_CURRENCY,
    description: "Sakina empathy call (10 minutes)",
    metadata: { purpose: PURPOSE, empathyRequestId: String(requestId) },
  };
}

/** A hosted checkout page, for browsers without JavaScript: the same $5, back to the confirmation page. */
export async function createEmpathyCheckout(services: AppServices, details: EmpathyDetails, origin: string) {
  const payments = requirePayments(services.payments);
  const request = await newRequest(services, details);
  const checkout = await payments.createCheckout(
    {
      ...empathyPayment(request.id),
      productName: "Sakina empathy call: 10 minutes with an AI listener",
      successUrl: `${origin}${empathyStatusPath(services, request.id)}?session_id={CHECKOUT_ID}`,
      cancelUrl: `${origin}/?step=payment`,
    },
    `empathy-checkout-${request.id}`,
  );
  await setEmpathyCheckoutSession(services.db, request.id, checkout.id);
  return checkout.url;
}

// ---------------------------------------------------------------------------------------------
// The call

export type StartFailure = "not_found" | "not_empathy" | "wrong_amount" | "wrong_currency" | "not_succeeded" | "already_used";

export type StartResult =
  /** `callId` null: the dialling policy refused the number after all (the deployment's countries changed since the details step), and the payment goes back. */
  | { ok: true; request: EmpathyRequest; callId: number | null }
  | { ok: false; reason: StartFailure; status?: string; request?: EmpathyRequest };

/** Every check the server makes on a PaymentIntent before it places a call; the browser is never trusted. */
export function checkEmpathyPayment(intent: Payment): Exclude<StartFailure, "not_found" | "already_used"> | null {
  if (intent.metadata?.purpose !== PURPOSE) return "not_empathy";
  if (intent.amountCents !== EMPATHY_AMOUNT_CENTS) return "wrong_amount";
  if (intent.currency !== EMPATHY_CURRENCY) return "wrong_currency";
  if (intent.status !== "succeeded") return "not_succeeded";
  return null;
}

/**
 * Retrieves the PaymentIntent from Stripe, checks it, and queues the call. The page, the API and
 * the webhook may all arrive, in any order and any number of times: one transaction moves the
 * request out of awaiting_payment and inserts the call and its job together, so exactly one call
 * is placed, and a crash leaves either everything or nothing (for Stripe's retry to redo).
 */
export async function startEmpathyCall(services: AppServices, paymentIntentId: string, origin: string): Promise<StartResult> {
  const intent = await requirePayments(services.payments).findPayment(paymentIntentId);
  if (!intent) return { ok: false, reason: "not_found" };
  const failure = checkEmpathyPayment(intent);
  if (failure) return { ok: false, reason: failure, status: intent.status };

  let request = await findEmpathyRequestByPaymentIntent(services.db, intent.id);
  if (!request) {
    // The Checkout path: the PaymentIntent is born when the customer pays, so it is tied now.
    const candidateId = parseDbId(intent.metadata.empathyRequestId);
    const candidate = candidateId ? await findEmpathyRequest(services.db, candidateId) : null;
    if (!candidate || (candidate.paymentIntentId && candidate.paymentIntentId !== intent.id)) return { ok: false, reason: "not_found" };
    await setEmpathyPaymentIntent(services.db, candidate.id, intent.id);
    request = candidate;
  }
  if (request.amountCents !== intent.amountCents || request.currency !== intent.currency) return { ok: false, reason: "wrong_amount" };
  const paid = request;

  const started = await services.db.transaction(async (tx) => {
    const claimed = await claimEmpathyPayment(tx, paid.id, intent.id);
    if (!claimed || !claimed.phone) return null;
    await recordEmpathyPayment(tx, claimed, intent.id);
    const queued = await queueAttempt(services, tx, claimed, 1, { kind: "payment", address: null, session: `empathy:${claimed.id}` });
    await recordFunnelEvent(tx, "payment_success", claimed.id, claimed.language);
    if (queued.ok) return { request: claimed, callId: queued.call.id };
    const refunding = await setEmpathyStatus(tx, claimed.id, "refunding", ["calling"], { refundReason: "refused" });
    if (refunding) await services.jobs.enqueue(empathyRefundJob, { requestId: refunding.id, origin }, { tx });
    return { request: refunding ?? claimed, callId: null };
  });
  if (!started) return { ok: false, reason: "already_used", request: (await findEmpathyRequest(services.db, paid.id)) ?? paid };
  paymentsReceived.inc({ kind: "paid_call" });
  log.info(
    { empathyRequestId: started.request.id, callId: started.callId ?? undefined },
    `paid call ${started.request.id}: payment claimed`,
  );
  services.jobs.wake(placeCallJob);
  return { ok: true, ...started };
}

/** Queues attempt N of the request's call, inside `tx` (an attempt asked for already is found, not made again). */
function queueAttempt(
  services: AppServices,
  tx: AppServices["db"],
  request: EmpathyRequest,
  attempt: number,
  origin: CallOrigin,
  startAfter?: Date,
) {
  const language = callLanguages.find((entry) => entry.code === request.language) ?? callLanguages[0];
  return queueCall(
    services,
    {
      purpose: "empathy",
      to: request.phone!,
      language: request.language,
      voice: request.voiceGender === "male" ? language.maleVoice : language.femaleVoice,
      empathyRequestId: request.id,
      attempt,
      origin,
      ...(startAfter ? { startAfter } : {}),
    },
    tx,
  );
}

/**
 * How an attempt ended. Answered: done. Not reached: another attempt a little later (the
 * caller can also ask for it at once), with an e-mail after the first miss if we have an address;
 * after the last attempt the payment is refunded.
 */
/**
 * The paid call's purpose: the warm listener speaks; the funnel hears of each placed attempt, and
 * each ending decides what comes next.
 */
export const empathyCallPurpose: CallPurpose = {
  agent: async (services, call) => empathyAgent(call, services.env.RECORD_CALLS),
  crisis: { callerNumber: (call) => call.toNumber },
  // A minute before the time limit: the reviewed sentence in the call's language, not an English instruction.
  cues: (call) => [
    {
      afterSeconds: call.timeLimitSeconds - 60,
      instructions: `Say this to the caller, gently and word for word, then begin to close warmly: "${callTexts(call.language).oneMinuteLeft}"`,
    },
  ],
  async placed(services, call) {
    if (call.empathyRequestId) await recordFunnelEvent(services.db, "call_initiated", call.empathyRequestId, call.language);
  },
  finished: empathyCallFinished,
};

export async function empathyCallFinished(services: AppServices, call: Call, origin: string) {
  if (!call.empathyRequestId) return;
  const request = await findEmpathyRequest(services.db, call.empathyRequestId);
  if (!request || (request.status !== "calling" && request.status !== "retrying")) return;
  const [latest] = await empathyCalls(services.db, request.id);
  if (latest && latest.id !== call.id) return;

  // Counted only when the listener really spoke with the caller (see calls/delivery.ts): a
  // machine, a call the model never joined or one that ended at once is tried again.
  if (call.delivered) {
    const done = await setEmpathyStatus(services.db, request.id, "completed", ["calling", "retrying"], { finishedAt: new Date() });
    if (done) await recordFunnelEvent(services.db, "call_delivered", request.id, request.language);
    return;
  }

  // When the phone network itself has been failing for the whole retry window, more attempts
  // would only keep the $5 longer: it goes back now.
  const networkDown = call.undeliveredReason === "telephony_unavailable";
  if (call.attempt < EMPATHY_CALL_ATTEMPTS && !networkDown) {
    const next = new Date(Date.now() + services.env.EMPATHY_RETRY_DELAY_SECONDS * 1000);
    await services.db.transaction(async (tx) => {
      const moved = await setEmpathyStatus(tx, request.id, "retrying", ["calling", "retrying"]);
      if (!moved) return;
      await queueAttempt(services, tx, moved, call.attempt + 1, originOfCall(call), next);
      if (moved.email && (await markFailureNotified(tx, moved.id))) {
        const t = await translatorFor(moved.language);
        await services.jobs.enqueue(
          sendEmailJob,
          empathyFailedEmail(t, moved.language, {
            to: moved.email,
            statusUrl: `${publicOrigin(services)}${empathyStatusPath(services, moved.id)}`,
            minutes: Math.max(1, Math.round(services.env.EMPATHY_RETRY_DELAY_SECONDS / 60)),
            country: helpCountryOf(moved.phone),
          }),
          { tx },
        );
      }
    });
    return;
  }

  await services.db.transaction(async (tx) => {
    const moved = await setEmpathyStatus(tx, request.id, "refunding", ["calling", "retrying"], {
      refundReason: networkDown ? "telephony_unavailable" : "not_reached",
    });
    if (moved) await services.jobs.enqueue(empathyRefundJob, { requestId: moved.id, origin }, { tx });
  });
}

/** "Call me again now" from the confirmation page: the waiting attempt is placed at once. */
export async function retryEmpathyCallNow(services: AppServices, request: EmpathyRequest) {
  if (request.status !== "retrying") return false;
  const [latest] = await empathyCalls(services.db, request.id);
  if (!latest || latest.status !== "queued") return false;
  await placeNow(services, latest.id);
  return true;
}

/** The Stripe idempotency key of a paid call's refund: every try of the job and an admin's retry share it, so Stripe refunds once. */
const refundKey = (requestId: number) => `empathy-refund-${requestId}`;

/** A request whose $5 is owed back: its refund is on its way, or its job gave up and an admin sends it. */
const OWED: EmpathyRequest["status"][] = ["refunding", "refund_failed"];

/**
 * The one way a paid call's $5 goes back: the same Stripe request under the same key (a retried
 * job, a second worker or an admin's retry after the job gave up refunds once; a payment already
 * refunded by hand counts as refunded), then, in `tx`, the payment and the request become
 * refunded and the caller is told by e-mail. Null when nothing is owed (already refunded, not paid).
 */
export async function refundEmpathyRequest(services: AppServices, tx: Db, request: EmpathyRequest) {
  const paymentIntentId = request.paymentIntentId;
  if (!paymentIntentId || !OWED.includes(request.status)) return null;
  const { refundId } = await requirePayments(services.payments)
    .refund(paymentIntentId, { purpose: PURPOSE, empathyRequestId: String(request.id), reason: "call_not_reached" }, refundKey(request.id))
    .catch((error: unknown) => {
      refunds.inc({ result: "error" });
      log.info({ empathyRequestId: request.id, ...errorFields(error) }, `the refund of paid call ${request.id} was refused`);
      throw error;
    });
  refunds.inc({ result: "refunded" });
  log.info({ empathyRequestId: request.id, refundId }, `paid call ${request.id} refunded`);
  const now = new Date();
  // The payment's row first, as an admin's refund locks it: one order of locks, no deadlock.
  await markPaymentRefunded(tx, paymentIntentId, now);
  const refunded = await setEmpathyStatus(tx, request.id, "refunded", OWED, { refundId, finishedAt: now });
  if (refunded?.email) {
    const t = await translatorFor(refunded.language);
    await services.jobs.enqueue(
      sendEmailJob,
      empathyRefundedEmail(t, refunded.language, {
        to: refunded.email,
        statusUrl: `${publicOrigin(services)}${empathyStatusPath(services, refunded.id)}`,
        networkDown: refunded.refundReason === "telephony_unavailable",
        country: helpCountryOf(refunded.phone),
      }),
      { tx },
    );
  }
  return { refundId };
}

/** Gives the $5 back once every attempt failed; after its last retry, the refund sweep surfaces it. */
export const empathyRefundJob: AppJob<{ requestId: number; origin: string }> = {
  name: "empathy-refund",
  retryLimit: 10,
  retryDelaySeconds: 60,
  async handle({ requestId }, services) {
    const request = await findEmpathyRequest(services.db, requestId);
    if (!request || request.status !== "refunding") return;
    await services.db.transaction((tx) => refundEmpathyRequest(services, tx, request));
  },
};

/**
 * Refunds whose job used its last retry (Stripe refusing for hours, a worker killed at every try):
 * no job will move that money any more. Each request becomes refund_failed, which its page tells
 * the caller honestly and /admin/payments lists with a retry; every admin is e-mailed, in the same
 * transaction.
 */
export async function surfaceGivenUpRefunds(services: AppServices) {
  const refunding = await refundingEmpathyRequestIds(services.db);
  const givenUp = await services.jobs.givenUp(empathyRefundJob, "requestId", refunding.map(String));
  if (givenUp.length === 0) return;
  const admins = await listAdminEmails(services.db);
  const t = await translatorFor("en");
  for (const { key, error } of givenUp) {
    await services.db.transaction(async (tx) => {
      const failed = await setEmpathyStatus(tx, Number(key), "refund_failed", ["refunding"]);
      if (!failed) return;
      refunds.inc({ result: "given_up" });
      log.warn({ empathyRequestId: failed.id }, `paid call ${failed.id}: the refund job gave up (refund_failed); an admin refunds by hand`);
      for (const to of admins) {
        await services.jobs.enqueue(
          sendEmailJob,
          refundFailedEmail(t, "en", {
            to,
            requestId: failed.id,
            paymentIntentId: failed.paymentIntentId ?? "",
            amount: formatMoney(failed.amountCents, failed.currency.toUpperCase()),
            error,
            link: `${publicOrigin(services)}/admin/payments`,
          }),
          { tx },
        );
      }
    });
  }
}

/** Every five minutes: refunds whose job gave up become refund_failed, and the admins hear of them. */
export const empathyRefundSweepJob: AppJob<Record<string, never>> = {
  name: "empathy-refund-sweep",
  retryLimit: 2,
  retryDelaySeconds: 30,
  async handle(_data, services) {
    await surfaceGivenUpRefunds(services);
  },
};
export const EMPATHY_REFUND_SWEEP_CRON = "*/5 * * * *";

/** Every ten minutes: the 24-hour erasure of phone numbers the privacy page promises. */
export const empathyErasureJob: AppJob<Record<string, never>> = {
  name: "empathy-erasure",
  retryLimit: 3,
  retryDelaySeconds: 60,
  async handle(_data, services) {
    await eraseExpiredEmpathyContacts(services.db);
  },
};
export const EMPATHY_ERASURE_CRON = "*/10 * * * *";
