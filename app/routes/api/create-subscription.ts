import type { Route } from "./+types/create-subscription";
import { starterPaymentIntent } from "~/features/business/signup/onboarding.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { registrationBusiness } from "~/features/business/signup/registration-cookie.server";
import { parseDbId } from "~/lib/ids";

/**
 * POST /api/create-subscription { businessId }: the $1 starter PaymentIntent. Only the browser
 * that registered and verified the business (its signed registration cookie) may ask.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const business = await registrationBusiness(services, request);
  if (!business || business.id !== parseDbId(body.businessId)) return apiError(403, t("register.notYours"));
  if (business.status === "pending_verification") return apiError(409, t("register.verifyFirst"));
  if (business.status !== "payment_required") return apiError(409, t("register.alreadyActive"));
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  const intent = await starterPaymentIntent(services, business);
  if (!intent.clientSecret) return apiError(502, t("payment.setupFailed"));
  return Response.json({ clientSecret: intent.clientSecret, paymentIntentId: intent.id, status: intent.status });
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
