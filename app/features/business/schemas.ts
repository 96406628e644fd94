import type { TFunction } from "i18next";
import { z } from "zod";
import { industries } from "~/features/business/signup/industries";

/**
 * The registration form's rules that the browser can check too. The server adds whether the phone
 * number is a real one (serverRegistrationSchema), which needs metadata too big to ship.
 */
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
    phone: businessPhoneText(t),
    industry: z.enum(industries, t("register.industryInvalid")).default("service"),
  });
}

/** A business phone number as typed: there, and not absurdly long. */
export function businessPhoneText(t: TFunction) {
  return (
    z
      .string(t("register.phoneRequired"))
      .trim()
      .min(1, t("register.phoneRequired"))
      .max(32, t("register.phoneInvalid"))
      // No phone number has fewer than 7 digits or more than 15 (E.164): said here, in the browser,
      // beside any other field's error, before the server's full check of the number.
      .refine((typed) => typed === "" || /^(?:\D*\d){7,15}\D*$/.test(typed), t("register.phoneInvalid"))
  );
}
