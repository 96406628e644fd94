import { findBusinessById } from "#models/businesses";
import type { AppServices } from "~/platform/services.server";

/** The business this browser is registering (set at registration, verification or continue). */
export async function registrationBusiness(services: AppServices, request: Request) {
  const value = await services.cookies.registration.parse(request.headers.get("Cookie"));
  const businessId = typeof value?.businessId === "number" ? value.businessId : null;
  return businessId ? findBusinessById(services.db, businessId) : null;
}

export function rememberRegistration(services: AppServices, businessId: number) {
  return services.cookies.registration.serialize({ businessId });
}

export function forgetRegistration(services: AppServices) {
  return services.cookies.registration.serialize("", { maxAge: 0 });
}
