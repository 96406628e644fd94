import type { TFunction } from "i18next";
import { z } from "zod";

export const MIN_PASSWORD = 10;

/** A new password typed twice. */
export function newPasswordSchema(t: TFunction) {
  return z
    .object({
      password: z
        .string(t("password.required"))
        .min(MIN_PASSWORD, t("password.tooShort", { min: MIN_PASSWORD }))
        .max(200, t("form.tooLong", { max: 200 })),
      confirm: z.string(t("password.confirmRequired")),
    })
    .refine((value) => value.password === value.confirm, { message: t("password.mismatch"), path: ["confirm"] });
}
