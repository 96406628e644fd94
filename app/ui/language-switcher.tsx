import { Form, useLocation } from "react-router";
import { useTranslation } from "react-i18next";
import { languageNames, supportedLanguages } from "~/i18n";
import { AuthenticityTokenInput } from "~/ui/csrf";

/** A plain form, so it works without JavaScript: choose, press Change, come back to this page. */
export function LanguageSwitcher({ current }: { current: string }) {
  const { t } = useTranslation();
  const location = useLocation();
  return (
    <Form method="post" action="/language" className="flex items-center gap-2">
      <AuthenticityTokenInput />
      <input type="hidden" name="redirectTo" value={`${location.pathname}${location.search}`} />
      <label htmlFor="language-switcher" className="sr-only">
        {t("language.label")}
      </label>
      <select
        id="language-switcher"
        name="lng"
        defaultValue={current}
        key={current}
        className="rounded-md border border-slate-400 bg-white py-1.5 ps-2 pe-8 text-sm text-slate-900"
      >
        {supportedLanguages.map((lng) => (
          <option key={lng} value={lng} lang={lng}>
            {languageNames[lng]}
          </option>
        ))}
      </select>
      <button
        type="submit"
        className="rounded-md border border-slate-400 bg-white px-2.5 py-1.5 text-sm font-medium text-slate-900 hover:bg-slate-100"
      >
        {t("language.change")}
      </button>
    </Form>
  );
}
