import type { Route } from "./+types/business.register";
import { serverRegistrationSchema } from "~/features/business/schemas.server";
import { registerWithVerification } from "~/features/business/signup/registration.server";
import { apiError, fieldErrors, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { rememberAddressOnly, rememberRegistration } from "~/features/business/signup/registration-cookie.server";

/**
 * POST /api/business/register: the spec's registration API. 201 "check your inbox" for a new
 * address and for one whose signup is unfinished alike (its owner is e-mailed the way on); 409
 * `login` for an active business. The spec's 409 `continue_payment` is not built: it handed
 * whoever typed an address that business's registration.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const parsed = serverRegistrationSchema(t).safeParse(await readJsonBody(request));
  if (!parsed.success) {
    return apiError(400, t("register.failedBody"), { fields: fieldErrors(parsed.error) });
  }
  const exceeded = await firstExceededRule(context, [{ name: "register:ip", subject: clientIp(context), limit: 10, windowSeconds: 3600 }]);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));

  const result = await registerWithVerification(context, t, getLocale(context), parsed.data, services.publicOrigin());
  if (result.kind === "login") return Response.json({ error: t("register.existsBody"), action: "login" }, { status: 409 });
  // A new address and one of an unfinished signup get the same answer: only the cookie differs
  // inside its seal (this browser's business, or only the address it typed).
  const email = result.kind === "registered" ? result.business.email : result.email;
  const cookie =
    result.kind === "registered" ? await rememberRegistration(services, result.business) : await rememberAddressOnly(services, email);
  return Response.json(
    { business: { name: parsed.data.name, status: "pending_verification" }, message: t("register.checkInboxBody", { email }) },
    { status: 201, headers: { "Set-Cookie": cookie } },
  );
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
