import { and, asc, desc, eq, gt, inArray, isNull, lte, or, sql } from "drizzle-orm";
import type { Db } from "./db";
import { bookings, businesses, businessNumbers, textMessages, textOptOuts } from "./schema";

export type TextMessage = typeof textMessages.$inferSelect;

/** The opt-out scope of a business's texts, or of the platform's own (`null`). */
export const textScope = (businessId: number | null) => (businessId === null ? "platform" : `business:${businessId}`);

/** Whether `phone` asked (STOP) for no more texts from this business, or from the platform. */
export async function isTextOptedOut(db: Db, businessId: number | null, phone: string) {
  const [row] = await db
    .select({ id: textOptOuts.id })
    .from(textOptOuts)
    .where(and(eq(textOptOuts.scope, textScope(businessId)), eq(textOptOuts.phone, phone)))
    .limit(1);
  return Boolean(row);
}

export async function optOutOfTexts(db: Db, businessId: number | null, phone: string) {
  await db
    .insert(textOptOuts)
    .values({ scope: textScope(businessId), businessId, phone })
    .onConflictDoNothing();
}

export async function optInToTexts(db: Db, businessId: number | null, phone: string) {
  await db.delete(textOptOuts).where(and(eq(textOptOuts.scope, textScope(businessId)), eq(textOptOuts.phone, phone)));
}

/**
 * The text's row for `key`, made now when there is none: the send job's first step, so a retry of
 * the job finds the row (and the SID of a text already sent) instead of sending again.
 */
export async function claimText(
  db: Db,
  values: { key: string; businessId: number | null; purpose: string; toPhone: string },
): Promise<TextMessage> {
  await db.insert(textMessages).values(values).onConflictDoNothing({ target: textMessages.key });
  const [row] = await db.select().from(textMessages).where(eq(textMessages.key, values.key));
  return row!;
}

/** Marks a pending text as going out now; false when another run of its job did so first. */
export async function markTextSending(db: Db, id: number, fromPhone: string) {
  const rows = await db
    .update(textMessages)
    .set({ status: "sending", fromPhone, updatedAt: sql`now()` })
    .where(and(eq(textMessages.id, id), eq(textMessages.status, "pending"), isNull(textMessages.providerSid)))
    .returning({ id: textMessages.id });
  return rows.length > 0;
}

export async function updateText(
  db: Db,
  id: number,
  fields: Partial<Pick<TextMessage, "status" | "providerSid" | "errorCode" | "refusal" | "fromPhone">>,
) {
  await db
    .update(textMessages)
    .set({ ...fields, updatedAt: sql`now()` })
    .where(eq(textMessages.id, id));
}

export async function findTextById(db: Db, id: number) {
  const [row] = await db.select().from(textMessages).where(eq(textMessages.id, id));
  return row ?? null;
}

/** Twilio's later statuses never go back to an earlier one (a late "sent" after "delivered"). */
const RANK: Record<string, number> = { pending: 0, sending: 1, queued: 1, accepted: 1, sent: 2, delivered: 3, undelivered: 3, failed: 3 };

/** A status callback's news for the text with that SID; an older status than the stored one changes nothing. */
export async function applyTextStatus(db: Db, id: number, providerSid: string, status: string, errorCode: number | null) {
  // The callback's URL names the row (and Twilio signed it); it may come before the send's answer was stored.
  const [row] = await db
    .select()
    .from(textMessages)
    .where(and(eq(textMessages.id, id), or(eq(textMessages.providerSid, providerSid), isNull(textMessages.providerSid))));
  if (!row || !(status in RANK) || row.status === "pending") return null;
  if ((RANK[status] ?? 0) < (RANK[row.status] ?? 0)) return row;
  await updateText(db, id, { status, errorCode, providerSid });
  return { ...row, status, errorCode, providerSid };
}

/** Twilio accepted the text: its SID, and its status unless a status callback already brought a later one. */
export async function recordTextSent(db: Db, id: number, providerSid: string, status: string) {
  await db
    .update(textMessages)
    .set({
      providerSid,
      status: sql`case when ${textMessages.status} = 'sending' then ${status} else ${textMessages.status} end`,
      updatedAt: sql`now()`,
    })
    .where(eq(textMessages.id, id));
}

/** The window of the reminder text: the e-mail reminder's (a day before, late only while an hour is left). */
const textRemindable = (now: Date) =>
  and(
    inArray(bookings.status, ["pending", "confirmed"]),
    gt(bookings.startsAt, new Date(now.getTime() + 60 * 60_000)),
    lte(bookings.startsAt, new Date(now.getTime() + 24 * 3_600_000)),
    sql`${bookings.timeSetAt} <= ${bookings.startsAt} - make_interval(hours => 24)`,
    sql`${bookings.reminderTextFor} is distinct from ${bookings.startsAt}`,
  )!;

/** Bookings of businesses that text their customers whose reminder text is due at `now` and not yet queued for their time. */
export async function bookingsDueTextReminder(db: Db, now: Date, limit: number) {
  return db
    .select({ id: bookings.id })
    .from(bookings)
    .innerJoin(businesses, eq(businesses.id, bookings.businessId))
    .where(and(textRemindable(now), eq(businesses.textsEnabled, true)))
    .orderBy(asc(bookings.startsAt))
    .limit(limit);
}

/** Records that the booking's reminder text is queued for its current time: the booking, or null when it was already. */
export async function claimTextReminder(db: Db, bookingId: number, now: Date) {
  const [row] = await db
    .update(bookings)
    .set({ reminderTextFor: sql`${bookings.startsAt}` })
    .where(and(eq(bookings.id, bookingId), textRemindable(now)))
    .returning();
  return row ?? null;
}

/** The language of the latest booking made with this phone number (what a HELP reply is written in), or null. */
export async function languageOfPhone(db: Db, phone: string) {
  const [row] = await db
    .select({ language: bookings.language })
    .from(bookings)
    .where(eq(bookings.customerPhone, phone))
    .orderBy(desc(bookings.createdAt))
    .limit(1);
  return row?.language ?? null;
}

/**
 * The business whose own number `phone` is (the To of an inbound text), or null: the number it
 * connected (business_numbers), else the phone on its profile.
 */
export async function businessOfNumber(db: Db, phone: string) {
  const [connected] = await db
    .select({ id: businesses.id, name: businesses.name })
    .from(businessNumbers)
    .innerJoin(businesses, eq(businesses.id, businessNumbers.businessId))
    .where(eq(businessNumbers.phoneNumber, phone));
  if (connected) return connected;
  const [row] = await db.select({ id: businesses.id, name: businesses.name }).from(businesses).where(eq(businesses.phone, phone)).limit(1);
  return row ?? null;
}
