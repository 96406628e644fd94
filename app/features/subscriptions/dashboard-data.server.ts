import { recentSupportCalls, type Subscriber } from "#models/subscribers";
import { numberCapFull } from "~/calls/dialling-policy.server";
import type { AppServices } from "~/platform/services.server";
import { allowanceOf } from "./allowance.server";

// What the dashboard shows.

/** The spec's status names: "trial", "active", "past_due", "cancelled", "incomplete". */
export function publicStatus(subscriber: Subscriber) {
  return subscriber.status === "trialing" ? "trial" : subscriber.status === "canceled" ? "cancelled" : subscriber.status;
}

/** GET /api/user/{userId}/dashboard, and the dashboard page: the spec's shape. */
export async function dashboardData(services: AppServices, subscriber: Subscriber) {
  const allowance = await allowanceOf(services.db, subscriber);
  const calls = await recentSupportCalls(services.db, subscriber.id);
  // A request the number's daily cap would refuse is not offered: the reason is shown instead.
  const limitReason = !services.telephony.configured
    ? ("not_configured" as const)
    : allowance.reason === null && (await numberCapFull(services, subscriber.phone))
      ? ("number_cap" as const)
      : allowance.reason;
  return {
    user: {
      id: subscriber.id,
      fullName: subscriber.fullName,
      phone: subscriber.phone,
      email: subscriber.email,
      subscriptionStatus: publicStatus(subscriber),
      callFrequency: subscriber.callFrequency,
      callsUsedInTrial: allowance.plan === "trial" ? allowance.used : 0,
      callsUsedThisMonth: allowance.plan === "monthly" ? allowance.used : 0,
      trialEndsAt: subscriber.status === "trialing" ? (subscriber.trialEndsAt?.toISOString() ?? null) : null,
      billingDate: subscriber.status !== "trialing" && subscriber.periodEnd ? subscriber.periodEnd.toISOString() : null,
      cancelAtPeriodEnd: subscriber.cancelAtPeriodEnd,
      nextCallAt: subscriber.nextCallAt?.toISOString() ?? null,
      timeZone: subscriber.timeZone,
      preferredLanguage: subscriber.preferredLanguage,
    },
    recentCalls: calls.map((call) => ({
      id: call.id,
      feeling: call.feeling,
      urgency: call.urgency,
      status: call.status,
      source: call.source,
      summary: call.summary,
      createdAt: call.createdAt.toISOString(),
    })),
    canMakeCall: allowance.canMakeCall && limitReason === null,
    callsRemaining: allowance.remaining,
    callLimit: allowance.limit,
    callsUsed: allowance.used,
    limitReason,
  };
}
export type DashboardData = Awaited<ReturnType<typeof dashboardData>>;
