import { z } from "zod";
import type { Route } from "./+types/auth.forgot-password";
import { appOrigin } from "~/server/business-onboarding.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/server/api.server";
import { servicesContext } from "~/server/context";
import { getI18n, getLocale } from "~/server/i18n.server";
import { requestPasswordReset } from "~/server/password-reset.server";

/** POST /api/auth/forgot-password { email }: the same answer whether or not the address exists. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const email = String((await readJsonBody(request)).email ?? "").trim();
  if (!email) return apiError(400, t("forgot.missing"), { title: t("auth.missingTitle") });
  if (!z.email().safeParse(email).success) return apiError(400, t("register.emailInvalid"));
  await requestPasswordReset(context, t, getLocale(context), email, appOrigin(services, request));
  return Response.json({ ok: true, title: t("forgot.sentTitle"), message: t("forgot.sentBody") });
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
