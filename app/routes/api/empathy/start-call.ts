import type { Route } from "./+types/start-call";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { empathyStatusPath, startEmpathyCall } from "~/features/empathy/empathy.server";
import { getT } from "~/platform/i18n.server";
import { PaymentsError } from "~/providers/payments.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";

/**
 * POST /api/empathy/start-call { phone, language, paymentIntentId }: places the paid call. The
 * PaymentIntent is fetched from Stripe and checked (succeeded, $5.00, usd, not used before); the
 * phone and language are the ones stored when the payment was created, not the ones sent here.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const paymentIntentId = typeof body.paymentIntentId === "string" ? body.paymentIntentId : "";
  if (!/^pi_[A-Za-z0-9_]{1,200}$/.test(paymentIntentId)) {
    return apiError(400, t("empathy.paymentIdInvalid"), { fields: { paymentIntentId: [t("empathy.paymentIdInvalid")] } });
  }
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  // The payment stays unused, so the call is placed once calls are configured (the webhook retries).
  if (!services.telephony.configured) return apiError(503, t("empathy.callsNotConfigured"));
  const exceeded = await firstExceededRule(context, [
    { name: "empathy-start:ip", subject: clientIp(context), limit: 60, windowSeconds: 600 },
  ]);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));

  let result;
  try {
    result = await startEmpathyCall(services, paymentIntentId, services.publicOrigin());
  } catch (error) {
    // The payment is safe: Stripe's webhook places the call once the provider answers again.
    if (error instanceof PaymentsError) return apiError(502, t("payment.providerCheckFailed"));
    throw error;
  }
  if (result.ok) {
    return Response.json({
      success: true,
      callId: result.callId,
      statusUrl: empathyStatusPath(services, result.request.id),
      title: t("empathy.initiatedTitle"),
      message: t("empathy.expectation"),
    });
  }
  switch (result.reason) {
    case "not_found":
      return apiError(404, t("empathy.paymentNotFound"));
    case "not_empathy":
      return apiError(400, t("empathy.paymentNotEmpathy"));
    case "wrong_amount":
    case "wrong_currency":
      return apiError(400, t("empathy.paymentWrongAmount"));
    case "not_succeeded":
      return apiError(402, t("payment.processing", { status: result.status ?? "unknown" }), {
        title: t("payment.processingTitle"),
        status: result.status,
      });
    case "already_used":
      return apiError(409, t("empathy.paymentUsed"), {
        code: "already_used",
        ...(result.request ? { statusUrl: empathyStatusPath(services, result.request.id) } : {}),
      });
  }
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
