import { eq } from "drizzle-orm";
import type { Db } from "./db";
import { webhookEvents } from "./schema";

export async function wasWebhookHandled(db: Db, id: string) {
  const [row] = await db.select({ id: webhookEvents.id }).from(webhookEvents).where(eq(webhookEvents.id, id));
  return Boolean(row);
}

/** Recorded after the handler succeeded, so a failure leaves the event to Stripe's retry. */
export async function recordWebhookHandled(db: Db, event: { id: string; provider: string; type: string }) {
  await db.insert(webhookEvents).values(event).onConflictDoNothing();
}
