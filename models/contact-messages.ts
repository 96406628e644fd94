import type { Db } from "./db";
import { contactMessages } from "./schema";

export type NewContactMessage = typeof contactMessages.$inferInsert;

export async function saveContactMessage(db: Db, message: NewContactMessage) {
  const [row] = await db.insert(contactMessages).values(message).returning({ id: contactMessages.id });
  return row!;
}
