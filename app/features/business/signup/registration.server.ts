import { recordFunnelEventOnce } from "#models/funnel";
import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import { findBusinessByEmail, registerBusiness, type Business } from "#models/businesses";
import type { Registration } from "~/features/business/schemas.server";
import { sendContinueRegistrationEmail, sendVerificationEmail } from "~/features/business/signup/onboarding.server";
import { servicesContext } from "~/platform/context";
import { firstExceededRule } from "~/platform/security/rate-limit.server";

export type RegistrationResult =
  /** A new business: this browser started its signup and continues it. */
  | { kind: "registered"; business: Business }
  /**
   * The address belongs to an unfinished signup: its owner was e-mailed the way on, and this
   * browser is answered as for a new registration, with nothing of the business.
   */
  | { kind: "emailed"; email: string }
  /** An active (or suspended) business: the spec's 409, log in instead. */
  | { kind: "login" };

/**
 * Registers a business and e-mails its verification link. Typing an address proves nothing, so
 * an address already registered to an unfinished signup gives this browser no business: the
 * address's owner is e-mailed the link that continues it (`emailRegistrationLink`), and the
 * answer is the one a new registration gets. An active business answers "log in".
 */
export async function registerWithVerification(
  context: Readonly<RouterContextProvider>,
  t: TFunction,
  locale: string,
  input: Registration,
  origin: string,
): Promise<RegistrationResult> {
  const services = context.get(servicesContext);
  const result = await registerBusiness(services.db, { ...input, defaultLanguage: locale });
  if ("created" in result) {
    await recordFunnelEventOnce(services.db, "business_signup", { businessId: result.created.id });
    await sendVerificationEmail(services, t, locale, result.created, origin);
    return { kind: "registered", business: result.created };
  }
  const business = result.existing;
  if (business.status === "active" || business.status === "suspended") return { kind: "login" };
  await emailRegistrationLink(context, t, locale, business, origin);
  return { kind: "emailed", email: business.email };
}

/**
 * The owner of the unfinished signup at `email` gets its link again (a browser that holds only
 * the address asked to resend it); nothing for an address no longer unfinished. Returns the
 * limit when it was reached, as the resend of a new registration does.
 */
export async function resendRegistrationLink(
  context: Readonly<RouterContextProvider>,
  t: TFunction,
  locale: string,
  email: string,
  origin: string,
) {
  const business = await findBusinessByEmail(context.get(servicesContext).db, email);
  if (!business || (business.status !== "pending_verification" && business.status !== "payment_required")) return null;
  return emailRegistrationLink(context, t, locale, business, origin);
}

/**
 * E-mails the owner of an unfinished signup the link that continues it: the verification link
 * while unverified, the "continue your registration" link once verified. At most three an hour
 * per business, whoever asks, so nobody fills an inbox: past that nothing is sent, and the
 * exceeded limit is returned (a registration answers the same either way).
 */
export async function emailRegistrationLink(
  context: Readonly<RouterContextProvider>,
  t: TFunction,
  locale: string,
  business: Business,
  origin: string,
) {
  const exceeded = await firstExceededRule(context, [
    { name: "verify-resend:business", subject: String(business.id), limit: 3, windowSeconds: 3600 },
  ]);
  if (exceeded) return exceeded;
  const services = context.get(servicesContext);
  if (business.status === "pending_verification") await sendVerificationEmail(services, t, locale, business, origin);
  else await sendContinueRegistrationEmail(services, t, locale, business, origin);
  return null;
}
