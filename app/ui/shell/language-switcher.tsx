import { Form } from "~/ui/link";
import { useLocation } from "react-router";
import { useTranslation } from "~/ui/translation";
import { languageNames, supportedLanguages } from "~/i18n";
import { AuthenticityTokenInput } from "~/ui/form/csrf";

/**
 * A plain form, so it works without JavaScript: choose, press Change, come back to this page.
 * `id` tells two switchers on one page apart (the header's and the phone menu's).
 */
export function LanguageSwitcher({ current, id = "language-switcher" }: { current: string; id?: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <Form method="post" noValidate action="/language" className="flex items-center gap-2">
      <AuthenticityTokenInput />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <label htmlFor={id} className="sr-only">
        {t("language.label")}
      </label>
      <select
        id={id}
        name="lng"
        defaultValue={current}
        key={current}
        className="min-h-10 rounded-lg border border-sand-300 bg-white py-1.5 ps-2.5 pe-8 text-sm text-ink hover:border-teal-700"
      >
        {supportedLanguages.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {languageNames[lng]}
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="min-h-10 rounded-lg border border-sand-300 bg-white px-3 py-1.5 text-sm font-medium text-teal-900 hover:border-teal-700 hover:bg-teal-50"
      >
        {t("language.change")}
      </button>
    </Form>
  );
}
