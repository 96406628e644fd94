import type { Route } from "./+types/calls";
import { exceededWebCallLimit, startWebCall } from "~/features/agent/conversation.server";
import { checkWebCallStart } from "~/features/agent/web-call-form.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { translatorFor } from "~/platform/i18n.server";

/**
 * POST /api/calls { customerName, phoneNumber, status: "active", type: "inbound", language: "ar-SA" }
 * → 201 { id, token, status }: a conversation with the Saudi agent in the browser; `token` is
 * the conversation's signed address for /api/conversation/process.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = await translatorFor("ar");
  const body = await readJsonBody(request);
  const checked = checkWebCallStart(t, { name: body.customerName, phone: body.phoneNumber });
  if (!checked.ok) return apiError(400, checked.message, { title: checked.title, fields: checked.fields });
  const exceeded = await exceededWebCallLimit(context);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  const started = await startWebCall(services, checked.value);
  return Response.json(
    { id: started.call.id, token: started.token, status: "active", type: "inbound", language: started.call.language },
    { status: 201 },
  );
}

export const loader = methodNotAllowed;
