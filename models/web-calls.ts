import { and, eq, lt, sql } from "drizzle-orm";
import type { Db } from "./db";
import { webCalls } from "./schema";

export type WebCall = typeof webCalls.$inferSelect;
export type WebCallMessage = WebCall["messages"][number];

export async function createWebCall(db: Db, input: { customerName: string; phone: string }) {
  const [row] = await db.insert(webCalls).values(input).returning();
  return row!;
}

export async function findWebCall(db: Db, id: number) {
  const [row] = await db.select().from(webCalls).where(eq(webCalls.id, id));
  return row ?? null;
}

/** Appends messages to an active conversation; null when it has ended. */
export async function appendWebCallMessages(db: Db, id: number, messages: WebCallMessage[], flag = false) {
  const [row] = await db
    .update(webCalls)
    .set({
      messages: sql`${webCalls.messages} || ${JSON.stringify(messages)}::jsonb`,
      ...(flag ? { flaggedForReview: true } : {}),
    })
    .where(and(eq(webCalls.id, id), eq(webCalls.status, "active")))
    .returning();
  return row ?? null;
}

export async function endWebCall(db: Db, id: number) {
  const [row] = await db
    .update(webCalls)
    .set({ status: "ended", endedAt: new Date() })
    .where(and(eq(webCalls.id, id), eq(webCalls.status, "active")))
    .returning();
  return row ?? null;
}

/** Browser conversations hold a phone number: gone 24 hours after they started, as the privacy page promises. */
export async function deleteWebCallsBefore(db: Db, before: Date) {
  const deleted = await db.delete(webCalls).where(lt(webCalls.createdAt, before)).returning({ id: webCalls.id });
  return deleted.length;
}
