import { and, asc, eq } from "drizzle-orm";
import type { Db } from "./db";
import { businessServices, businesses } from "./schema";

export type BusinessService = typeof businessServices.$inferSelect;
export type ServiceFields = Pick<BusinessService, "name" | "description" | "priceCents" | "currency" | "durationMinutes">;

export async function listServices(db: Db, businessId: number, options: { activeOnly?: boolean } = {}) {
  return db
    .select()
    .from(businessServices)
    .where(
      options.activeOnly
        ? and(eq(businessServices.businessId, businessId), eq(businessServices.active, true))
        : eq(businessServices.businessId, businessId),
    )
    .orderBy(asc(businessServices.id));
}

export async function findService(db: Db, businessId: number, serviceId: number) {
  const [row] = await db
    .select()
    .from(businessServices)
    .where(and(eq(businessServices.businessId, businessId), eq(businessServices.id, serviceId)));
  return row ?? null;
}

/**
 * The business a booking link names and its service `serviceId` (null when it has none by that
 * id), in one query: a booking request needs both. Null when no business has the link.
 */
export async function findBusinessWithService(db: Db, bookingLink: string, serviceId: number) {
  const [row] = await db
    .select({ business: businesses, service: businessServices })
    .from(businesses)
    .leftJoin(businessServices, and(eq(businessServices.businessId, businesses.id), eq(businessServices.id, serviceId)))
    .where(eq(businesses.bookingLink, bookingLink.toLowerCase()));
  return row ?? null;
}

export async function addService(db: Db, businessId: number, fields: ServiceFields) {
  const [row] = await db
    .insert(businessServices)
    .values({ ...fields, businessId })
    .returning();
  return row!;
}

/** Scoped by business: an owner can only ever change their own services. */
export async function updateService(db: Db, businessId: number, serviceId: number, fields: Partial<ServiceFields & { active: boolean }>) {
  const [row] = await db
    .update(businessServices)
    .set(fields)
    .where(and(eq(businessServices.businessId, businessId), eq(businessServices.id, serviceId)))
    .returning();
  return row ?? null;
}
