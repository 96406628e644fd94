import type { TFunction } from "i18next";
import { z } from "zod";
import { callLanguages } from "~/lib/languages";

import { voiceGenders } from "~/features/empathy/offer";

export { EMPATHY_PRICE, voiceGenders } from "~/features/empathy/offer";
export const languageIds = callLanguages.map((language) => language.id) as [string, ...string[]];

/**
 * Step one of the empathy call: where to call, in which language and voice, and the two
 * confirmations the caller gives before paying. The phone's validity for a callable country is
 * checked on the server, which knows the allowed countries.
 */
/** `recorded`: the deployment records calls (RECORD_CALLS), so the notice to accept is about recording, else about transcripts. */
export function empathyDetailsSchema(t: TFunction, recorded: boolean) {
  return z.object({
    phone: z.string(t("empathy.phoneRequired")).trim().min(1, t("empathy.phoneRequired")).max(32, t("empathy.phoneInvalid")),
    language: z.enum(languageIds, t("empathy.languageInvalid")),
    voice: z.enum(voiceGenders, t("empathy.voiceInvalid")),
    email: z
      .string()
      .trim()
      .max(254, t("form.tooLong", { max: 254 }))
      .pipe(z.union([z.literal(""), z.email(t("empathy.emailInvalid"))]))
      .optional(),
    adult: z.literal("on", t("empathy.adultRequired")),
    recording: z.literal("on", t(recorded ? "empathy.recordingRequired" : "empathy.transcriptRequired")),
  });
}

export type EmpathyDetailsInput = z.infer<ReturnType<typeof empathyDetailsSchema>>;
