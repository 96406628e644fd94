import { Form } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { errorsFor, type BusinessSettings, type DashboardActionData } from "~/features/business/dashboard/types";

/**
 * Texts (SMS) to customers: off unless the owner turns them on, and only where this server can
 * send them; the page says which. A plain form: works without JavaScript.
 */
export function TextsSection({ business, actionData }: { business: BusinessSettings; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  const errors = errorsFor(actionData, "save-texts", "textsEnabled");
  return (
    <section aria-labelledby="texts-title" className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="texts-title" className="text-lg font-semibold text-slate-900">
        {t("settings.textsTitle")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{business.textsOffered ? t("settings.textsAvailable") : t("settings.textsNotOffered")}</p>
      {business.textsOffered || business.textsEnabled ? (
        <Form method="post" noValidate className="mt-4 space-y-4">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="save-texts" />
          <div className="flex items-start gap-3">
            <input
              type="checkbox"
              id="settings-texts-enabled"
              name="textsEnabled"
              defaultChecked={business.textsEnabled}
              aria-describedby="settings-texts-enabled-hint"
              aria-invalid={errors ? true : undefined}
              className="mt-1 size-5 accent-teal-700"
            />
            <div>
              <label htmlFor="settings-texts-enabled" className="font-medium text-slate-900">
                {t("settings.textsEnabled")}
              </label>
              <p id="settings-texts-enabled-hint" className="text-sm text-slate-700">
                {t("settings.textsEnabledHint")}
              </p>
              {errors?.map((error) => (
                <p key={error} role="alert" className="mt-1 text-sm font-medium text-red-800">
                  {error}
                </p>
              ))}
            </div>
          </div>
          <Button type="submit">{t("settings.textsSave")}</Button>
        </Form>
      ) : null}
    </section>
  );
}
