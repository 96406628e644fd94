import type { Route } from "./+types/synthesize";
import { voiceOwner, voiceSample } from "~/features/business/voice-api.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/api.server";
import { getI18n } from "~/platform/i18n.server";

/**
 * POST /api/speech/synthesize { text, voice, speed, language } → audio/mpeg: the voice sample of
 * the settings page, for the signed-in owner. A form post (the page without JavaScript) gets the
 * same audio, which the browser plays itself.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const { t } = getI18n(context);
  const business = await voiceOwner(context, request);
  if (!business) return apiError(401, t("voiceSettings.signIn"));
  const json = (request.headers.get("Content-Type") ?? "").includes("application/json");
  const input = json ? await readJsonBody(request) : Object.fromEntries(await request.formData());
  const sample = await voiceSample(context, business.id, input);
  if (!sample.ok) return apiError(sample.status, sample.message, { title: sample.title });
  return new Response(Buffer.from(sample.audio), {
    headers: { "Content-Type": sample.mimeType, "Cache-Control": "private, no-store", "Content-Length": String(sample.audio.byteLength) },
  });
}

export const loader = methodNotAllowed;
