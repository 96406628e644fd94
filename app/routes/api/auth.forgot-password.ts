import { z } from "zod";
import type { Route } from "./+types/auth.forgot-password";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { requestPasswordReset } from "~/features/auth/password-reset.server";

/** POST /api/auth/forgot-password { email }: the same answer whether or not the address exists. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const email = String((await readJsonBody(request)).email ?? "").trim();
  if (!email) return apiError(400, t("forgot.missing"), { title: t("auth.missingTitle") });
  if (email.length > 254 || !z.email().safeParse(email).success) return apiError(400, t("register.emailInvalid"));
  await requestPasswordReset(context, t, getLocale(context), email, services.publicOrigin());
  return Response.json({ ok: true, title: t("forgot.sentTitle"), message: t("forgot.sentBody") });
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
