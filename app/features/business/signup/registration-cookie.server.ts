import { findBusinessById, type Business } from "#models/businesses";
import { seal, unseal } from "~/platform/security/secret.server";
import type { AppServices } from "~/platform/services.server";

const SEAL_PURPOSE = "registration-cookie";
/** A business id written to a fixed width (PostgreSQL's integer has 10 digits at most); 0 is none. */
const ID_WIDTH = 10;

/**
 * What the registration cookie holds: the business this browser registered or proved by its
 * e-mailed link, or only the address it typed when that address was already registered. Sealed
 * and of one length for both, so neither the page, the answer nor the cookie's bytes tell a
 * stranger whether an address was new.
 */
interface Held {
  businessId: number | null;
  email: string;
}

async function held(services: AppServices, request: Request): Promise<Held | null> {
  const value: unknown = await services.cookies.registration.parse(request.headers.get("Cookie"));
  const opened = typeof value === "string" ? unseal(services.signingSecret, SEAL_PURPOSE, value) : null;
  if (!opened) return null;
  const parsed = JSON.parse(opened) as { b: string; e: string };
  const businessId = Number(parsed.b);
  return { businessId: businessId > 0 ? businessId : null, email: parsed.e };
}

function serialize(services: AppServices, value: Held) {
  const b = String(value.businessId ?? 0).padStart(ID_WIDTH, "0");
  return services.cookies.registration.serialize(seal(services.signingSecret, SEAL_PURPOSE, JSON.stringify({ b, e: value.email })));
}

/** The business this browser is registering (set at its registration, or by the e-mailed link). */
export async function registrationBusiness(services: AppServices, request: Request) {
  const value = await held(services, request);
  return value?.businessId ? findBusinessById(services.db, value.businessId) : null;
}

/**
 * The address this browser registered when it was already registered: the browser holds no
 * business, only the page that says to check that inbox, as after a new registration.
 */
export async function registrationAddress(services: AppServices, request: Request) {
  const value = await held(services, request);
  return value && !value.businessId ? value.email : null;
}

/** This browser may continue the registration of `business`: it started it, or opened the e-mailed link. */
export function rememberRegistration(services: AppServices, business: Pick<Business, "id" | "email">) {
  return serialize(services, { businessId: business.id, email: business.email });
}

/** This browser typed an address already registered: it is told to check the inbox, and holds nothing else. */
export function rememberAddressOnly(services: AppServices, email: string) {
  return serialize(services, { businessId: null, email });
}

export function forgetRegistration(services: AppServices) {
  return services.cookies.registration.serialize("", { maxAge: 0 });
}
