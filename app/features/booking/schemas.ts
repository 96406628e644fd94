import type { TFunction } from "i18next";
import { z } from "zod";
import { safeText } from "~/lib/validation";
import { perKey } from "~/lib/sharing/per-key";

/**
 * The customer's details on the booking page: name and phone required, e-mail and notes optional.
 * One schema per translator (the server keeps one per language): building it was a visible share
 * of every booking request.
 */
export const contactSchema = perKey((t: TFunction) => buildContactSchema(t));

function buildContactSchema(t: TFunction) {
  return z.object({
    name: safeText(
      { tooLong: t("form.tooLong", { max: 120 }), invalid: t("limits.controlCharacters"), required: t("book.nameRequired") },
      120,
    ).pipe(z.string().min(1, t("book.nameRequired"))),
    phone: z.string(t("book.phoneRequired")).trim().min(1, t("book.phoneRequired")).max(32, t("book.phoneInvalid")),
    email: z
      .string()
      .trim()
      .max(254, t("form.tooLong", { max: 254 }))
      .pipe(z.union([z.literal(""), z.email(t("register.emailInvalid"))]))
      .optional(),
    notes: safeText({ tooLong: t("form.tooLong", { max: 500 }), invalid: t("limits.controlCharacters") }, 500).optional(),
  });
}
