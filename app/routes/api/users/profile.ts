import type { Route } from "./+types/profile";
import { refusedApi, subscriberFor } from "~/features/subscriptions/access.server";
import { profileOf } from "~/features/subscriptions/api.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";

/** GET /api/users/{id}/profile: the preference fields, only for the session that owns the user. */
export async function loader({ request, context, params }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, params.id);
  if (!access.ok) return refusedApi(t, access.reason);
  return Response.json(profileOf(access.subscriber), { headers: { "Cache-Control": "private, no-store" } });
}
