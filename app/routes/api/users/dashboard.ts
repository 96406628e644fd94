import type { Route } from "./+types/dashboard";
import { refusedApi, subscriberFor } from "~/features/subscriptions/access.server";
import { dashboardData } from "~/features/subscriptions/dashboard-data.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** GET /api/user/{userId}/dashboard: only for the session that owns the user. */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, params.userId);
  if (!access.ok) return refusedApi(t, access.reason);
  return Response.json(await dashboardData(services, access.subscriber), { headers: { "Cache-Control": "private, no-store" } });
}
