import { periodUsage, type Subscriber, type SubscriptionStatus } from "#models/subscribers";
import type { Db } from "~/platform/db.server";
import { MONTHLY_CALLS, TRIAL_CALLS } from "./plans";
import { nextCallAt, type ScheduleType } from "./schedule";

// Which calls a subscriber may have: scheduled calls in a paid or trial status, and requested
// calls within the period's allowance.

export const callsAllowedIn = (status: SubscriptionStatus) => status === "trialing" || status === "active";

function scheduleOf(subscriber: Pick<Subscriber, "callScheduleType" | "preferredCallTime" | "timeZone" | "scheduleAnchor">) {
  return {
    type: subscriber.callScheduleType as ScheduleType,
    time: subscriber.preferredCallTime,
    timeZone: subscriber.timeZone,
    anchor: subscriber.scheduleAnchor,
  };
}

/** The next scheduled call after `after`, or none when calls are not allowed now. */
export function nextScheduledCall(subscriber: Subscriber, status: SubscriptionStatus, after = new Date()) {
  return callsAllowedIn(status) ? nextCallAt(scheduleOf(subscriber), after) : null;
}

export interface Allowance {
  plan: "trial" | "monthly" | null;
  limit: number;
  used: number;
  pending: number;
  remaining: number;
  canMakeCall: boolean;
  /** Why no call can be asked for now (a translation key under subscribe.limit). */
  reason: "trial_used" | "month_used" | "past_due" | "ended" | "incomplete" | "pending" | null;
}

/** What the subscriber may still call in this period: delivered calls count, calls on their way hold a place. */
export async function allowanceOf(db: Db, subscriber: Subscriber): Promise<Allowance> {
  const plan =
    subscriber.status === "trialing" ? "trial" : subscriber.status === "active" || subscriber.status === "past_due" ? "monthly" : null;
  const limit = plan === "trial" ? TRIAL_CALLS : plan === "monthly" ? MONTHLY_CALLS : 0;
  const usage =
    subscriber.periodStart && plan ? await periodUsage(db, subscriber.id, subscriber.periodStart, plan) : { used: 0, pending: 0 };
  const remaining = Math.max(0, limit - usage.used);
  let reason: Allowance["reason"] = null;
  if (subscriber.status === "past_due") reason = "past_due";
  else if (subscriber.status === "canceled") reason = "ended";
  else if (!plan) reason = "incomplete";
  else if (usage.used >= limit) reason = plan === "trial" ? "trial_used" : "month_used";
  else if (usage.used + usage.pending >= limit || usage.pending > 0) reason = "pending";
  return { plan, limit, used: usage.used, pending: usage.pending, remaining, canMakeCall: reason === null, reason };
}
