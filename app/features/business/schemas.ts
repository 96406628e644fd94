import type { TFunction } from "i18next";
import { z } from "zod";
import { industries } from "~/features/business/industries";
import { normalizePhone } from "~/lib/phone";

/** The registration form's rules, run in the browser and again on the server. */
export function registrationSchema(t: TFunction) {
  const required = (message: string, max: number) => z.string(message).trim().min(1, message).max(max, t("form.tooLong", { max }));
  return z.object({
    name: required(t("register.nameRequired"), 120),
    ownerName: required(t("register.ownerRequired"), 120),
    email: z
      .string(t("register.emailRequired"))
      .trim()
      .min(1, t("register.emailRequired"))
      .max(254, t("form.tooLong", { max: 254 }))
      .pipe(z.email(t("register.emailInvalid"))),
    phone: businessPhoneField(t),
    industry: z.enum(industries, t("register.industryInvalid")).default("service"),
  });
}
export type Registration = z.output<ReturnType<typeof registrationSchema>>;

/** A business phone number as typed, stored in E.164. */
export function businessPhoneField(t: TFunction) {
  return z
    .string(t("register.phoneRequired"))
    .trim()
    .min(1, t("register.phoneRequired"))
    .max(32, t("register.phoneInvalid"))
    .transform((value, ctx) => {
      const phone = normalizePhone(value);
      if (!phone.ok) {
        ctx.addIssue({ code: "custom", message: t("register.phoneInvalid") });
        return z.NEVER;
      }
      return phone.e164;
    });
}
