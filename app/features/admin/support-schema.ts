import type { TFunction } from "i18next";
import { z } from "zod";

export const SUBJECT_MAX = 150;
export const MESSAGE_MAX = 5000;

export function supportSchema(t: TFunction) {
  return z.object({
    subject: z
      .string(t("support.subjectRequired"))
      .trim()
      .min(1, t("support.subjectRequired"))
      .max(SUBJECT_MAX, t("support.tooLong", { max: SUBJECT_MAX })),
    message: z
      .string(t("support.messageRequired"))
      .trim()
      .min(1, t("support.messageRequired"))
      .max(MESSAGE_MAX, t("support.tooLong", { max: MESSAGE_MAX })),
  });
}
