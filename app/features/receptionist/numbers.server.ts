import { and, eq } from "drizzle-orm";
import { findBusinessById, type Business } from "#models/businesses";
import type { Db } from "#models/db";
import { getWeeklySchedule, listDaysOff } from "#models/opening-hours";
import { businessNumbers } from "#models/schema";
import { utcToZoned } from "~/lib/zoned-time";

export type BusinessNumber = typeof businessNumbers.$inferSelect;

/**
 * The business whose own number was called (an inbound call's `To`, E.164 as Twilio gives it), with
 * that number's receptionist settings; null for a number no business connected. The owner's
 * settings (models/business-numbers.ts) write these rows; the receptionist only reads them.
 */
export async function businessForCalledNumber(
  db: Db,
  calledNumber: string,
): Promise<{ number: BusinessNumber; business: Business } | null> {
  if (!/^\+[1-9]\d{6,14}$/.test(calledNumber)) return null;
  const [number] = await db.select().from(businessNumbers).where(eq(businessNumbers.phoneNumber, calledNumber));
  if (!number) return null;
  const business = await findBusinessById(db, number.businessId);
  return business ? { number, business } : null;
}

/** The number settings of one business, if it connected one. */
export async function numberOfBusiness(db: Db, businessId: number) {
  const [number] = await db
    .select()
    .from(businessNumbers)
    .where(and(eq(businessNumbers.businessId, businessId)));
  return number ?? null;
}

/** Whether the business is open at `now` by its weekly hours and days off, on its own clock. */
export async function isOpenAt(db: Db, business: Pick<Business, "id" | "timeZone">, now = Date.now()) {
  const local = utcToZoned(now, business.timeZone);
  const [schedule, off] = await Promise.all([getWeeklySchedule(db, business.id), listDaysOff(db, business.id, local.date)]);
  if (off.some((day) => day.date === local.date)) return false;
  return schedule[local.weekday].some((interval) => interval.startMinute <= local.minuteOfDay && local.minuteOfDay < interval.endMinute);
}
