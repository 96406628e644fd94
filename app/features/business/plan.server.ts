import type { TFunction } from "i18next";
import { markBookingNotCalled, setBookingCallState } from "#models/bookings";
import { recordCallRefusal, listPlanRefusalsSince } from "#models/call-refusals";
import {
  admitPlanCall,
  applySubscriptionState,
  countPlanCallsSince,
  findBusinessById,
  MONTHLY_CALLS,
  PLAN_PAUSED_STATE,
  STARTER_CALLS,
  type Business,
} from "#models/businesses";
import { failCall, type Call } from "#models/calls";
import { formatWhen } from "~/lib/when";
import { ensureBusinessSubscription, MONTHLY_PRICE_CENTS, OVERAGE_PRICE_CENTS } from "~/features/business/signup/onboarding.server";
import { numberHash } from "~/calls/dialling-policy.server";
import { requireBilling, type SubscriptionState } from "~/providers/billing.server";
import { PaymentsError } from "~/providers/payments.server";
import type { AppServices } from "~/platform/services.server";

/**
 * The business plans (DESIGN.md section 6), enforced here on the server: the $1 starter gives 7
 * days and 20 calls; then $99 a month for 100 calls and $1 for each call beyond, billed by Stripe
 * (see docs/decisions/0012-business-plan-metering.md). Every call admitted through admitPlanCall
 * counts: a booking's confirmation (once per booking), each reminder call, and each call the
 * receptionist answers on the business's number (ADR 0041).
 */

/** Why a confirmation call was not placed because of the plan; the owner sees it on the booking. */
export type PlanRefusal = "starter_used" | "starter_ended" | "canceled" | "no_plan";

/** The prefix of a booking's `notCalledReason` when the plan, not the number, kept the call. */
export const PLAN_REASON_PREFIX = "plan_";

/** Where the period whose calls count began: activation for the starter, Stripe's period for the monthly plan. */
export function periodStartOf(business: Business): Date | null {
  if (business.planStatus === "starter") return business.activatedAt;
  return business.planPeriodStart ?? business.starterEndsAt ?? business.activatedAt;
}

/**
 * Whether one more confirmation call may be placed, given the calls the period has used. The
 * starter refuses the 21st call and every call after its 7 days; the monthly plan places every
 * call (beyond 100 they are billed); a past-due plan holds calls ("paused") until it is paid.
 */
export function planDecision(
  business: Pick<Business, "planStatus" | "starterEndsAt">,
  used: number,
  now: Date,
): { ok: true; metered: boolean } | { ok: false; reason: PlanRefusal } | { ok: false; reason: "paused" } {
  switch (business.planStatus) {
    case "starter":
      if (!business.starterEndsAt || business.starterEndsAt.getTime() <= now.getTime()) return { ok: false, reason: "starter_ended" };
      if (used >= STARTER_CALLS) return { ok: false, reason: "starter_used" };
      return { ok: true, metered: false };
    case "active":
      return { ok: true, metered: true };
    case "past_due":
      return { ok: false, reason: "paused" };
    case "canceled":
      return { ok: false, reason: "canceled" };
    default:
      return { ok: false, reason: "no_plan" };
  }
}

/**
 * Stripe's view is read again when ours may be out of date: the starter's end or the period's has
 * passed. (A past-due plan is left to the webhook and the sweeper, which also place the held calls.)
 */
function mayBeStale(business: Business, now: Date) {
  if (!business.stripeSubscriptionId) return false;
  if (business.planStatus === "starter") return (business.starterEndsAt?.getTime() ?? 0) <= now.getTime();
  if (business.planStatus === "active") return (business.planPeriodEnd?.getTime() ?? 0) <= now.getTime();
  return false;
}

/**
 * The gate of a confirmation call, at the moment it would be placed. Admitted: counted against
 * the period (once per booking, however often the job runs and however many attempts it takes) and true. Past due: the call stays queued, its
 * booking says it is paused, and it is placed when the plan is paid again. Refused: the call
 * fails with the reason, the refusal is recorded, and the booking (kept) says why nobody called.
 */
export async function admitConfirmationCall(services: AppServices, call: Call, now = new Date()): Promise<boolean> {
  if (!call.businessId) return true;
  const business = await findBusinessById(services.db, call.businessId);
  if (business && services.billing && mayBeStale(business, now)) {
    // A missed webhook must not stop (or let through) calls: ask Stripe. Down, the database decides.
    await syncBusinessPlan(services, business.stripeSubscriptionId!).catch(() => undefined);
  }
  const decision = await admitPlanCall(
    services.db,
    { businessId: call.businessId, callId: call.id, bookingId: call.bookingId },
    async (current, usedSince) => {
      const start = periodStartOf(current);
      const used = start ? await usedSince(start) : 0;
      return planDecision(current, used, now);
    },
  );
  if (decision.ok) return true;
  if (decision.reason === "no_business") return false;
  if (decision.reason === "paused") {
    if (call.bookingId) await setBookingCallState(services.db, call.bookingId, PLAN_PAUSED_STATE);
    return false;
  }
  await failCall(services.db, call.id, `The business's plan does not allow this call (${decision.reason}).`);
  await recordCallRefusal(services.db, {
    path: call.purpose,
    reason: `${PLAN_REASON_PREFIX}${decision.reason}`,
    numberHash: call.toNumber ? numberHash(services, call.toNumber) : null,
    businessId: call.businessId,
  });
  if (call.bookingId) await markBookingNotCalled(services.db, call.bookingId, `${PLAN_REASON_PREFIX}${decision.reason}`);
  return false;
}

/**
 * The gate of a reminder call (docs/decisions/0032-reminder-calls.md): counted like any call, one
 * plan call per reminder call (not folded into the booking's confirmation, which counts once per
 * booking). Anything but yes skips it: a reminder held until a past-due plan is paid would come too
 * late, and a refusal is recorded for the plan page without touching the booking's confirmation.
 */
export async function admitReminderCall(services: AppServices, call: Call, now = new Date()): Promise<boolean> {
  if (!call.businessId) return true;
  const business = await findBusinessById(services.db, call.businessId);
  if (business && services.billing && mayBeStale(business, now)) {
    await syncBusinessPlan(services, business.stripeSubscriptionId!).catch(() => undefined);
  }
  const decision = await admitPlanCall(
    services.db,
    { businessId: call.businessId, callId: call.id, bookingId: null },
    async (current, usedSince) => {
      const start = periodStartOf(current);
      const used = start ? await usedSince(start) : 0;
      return planDecision(current, used, now);
    },
  );
  if (decision.ok) return true;
  if (decision.reason === "no_business") return false;
  await failCall(services.db, call.id, `The business's plan does not allow this reminder call (${decision.reason}).`);
  if (decision.reason === "paused") return false;
  await recordCallRefusal(services.db, {
    path: call.purpose,
    reason: `${PLAN_REASON_PREFIX}${decision.reason}`,
    numberHash: call.toNumber ? numberHash(services, call.toNumber) : null,
    businessId: call.businessId,
  });
  return false;
}

/**
 * Reads the business's subscription from Stripe and applies it: status, period, cancellation.
 * Called by the webhook (so a late or replayed event applies what is true now), by the owner's
 * actions and by the gate. `resumed`: the plan was past due and is not any more.
 */
export async function syncBusinessPlan(services: AppServices, subscriptionId: string, known?: SubscriptionState) {
  const state = known ?? (await requireBilling(services.billing).findSubscription(subscriptionId));
  if (!state) return null;
  const change = await applySubscriptionState(services.db, subscriptionId, state);
  if (!change) return null;
  const { before, after } = change;
  // Paid again: the calls it held may go (the caller hands them to the call engine).
  return { business: after, resumed: before.planStatus === "past_due" && after.planStatus !== "past_due" };
}

/** What the next invoice will be, in cents: $99 for the coming month plus $1 for each call beyond 100 this month. */
export function nextInvoiceEstimate(input: { planStatus: Business["planStatus"]; used: number; cancelAtPeriodEnd: boolean }) {
  if (input.planStatus === "starter") return input.cancelAtPeriodEnd ? 0 : MONTHLY_PRICE_CENTS;
  if (input.planStatus !== "active" && input.planStatus !== "past_due") return 0;
  const overage = Math.max(0, input.used - MONTHLY_CALLS) * OVERAGE_PRICE_CENTS;
  // The month is billed in advance and its extra calls after it: a plan ending bills only the calls.
  return (input.cancelAtPeriodEnd ? 0 : MONTHLY_PRICE_CENTS) + overage;
}

const money = (cents: number, locale: string) => new Intl.NumberFormat(locale, { style: "currency", currency: "USD" }).format(cents / 100);

/** The plan and the calls its period has used, in words: one count (the analytics page shows no more). */
export async function loadPlanUsage(services: AppServices, t: TFunction, locale: string, business: Business) {
  const start = periodStartOf(business);
  const used = start ? await countPlanCallsSince(services.db, business.id, start) : 0;
  const allowance = business.planStatus === "starter" ? STARTER_CALLS : MONTHLY_CALLS;
  const status = business.planStatus;
  const when = (date: Date | null) => (date ? formatWhen(date, business.timeZone, locale, "date") : "");
  return {
    status,
    statusLabel: t(`plan.status.${status}`),
    used,
    allowance,
    usedLabel: t("dashboard.callsUsed", { used, allowance }),
    periodLabel:
      status === "starter"
        ? t("plan.starterPeriod", { date: when(business.starterEndsAt) })
        : status === "active" || status === "past_due"
          ? t("plan.monthlyPeriod", { start: when(start), end: when(business.planPeriodEnd) })
          : null,
  };
}

/** The owner's view of the plan: status, usage this period, the next invoice and what can be done. */
export async function loadPlanView(services: AppServices, t: TFunction, locale: string, business: Business, now = new Date()) {
  const start = periodStartOf(business);
  const usage = await loadPlanUsage(services, t, locale, business);
  const { status, used } = usage;
  const when = (date: Date | null) => (date ? formatWhen(date, business.timeZone, locale, "date") : "");
  const starterEnds = status === "starter" ? business.starterEndsAt : null;
  const nextInvoiceAt = status === "starter" ? starterEnds : status === "active" || status === "past_due" ? business.planPeriodEnd : null;
  const estimate = nextInvoiceEstimate({ planStatus: status, used, cancelAtPeriodEnd: business.planCancelAtPeriodEnd });
  const refusals = start ? await listPlanRefusalsSince(services.db, business.id, start, 10) : [];
  const decision = planDecision(business, used, now);
  return {
    ...usage,
    overage: status === "active" || status === "past_due" ? Math.max(0, used - MONTHLY_CALLS) : 0,
    estimateLabel:
      nextInvoiceAt && (estimate > 0 || !business.planCancelAtPeriodEnd)
        ? t("plan.estimate", { amount: money(estimate, locale), date: when(nextInvoiceAt) })
        : null,
    estimateDetail: t("plan.estimateDetail", {
      monthly: money(MONTHLY_PRICE_CENTS, locale),
      calls: MONTHLY_CALLS,
      extra: money(OVERAGE_PRICE_CENTS, locale),
    }),
    ending: business.planCancelAtPeriodEnd ? t("plan.ending", { date: when(nextInvoiceAt) }) : null,
    /** A sentence that needs the owner's attention: paused, limit reached, ended. */
    notice: planNotice(t, status, decision),
    upgradeIntro: t("plan.upgradeIntro", { monthly: money(MONTHLY_PRICE_CENTS, locale), extra: money(OVERAGE_PRICE_CENTS, locale) }),
    cancelIntro: t("plan.cancelIntro", { date: when(nextInvoiceAt) }),
    canUpgrade: status === "starter" && Boolean(business.stripeCustomerId),
    canCancel: (status === "starter" || status === "active") && !business.planCancelAtPeriodEnd && Boolean(business.stripeSubscriptionId),
    canKeep: (status === "starter" || status === "active") && business.planCancelAtPeriodEnd && Boolean(business.stripeSubscriptionId),
    refused: refusals.map((r) => ({
      id: r.id,
      when: formatWhen(r.createdAt, business.timeZone, locale),
      reason: t(`plan.refusal.${r.reason.slice(PLAN_REASON_PREFIX.length) as PlanRefusal}`),
    })),
  };
}

export type PlanView = Awaited<ReturnType<typeof loadPlanView>>;

function planNotice(t: TFunction, status: Business["planStatus"], decision: ReturnType<typeof planDecision>) {
  if (status === "past_due") return t("plan.notice.pastDue");
  if (!decision.ok && decision.reason !== "paused") return t(`plan.notice.${decision.reason}`);
  return null;
}

/** Only the notice, for every page of the owner's app (past due, or calls stopped by the plan). */
export async function planNoticeFor(services: AppServices, t: TFunction, business: Business, now = new Date()) {
  const since = planCallsCountedSince(business);
  return planNoticeGiven(t, business, since ? await countPlanCallsSince(services.db, business.id, since) : 0, now);
}

/** Since when the notice counts the plan's calls (the starter's period), or null when it counts none. */
export function planCallsCountedSince(business: Business) {
  const start = periodStartOf(business);
  return business.planStatus === "starter" && start ? start : null;
}

/** planNoticeFor with the calls since planCallsCountedSince already counted (the bookings page reads them with its set-up). */
export function planNoticeGiven(t: TFunction, business: Business, used: number, now = new Date()) {
  if (business.planStatus === "past_due") return t("plan.notice.pastDue");
  const decision = planDecision(business, used, now);
  return decision.ok || decision.reason === "paused" ? null : t(`plan.notice.${decision.reason}`);
}

/** The booking list's words for a booking the plan kept from being called. */
export function planRefusalText(t: TFunction, notCalledReason: string) {
  if (!notCalledReason.startsWith(PLAN_REASON_PREFIX)) return null;
  return t(`plan.refusal.${notCalledReason.slice(PLAN_REASON_PREFIX.length) as PlanRefusal}`);
}

export type PlanAction = "upgrade" | "cancel" | "keep";

/**
 * The owner's plan actions. Upgrade: the starter ends now and the $99 plan starts (billed now, on
 * the saved card). Cancel: the plan ends at the end of the period (the starter's 7 days, or the
 * month), with no further charge but the month's extra calls. Keep: takes a cancellation back.
 */
export async function changePlan(services: AppServices, businessId: number, action: PlanAction) {
  const business = await findBusinessById(services.db, businessId);
  // What the plan page does not offer is refused before Stripe is asked (a hand-made form, or a
  // server without payments): no customer to upgrade, no subscription to cancel or keep.
  if (!business || !services.billing) return { ok: false as const, error: "not_offered" as const };
  if (action === "upgrade" && business.planStatus !== "starter") return { ok: false as const, error: "not_starter" as const };
  if (action === "upgrade" ? !business.stripeCustomerId : !business.stripeSubscriptionId) {
    return { ok: false as const, error: "not_offered" as const };
  }
  const billing = requireBilling(services.billing);
  try {
    if (action === "upgrade") {
      const subscriptionId = await ensureBusinessSubscription(services, business);
      if (!subscriptionId) return { ok: false as const, error: "unavailable" as const };
      const state = await billing.endTrialNow(subscriptionId);
      const after = await syncBusinessPlan(services, subscriptionId, state);
      return after?.business.planStatus === "active"
        ? { ok: true as const, done: "upgraded" as const }
        : { ok: false as const, error: "declined" as const };
    }
    const state = await billing.setCancelAtPeriodEnd(business.stripeSubscriptionId!, action === "cancel");
    await syncBusinessPlan(services, business.stripeSubscriptionId!, state);
    return { ok: true as const, done: action === "cancel" ? ("cancelled" as const) : ("kept" as const) };
  } catch (error) {
    if (error instanceof PaymentsError) return { ok: false as const, error: "unavailable" as const };
    throw error;
  }
}
