import { data, type RouterContextProvider } from "react-router";
import type { TFunction } from "i18next";
import type { Account } from "#models/accounts";
import { findBusinessById } from "#models/businesses";
import { listRecentCalls, type Call } from "#models/calls";
import { formatWhen, zoneName } from "~/lib/when";
import { refusalMessage, screenNumber } from "~/calls/dialling-policy.server";
import { queueCall, requestOrigin } from "~/calls/gate.server";
import { formatPhone } from "~/platform/phone.server";
import { getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { callsUnavailable } from "~/calls/readiness.server";
import type { AppServices } from "~/platform/services.server";

const RECEPTIONIST_OUTCOMES = { booked: 1, moved: 1, cancelled: 1, message: 1, transferred: 1, voicemail: 1 } as const;

/** A call's outcome for the owner: what a call to the business's own number came to in their words (ADR 0041), else as recorded. */
export function callOutcomeLabel(t: TFunction, call: Pick<Call, "purpose" | "outcome">) {
  if (call.purpose !== "receptionist" || !call.outcome || !(call.outcome in RECEPTIONIST_OUTCOMES)) return call.outcome;
  return t(`receptionist.outcome.${call.outcome as keyof typeof RECEPTIONIST_OUTCOMES}`);
}

/** The number that matters of a call: the one dialled, or the caller's when someone rang the business. */
export function callPartyNumber(call: Pick<Call, "direction" | "toNumber" | "fromNumber">) {
  const number = call.direction === "inbound" ? call.fromNumber : call.toNumber;
  return number ? formatPhone(number) : null;
}

/**
 * The control centre's content, shared by /telephony and the owner's calls page: the active
 * provider and the account's recent calls (an admin's: every call), each text ready to print.
 */
export async function loadCallCentre(services: AppServices, t: TFunction, locale: string, account: Account, timeZone = "UTC") {
  const scope = account.role === "admin" ? {} : { businessId: account.businessId ?? -1 };
  const calls = await listRecentCalls(services.db, { ...scope, limit: 25 });
  const seconds = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short" });
  return {
    provider: services.telephony.configured ? "Twilio" : null,
    callsUnavailable: callsUnavailable(services),
    timeZone,
    zoneName: zoneName(timeZone, locale),
    calls: calls.map((c) => ({
      id: c.id,
      when: formatWhen(c.createdAt, timeZone, locale),
      purpose: t(`owner.callPurpose.${c.purpose}`),
      to: callPartyNumber(c),
      status: t(`owner.callStatus.${c.status}`),
      outcome: callOutcomeLabel(t, c),
      /** A booking confirmation call's summary for the owner, redacted. */
      summary: c.summary,
      duration: c.durationSeconds !== null ? seconds.format(c.durationSeconds) : null,
    })),
  };
}

export type CallCentreData = Awaited<ReturnType<typeof loadCallCentre>>;

/**
 * The owner's (or admin's) test call, through the same dialling policy as every other call and
 * at most ten an hour per account. Returns an error to show, or null once the call is queued.
 */
export async function placeTestCall(
  services: AppServices,
  t: TFunction,
  context: Readonly<RouterContextProvider>,
  account: Account,
  typed: string,
): Promise<ReturnType<typeof data<{ error: string; to: string; general?: boolean }>> | null> {
  // The page said so before the form (and kept its button off): a post anyway keeps what was typed.
  if (!services.telephony.configured) return data({ error: t("common.callsNotConfigured"), to: typed, general: true }, { status: 503 });
  const business = account.businessId ? await findBusinessById(services.db, account.businessId) : null;
  const origin = requestOrigin(services, "owner", clientIp(context), `account:${account.id}`);
  const phone = await screenNumber(services, typed, { path: "test", business, origin });
  if (!phone.ok) return data({ error: refusalMessage(t, phone.reason), to: typed }, { status: 400 });
  const exceeded = await firstExceededRule(context, [
    { name: "test-call:account", subject: String(account.id), limit: 10, windowSeconds: 3600 },
  ]);
  if (exceeded) return data({ error: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }), to: typed }, { status: 429 });
  const queued = await queueCall(services, {
    purpose: "test",
    to: phone.e164,
    language: getLocale(context),
    voice: "shimmer",
    businessId: account.businessId,
    origin,
  });
  if (!queued.ok) return data({ error: refusalMessage(t, queued.reason), to: typed }, { status: 400 });
  return null;
}
