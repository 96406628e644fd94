import { and, asc, eq, gte } from "drizzle-orm";
import type { Db } from "./db";
import { daysOff, openingHours } from "./schema";

/** Minutes after local midnight, 0..1440, start < end. */
export interface OpeningInterval {
  startMinute: number;
  endMinute: number;
}
/** Opening intervals per weekday; 0 = Sunday (JS getDay()). */
export type WeeklySchedule = Record<0 | 1 | 2 | 3 | 4 | 5 | 6, OpeningInterval[]>;

export async function getWeeklySchedule(db: Db, businessId: number): Promise<WeeklySchedule> {
  const rows = await db
    .select()
    .from(openingHours)
    .where(eq(openingHours.businessId, businessId))
    .orderBy(asc(openingHours.weekday), asc(openingHours.startMinute));
  const schedule: WeeklySchedule = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
  for (const row of rows) {
    schedule[row.weekday as keyof WeeklySchedule].push({ startMinute: row.startMinute, endMinute: row.endMinute });
  }
  return schedule;
}

/** Replaces the whole week in one transaction, so a half-saved week is never visible. */
export async function replaceWeeklySchedule(db: Db, businessId: number, schedule: WeeklySchedule) {
  await db.transaction(async (tx) => {
    await tx.delete(openingHours).where(eq(openingHours.businessId, businessId));
    const rows = Object.entries(schedule).flatMap(([weekday, intervals]) =>
      intervals.map((interval) => ({ businessId, weekday: Number(weekday), ...interval })),
    );
    if (rows.length > 0) await tx.insert(openingHours).values(rows);
  });
}

export async function listDaysOff(db: Db, businessId: number, fromDate?: string) {
  return db
    .select()
    .from(daysOff)
    .where(fromDate ? and(eq(daysOff.businessId, businessId), gte(daysOff.date, fromDate)) : eq(daysOff.businessId, businessId))
    .orderBy(asc(daysOff.date));
}

export async function addDayOff(db: Db, businessId: number, date: string, note: string | null) {
  await db
    .insert(daysOff)
    .values({ businessId, date, note })
    .onConflictDoUpdate({
      target: [daysOff.businessId, daysOff.date],
      set: { note },
    });
}

export async function removeDayOff(db: Db, businessId: number, dayOffId: number) {
  await db.delete(daysOff).where(and(eq(daysOff.businessId, businessId), eq(daysOff.id, dayOffId)));
}
