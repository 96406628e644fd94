import type { Route } from "./+types/create-payment-intent";
import { empathyDetailsSchema } from "~/features/empathy/schemas";
import { apiError, fieldErrors, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { clientIp } from "~/platform/security/rate-limit.server";
import {
  checkEmpathyDetails,
  createEmpathyPaymentIntent,
  empathyStatusPath,
  exceededPaymentLimit,
} from "~/features/empathy/empathy.server";
import { getT } from "~/platform/i18n.server";
import { PaymentsError } from "~/providers/payments.server";

const accepted = (value: unknown) => (value === true || value === "on" || value === "true" ? "on" : undefined);

/**
 * POST /api/create-payment-intent { amount: 5, phone, language, voice?, email?, adult, recordingAccepted }:
 * the $5 PaymentIntent of an empathy call. The details are checked and kept here, on the server,
 * tied to the PaymentIntent; start-call later believes only what was stored.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  if (body.amount !== 5 && body.amount !== "5")
    return apiError(400, t("empathy.amountInvalid"), { fields: { amount: [t("empathy.amountInvalid")] } });
  const parsed = empathyDetailsSchema(t, services.env.RECORD_CALLS).safeParse({
    phone: body.phone,
    language: body.language,
    voice: body.voice ?? "female",
    email: body.email ?? "",
    adult: accepted(body.adult),
    recording: accepted(body.recordingAccepted),
  });
  if (!parsed.success) {
    const fields = fieldErrors(parsed.error);
    return apiError(400, Object.values(fields)[0]![0]!, { fields });
  }
  const checked = await checkEmpathyDetails(services, t, parsed.data, clientIp(context));
  if (!checked.ok) return apiError(400, checked.message, { fields: { [checked.field]: [checked.message] } });
  if (!services.payments) return apiError(503, t("payment.notConfigured"));
  if (!services.telephony.configured) return apiError(503, t("empathy.callsNotConfigured"));
  const exceeded = await exceededPaymentLimit(context, checked.details.phone);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  let created;
  try {
    created = await createEmpathyPaymentIntent(services, checked.details);
  } catch (error) {
    if (error instanceof PaymentsError) return apiError(502, t("payment.providerError"));
    throw error;
  }
  return Response.json({
    clientSecret: created.clientSecret,
    paymentIntentId: created.paymentIntentId,
    statusUrl: empathyStatusPath(services, created.request.id),
  });
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
