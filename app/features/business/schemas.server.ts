import type { TFunction } from "i18next";
import { z } from "zod";
import { businessPhoneText, registrationSchema } from "~/features/business/schemas";
import { normalizePhone } from "~/platform/phone.server";

/** A business phone number as typed, checked to be a real number and stored in E.164. */
export function businessPhoneField(t: TFunction) {
  return businessPhoneText(t).transform((value, ctx) => {
    const phone = normalizePhone(value);
    if (!phone.ok) {
      ctx.addIssue({ code: "custom", message: t("register.phoneInvalid") });
      return z.NEVER;
    }
    return phone.e164;
  });
}

/** The registration form's full rules, as its action and the registration API check them. */
export function serverRegistrationSchema(t: TFunction) {
  return registrationSchema(t).extend({ phone: businessPhoneField(t) });
}
export type Registration = z.output<ReturnType<typeof serverRegistrationSchema>>;
