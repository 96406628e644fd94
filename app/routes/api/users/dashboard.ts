import type { Route } from "./+types/dashboard";
import { subscriberFor } from "~/features/subscriptions/access.server";
import { dashboardData } from "~/features/subscriptions/subscriptions.server";
import { apiError } from "~/platform/api.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";

/** GET /api/user/{userId}/dashboard: only for the session that owns the user. */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const access = await subscriberFor(services, request, params.userId);
  if (!access.ok)
    return access.reason === "invalid" ? apiError(400, t("subscribe.invalidUserId")) : apiError(404, t("subscribe.userNotFound"));
  return Response.json(await dashboardData(services, access.subscriber), { headers: { "Cache-Control": "private, no-store" } });
}
