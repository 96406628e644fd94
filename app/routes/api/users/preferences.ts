import type { Route } from "./+types/preferences";
import { checkPreferences, refusedApi, subscriberFor } from "~/features/subscriptions/access.server";
import { profileOf } from "~/features/subscriptions/api.server";
import { savePreferences } from "~/features/subscriptions/account.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** POST /api/users/{id}/preferences { the preference fields }: saved, and the schedule follows them. */
export async function action({ request, context, params }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, params.id);
  if (!access.ok) return refusedApi(t, access.reason);
  const checked = checkPreferences(t, await readJsonBody(request));
  if (!checked.ok) return apiError(400, checked.message, { fields: checked.fields, title: t("subscribe.prefs.failed") });
  const saved = await savePreferences(services, access.subscriber, checked.value);
  return Response.json({ success: true, title: t("subscribe.prefs.saved"), ...profileOf(saved ?? access.subscriber) });
}

export const loader = methodNotAllowed;
