import type { TFunction } from "i18next";
import { realtimeVoices } from "~/lib/voices";
import { speechLocales, VOICE_SPEED, VOICE_CREATIVITY } from "./voice-settings";

export interface VoiceSettingsInput {
  voice: string;
  speed: number;
  locale: string;
  creativity: number;
}

export type VoiceSettingsCheck = { ok: true; value: VoiceSettingsInput } | { ok: false; fields: Record<string, string[]>; message: string };

const inRange = (value: number, range: { min: number; max: number }) =>
  Number.isFinite(value) && value >= range.min - 1e-9 && value <= range.max + 1e-9 && Math.abs(Math.round(value * 10) - value * 10) < 1e-6;

/**
 * The settings form or API ({ voice, speed, temperature | creativity, language }): only voices the
 * realtime model accepts, speed 0.5-2 and creativity 0.1-1 in steps of 0.1, the spec's locales.
 */
export function checkVoiceSettings(t: TFunction, input: Record<string, unknown>): VoiceSettingsCheck {
  const voice = String(input.voice ?? "");
  const locale = String(input.language ?? input.locale ?? "");
  const speed = Number(input.speed ?? VOICE_SPEED.default);
  const creativity = Number(input.creativity ?? input.temperature ?? VOICE_CREATIVITY.default);
  const fields: Record<string, string[]> = {};
  if (!(realtimeVoices as readonly string[]).includes(voice)) fields.voice = [t("voiceSettings.voiceInvalid")];
  if (!inRange(speed, VOICE_SPEED)) fields.speed = [t("voiceSettings.speedInvalid")];
  if (!(speechLocales as readonly string[]).includes(locale)) fields.language = [t("voiceSettings.languageInvalid")];
  if (!inRange(creativity, VOICE_CREATIVITY)) fields.creativity = [t("voiceSettings.creativityInvalid")];
  if (Object.keys(fields).length > 0) return { ok: false, fields, message: Object.values(fields)[0]![0]! };
  return { ok: true, value: { voice, speed: Math.round(speed * 10) / 10, locale, creativity: Math.round(creativity * 10) / 10 } };
}
