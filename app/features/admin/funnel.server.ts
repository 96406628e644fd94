import { countFunnelEvents, type FunnelEvent } from "#models/funnel";
import type { AppServices } from "~/platform/services.server";

/** The three funnels, each a list of steps in order. */
export const FUNNELS = {
  empathy: ["proceed_to_payment", "payment_success", "call_initiated", "call_delivered"],
  business: ["business_signup", "business_verified", "business_activated"],
  subscription: ["subscription_trial", "subscription_paid"],
} as const satisfies Record<string, readonly FunnelEvent[]>;

/**
 * Each step's count and its share of the step before (null for the first step, or when the step
 * before has none). Counts come from the first-party events table only.
 */
export async function loadFunnels(services: AppServices, since: Date | null) {
  const counts = await countFunnelEvents(services.db, since);
  return Object.fromEntries(
    Object.entries(FUNNELS).map(([funnel, steps]) => [
      funnel,
      steps.map((name, index) => {
        const count = counts.get(name) ?? 0;
        const before = index > 0 ? (counts.get(steps[index - 1]!) ?? 0) : null;
        return { name, count, conversion: before ? count / before : null };
      }),
    ]),
  ) as Record<keyof typeof FUNNELS, { name: FunnelEvent; count: number; conversion: number | null }[]>;
}
