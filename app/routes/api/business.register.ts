import type { Route } from "./+types/business.register";
import { serverRegistrationSchema } from "~/features/business/schemas.server";
import { registerWithVerification } from "~/features/business/signup/registration.server";
import { apiError, fieldErrors, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { rememberRegistration } from "~/features/business/signup/registration-cookie.server";

/** POST /api/business/register: the spec's registration API, with its 409 cases. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const parsed = serverRegistrationSchema(t).safeParse(await readJsonBody(request));
  if (!parsed.success) {
    return apiError(400, t("register.failedBody"), { fields: fieldErrors(parsed.error) });
  }
  const exceeded = await firstExceededRule(context, [{ name: "register:ip", subject: clientIp(context), limit: 10, windowSeconds: 3600 }]);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));

  const result = await registerWithVerification(services, t, getLocale(context), parsed.data, services.publicOrigin());
  const headers = { "Set-Cookie": await rememberRegistration(services, result.business.id) };
  const business = { id: result.business.id, name: result.business.name, status: result.business.status };
  switch (result.kind) {
    case "login":
      return Response.json({ error: t("register.existsBody"), action: "login" }, { status: 409 });
    case "continue_payment":
      return Response.json({ error: t("register.continueBody"), action: "continue_payment", business }, { status: 409, headers });
    case "verification_resent":
      return Response.json(
        { error: t("register.resentBody", { email: result.business.email }), action: "continue_payment", business },
        { status: 409, headers },
      );
    case "registered":
      return Response.json({ business, message: t("register.checkInboxBody", { email: result.business.email }) }, { status: 201, headers });
  }
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
