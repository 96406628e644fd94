import type { Route } from "./+types/make-call";
import { placeCallMe } from "~/features/agent/call-me.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { translatorFor } from "~/platform/i18n.server";

/**
 * POST /api/calls/make-call { to, callId? } → 202 { message, callId, statusUrl }: the Saudi
 * agent phones `to` ("call me now"). The client's callId is not trusted; the server's is returned.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const t = await translatorFor("ar");
  const body = await readJsonBody(request);
  const result = await placeCallMe(context, t, typeof body.to === "string" ? body.to : "");
  if (!result.ok) return apiError(result.status, result.message, { title: t("agent.failedTitle") });
  return Response.json(
    { message: t("agent.startedBody", { phone: result.phone }), callId: result.callId, statusUrl: `/call?call=${result.token}` },
    { status: 202 },
  );
}

export const loader = methodNotAllowed;
