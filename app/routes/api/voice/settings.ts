import type { Route } from "./+types/settings";
import { saveVoiceSettings, voiceOwner } from "~/features/business/voice-api.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { getT } from "~/platform/i18n.server";

/** POST /api/voice/settings { voice, speed, temperature, language }: the business's call voice, from the next call on. */
export async function action({ request, context }: Route.ActionArgs) {
  const t = getT(context);
  const business = await voiceOwner(context, request);
  if (!business) return apiError(401, t("voiceSettings.signIn"));
  const saved = await saveVoiceSettings(context, business.id, await readJsonBody(request));
  if (!saved.ok) return apiError(400, saved.message, { title: t("voiceSettings.saveFailed"), fields: saved.fields });
  return Response.json({ ok: true, title: t("voiceSettings.saved"), message: t("voiceSettings.savedBody"), settings: saved.value });
}

export const loader = methodNotAllowed;
