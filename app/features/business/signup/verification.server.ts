import { recordFunnelEventOnce } from "#models/funnel";
import { findBusinessById, markBusinessVerified } from "#models/businesses";
import { consumeEmailToken, findUsedEmailToken } from "#models/email-tokens";
import type { AppServices } from "~/platform/services.server";

/** Uses a verification link: the business, now payment-required, or null when the link is bad. */
export async function verifyBusinessEmail(services: AppServices, token: string, email: string) {
  if (!token || !email) return null;
  const row = await consumeEmailToken(services.db, "verify_email", token, email);
  if (!row?.businessId) return null;
  const business = await markBusinessVerified(services.db, row.businessId);
  if (business?.verifiedAt) await recordFunnelEventOnce(services.db, "business_verified", { businessId: business.id });
  return business;
}

/**
 * The business of a verification link that was already used (opened a second time, or by a mail
 * scanner first): its address is verified, so the page says so instead of "failed". Null for a
 * link that never worked.
 */
export async function alreadyVerifiedBusiness(services: AppServices, token: string, email: string) {
  if (!token || !email) return null;
  const row = await findUsedEmailToken(services.db, "verify_email", token, email);
  if (!row?.businessId) return null;
  const business = await findBusinessById(services.db, row.businessId);
  return business?.verifiedAt ? business : null;
}
