import type { Route } from "./+types/voice.providers";
import { servicesContext } from "~/server/context";
import { providerStatuses } from "~/server/providers/status.server";

/** GET /api/voice/providers → { activeProvider, recommendation, providers[] } */
export async function loader({ request, context }: Route.LoaderArgs) {
  const refresh = new URL(request.url).searchParams.has("refresh");
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
