import { and, count, eq, gte } from "drizzle-orm";
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
 * subscriber's trial and first payment happen once, even when a webhook is delivered twice.
 */
export async function recordFunnelEventOnce(db: Db, name: FunnelEvent, subject: { businessId?: number; subscriberId?: number }) {
  const match =
    subject.businessId !== undefined
      ? eq(funnelEvents.businessId, subject.businessId)
      : eq(funnelEvents.subscriberId, subject.subscriberId!);
  const [seen] = await db
    .select({ id: funnelEvents.id })
    .from(funnelEvents)
    .where(and(eq(funnelEvents.name, name), match))
    .limit(1);
  if (seen) return;
  await db.insert(funnelEvents).values({ name, businessId: subject.businessId ?? null, subscriberId: subject.subscriberId ?? null });
}
