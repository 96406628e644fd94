import type { Route } from "./+types/voice";
import { exceededConversationLimit, webCallOf } from "~/features/agent/conversation.server";
import { EmptyTranscriptError, MAX_RECORDING_BYTES, recordingType, voiceTurn } from "~/features/agent/voice-turn.server";
import { apiError, methodNotAllowed } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { clientIp } from "~/platform/security/rate-limit.server";
import { translatorFor } from "~/platform/i18n.server";
import { AiError, AiNotConfiguredError } from "~/providers/ai.server";

/**
 * POST /api/conversation/voice, multipart: `csrf` (the page's form token, as every form),
 * `token` (the conversation's signed token) and `audio` (the recording: webm, ogg, mp4, mpeg or
 * wav, at most 2 MB) → { transcript, reply, audio: base64 MP3 | null, mimeType }. The turn is
 * kept with the conversation like a typed one. Failures: JSON { error } in Arabic.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = await translatorFor("ar");
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return apiError(400, t("agent.audioMissing"));
  }
  const audio = form.get("audio");
  if (!(audio instanceof Blob) || audio.size === 0) return apiError(400, t("agent.audioMissing"));
  if (audio.size > MAX_RECORDING_BYTES) return apiError(413, t("agent.audioTooLarge"));
  if (!recordingType(audio.type)) return apiError(415, t("agent.audioUnsupported"));
  const exceeded = await exceededConversationLimit(context);
  if (exceeded) return apiError(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  const token = form.get("token");
  const call = await webCallOf(services, typeof token === "string" ? token : null);
  if (!call || call.status !== "active") return apiError(404, t("agent.chatNotFound"));
  if (!services.speech.configured || !services.textModel.configured) return apiError(503, t("agent.aiNotConfigured"));
  try {
    const turn = await voiceTurn(services, call, new Uint8Array(await audio.arrayBuffer()), audio.type, { ip: clientIp(context) });
    return Response.json(turn);
  } catch (error) {
    if (error instanceof EmptyTranscriptError) return apiError(422, error.message);
    if (error instanceof AiNotConfiguredError) return apiError(503, t("agent.aiNotConfigured"));
    if (error instanceof AiError) return apiError(502, t("agent.processFailed"));
    throw error;
  }
}

export const loader = methodNotAllowed;
