import { recordFunnelEventOnce } from "#models/funnel";
import type { TFunction } from "i18next";
import { registerBusiness, type Business } from "#models/businesses";
import type { Registration } from "~/features/business/schemas.server";
import { sendVerificationEmail } from "~/features/business/signup/onboarding.server";
import type { AppServices } from "~/platform/services.server";

export type RegistrationResult =
  | { kind: "registered"; business: Business }
  | { kind: "continue_payment"; business: Business }
  | { kind: "verification_resent"; business: Business }
  | { kind: "login"; business: Business };

/**
 * Registers a business and e-mails its verification link. An e-mail already registered gives
 * the spec's 409 cases: an active business → log in; a verified, unpaid one → continue to
 * payment; an unverified one → a fresh verification link (payment needs a verified address).
 */
export async function registerWithVerification(
  services: AppServices,
  t: TFunction,
  locale: string,
  input: Registration,
  origin: string,
): Promise<RegistrationResult> {
  const result = await registerBusiness(services.db, { ...input, defaultLanguage: locale });
  if ("created" in result) {
    await recordFunnelEventOnce(services.db, "business_signup", { businessId: result.created.id });
    await sendVerificationEmail(services, t, locale, result.created, origin);
    return { kind: "registered", business: result.created };
  }
  const business = result.existing;
  if (business.status === "active" || business.status === "suspended") return { kind: "login", business };
  if (business.status === "payment_required") return { kind: "continue_payment", business };
  await sendVerificationEmail(services, t, locale, business, origin);
  return { kind: "verification_resent", business };
}
