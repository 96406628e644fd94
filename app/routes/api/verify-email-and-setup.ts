import type { Route } from "./+types/verify-email-and-setup";
import { verifyBusinessEmail } from "~/features/business/signup/verification.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { rememberRegistration } from "~/features/business/signup/registration-cookie.server";

/** POST /api/verify-email-and-setup { token, email }: uses the single-use link. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const body = await readJsonBody(request);
  const result = await verifyBusinessEmail(services, String(body.token ?? ""), String(body.email ?? ""));
  if (!result) return apiError(400, t("verify.errorBody"));
  return Response.json(
    {
      businessId: result.id,
      businessName: result.name,
      ownerName: result.ownerName,
      bookingLink: result.bookingLink,
      status: result.status,
    },
    { headers: { "Set-Cookie": await rememberRegistration(services, result) } },
  );
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
