import type { FieldMetadata } from "@conform-to/react";
import { useTranslation } from "~/ui/translation";
import { Button } from "~/ui/form/button";
import { Field } from "~/ui/form/field";
import { MIN_PASSWORD } from "~/features/auth/password-schema";

/** A new password typed twice, with the rule as a hint, and the button that saves it: the reset link's page and the account's. */
export function NewPasswordFields({ password, confirm }: { password: FieldMetadata<string>; confirm: FieldMetadata<string> }) {
  const { t } = useTranslation();
  return (
    <>
      <Field
        label={t("password.new")}
        id={password.id}
        name={password.name}
        type="password"
        autoComplete="new-password"
        required
        errors={password.errors}
        hint={t("password.rule", { min: MIN_PASSWORD })}
      />
      <Field
        label={t("password.confirm")}
        id={confirm.id}
        name={confirm.name}
        type="password"
        autoComplete="new-password"
        required
        errors={confirm.errors}
      />
      <Button type="submit" className="w-full">
        {t("password.save")}
      </Button>
    </>
  );
}
