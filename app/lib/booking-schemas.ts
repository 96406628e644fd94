import type { TFunction } from "i18next";
import { z } from "zod";

/** The customer's details on the booking page: name and phone required, e-mail and notes optional. */
export function contactSchema(t: TFunction) {
  return z.object({
    name: z.string(t("book.nameRequired")).trim().min(1, t("book.nameRequired")).max(120, t("form.tooLong", { max: 120 })),
    phone: z.string(t("book.phoneRequired")).trim().min(1, t("book.phoneRequired")).max(32, t("book.phoneInvalid")),
    email: z
      .string()
      .trim()
      .max(254, t("form.tooLong", { max: 254 }))
      .pipe(z.union([z.literal(""), z.email(t("register.emailInvalid"))]))
      .optional(),
    notes: z.string().trim().max(500, t("form.tooLong", { max: 500 })).optional(),
  });
}
