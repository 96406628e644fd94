import type { RouterContextProvider } from "react-router";
import { findBusinessById, setVoiceSettings } from "#models/businesses";
import { getAccount } from "~/features/auth/index.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { firstExceededRule } from "~/platform/security/rate-limit.server";
import { AiError, AiNotConfiguredError } from "~/providers/ai.server";
import { checkVoiceSettings } from "./voice-settings.server";
import { MAX_TEST_TEXT } from "./voice-settings";

/** The signed-in owner's business, or null (the voice APIs are the owner's; a sample costs money). */
export async function voiceOwner(context: Readonly<RouterContextProvider>, request: Request) {
  const account = await getAccount(context, request);
  if (!account?.businessId || account.mustChangePassword) return null;
  return findBusinessById(context.get(servicesContext).db, account.businessId);
}

export type SampleResult =
  { ok: true; audio: Uint8Array; mimeType: string } | { ok: false; status: number; title: string; message: string };

/** "Test voice": the text read by the text-to-speech model with the chosen voice and speed. */
export async function voiceSample(
  context: Readonly<RouterContextProvider>,
  businessId: number,
  input: Record<string, unknown>,
): Promise<SampleResult> {
  const services = context.get(servicesContext);
  const t = getT(context);
  const fail = (status: number, message = t("voiceSettings.playFailedBody")) => ({
    ok: false as const,
    status,
    title: t("voiceSettings.playFailed"),
    message,
  });
  const text = String(input.text ?? "").trim();
  if (!text) return fail(400, t("voiceSettings.textRequired"));
  if (text.length > MAX_TEST_TEXT) return fail(400, t("voiceSettings.textTooLong", { max: MAX_TEST_TEXT }));
  const checked = checkVoiceSettings(t, { ...input, creativity: input.creativity ?? 0.8 });
  if (!checked.ok && (checked.fields.voice || checked.fields.speed)) return fail(400, checked.message);
  const exceeded = await firstExceededRule(context, [
    { name: "voice-sample:business", subject: String(businessId), limit: 30, windowSeconds: 3600 },
  ]);
  if (exceeded) return fail(429, t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }));
  try {
    const audio = await services.speech.synthesize({ text, voice: String(input.voice), speed: Number(input.speed ?? 1) });
    return { ok: true, ...audio };
  } catch (error) {
    if (error instanceof AiNotConfiguredError) return fail(503, t("voiceSettings.notConfigured"));
    if (error instanceof AiError) return fail(502);
    throw error;
  }
}

export async function saveVoiceSettings(context: Readonly<RouterContextProvider>, businessId: number, input: Record<string, unknown>) {
  const t = getT(context);
  const checked = checkVoiceSettings(t, input);
  if (!checked.ok) return checked;
  await setVoiceSettings(context.get(servicesContext).db, businessId, checked.value);
  return { ok: true as const, value: checked.value };
}
