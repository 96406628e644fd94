import { count, gte } from "drizzle-orm";
import type { Db } from "./db";
import { funnelEvents } from "./schema";

export type FunnelEvent = (typeof funnelEvents.$inferInsert)["name"];

/** Counts of each event name since `since` (all time when null). */
export async function countFunnelEvents(db: Db, since: Date | null = null) {
  const rows = await db
    .select({ name: funnelEvents.name, n: count() })
    .from(funnelEvents)
    .where(since ? gte(funnelEvents.createdAt, since) : undefined)
    .groupBy(funnelEvents.name);
  return new Map(rows.map((row) => [row.name, row.n]));
}

/**
 * Records a funnel event once per subject: a business's signup, verification and activation and a
 * subscriber's trial and first payment happen once, even when a webhook is delivered twice at the
 * same moment (the unique indexes `funnel_events_business_once` and `funnel_events_subscriber_once`
 * decide; the second insert does nothing).
 */
export async function recordFunnelEventOnce(db: Db, name: FunnelEvent, subject: { businessId?: number; subscriberId?: number }) {
  await db
    .insert(funnelEvents)
    .values({ name, businessId: subject.businessId ?? null, subscriberId: subject.subscriberId ?? null })
    .onConflictDoNothing();
}
