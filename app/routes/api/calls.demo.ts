import type { Route } from "./+types/calls.demo";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { placeDemoCall } from "~/calls/demo-calls.server";
import { getT, getLocale } from "~/platform/i18n.server";

/** POST /api/calls/demo { to }: a free demo call of the booking agent, guarded against abuse. */
export async function action({ request, context }: Route.ActionArgs) {
  const t = getT(context);
  const body = await readJsonBody(request);
  const result = await placeDemoCall(context, t, getLocale(context), String(body.to ?? ""));
  if (!result.ok) return apiError(result.status, result.message, { title: t("demo.failedTitle") });
  return Response.json(
    { success: true, callId: result.callId, title: t("demo.startedTitle"), message: t("demo.startedBody") },
    { status: 202 },
  );
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
