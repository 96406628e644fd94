import type { Route } from "./+types/activate-business";
import { activateWithPayment } from "~/features/business/signup/onboarding.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { registrationBusiness } from "~/features/business/signup/registration-cookie.server";
import { parseDbId } from "~/lib/ids";

/** POST /api/activate-business { businessId, paymentIntentId }: checked with Stripe, idempotent. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const businessId = parseDbId(body.businessId);
  const paymentIntentId = String(body.paymentIntentId ?? "");
  const business = await registrationBusiness(services, request);
  if (!business || businessId === null || business.id !== businessId) return apiError(403, t("register.notYours"));
  if (!/^pi_[A-Za-z0-9]+$/.test(paymentIntentId)) return apiError(400, t("activation.badPayment"));
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  const result = await activateWithPayment(services, businessId, paymentIntentId, services.publicOrigin());
  if (!result.ok) {
    const message =
      result.reason === "not_succeeded" ? t("payment.processing", { status: result.status ?? "unknown" }) : t("activation.badPayment");
    return apiError(result.reason === "not_succeeded" ? 402 : 400, `${t("activation.failedTitle")}: ${message}`, { reason: result.reason });
  }
  return Response.json({ loginEmail: result.business.email, bookingLink: result.business.bookingLink });
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
