import type { Route } from "./+types/voice.providers";
import { servicesContext } from "~/platform/context";
import { providerStatuses } from "~/providers/status.server";
import { getAccount } from "~/features/auth/auth.server";

/**
 * GET /api/voice/providers → { activeProvider, recommendation, providers[] }. `?refresh` calls the
 * providers' APIs live, so it needs a signed-in owner or admin (403 otherwise); anyone gets the
 * cached status.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const refresh = url.searchParams.has("refresh");
  const account = refresh ? await getAccount(context, request) : null;
  if (refresh && !(account && (account.role === "owner" || account.role === "admin"))) {
    return Response.json(
      { error: "Refreshing the provider status needs a signed-in owner or admin." },
      { status: 403, headers: { "Cache-Control": "no-store" } },
    );
  }
  const status = await providerStatuses(context.get(servicesContext), { refresh });
  return Response.json(
    {
      activeProvider: status.activeProvider,
      recommendation: status.recommendation,
      providers: status.providers.map(({ name, configured, working, message }) => ({ name, configured, working, message })),
    },
    { headers: { "Cache-Control": "no-store" } },
  );
}
