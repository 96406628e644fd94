import { Form } from "~/ui/link";
import { data, redirect } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/language";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { SelectField } from "~/ui/form/field";
import { isLanguage, languageNames, supportedLanguages } from "~/i18n";
import { safeRedirect } from "~/lib/safe-redirect";
import { localeCookie } from "~/platform/http/cookies.server";
import { getT, getLocale } from "~/platform/i18n.server";

export function loader({ url, context }: Route.LoaderArgs) {
  const redirectTo = safeRedirect(url.searchParams.get("redirectTo"));
  const t = getT(context);
  return { current: getLocale(context), redirectTo, title: `${t("language.label")} · Sakina` };
}

export const meta: Route.MetaFunction = ({ loaderData: data }) => [{ title: data?.title ?? "Sakina" }];

/** The language switcher posts here; the choice is kept in a cookie for a year. */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const lng = form.get("lng");
  // A ?lng= left in the address would override the new choice on the way back.
  const target = new URL(safeRedirect(form.get("redirectTo")), "http://local");
  target.searchParams.delete("lng");
  const redirectTo = `${target.pathname}${target.search}`;
  if (!isLanguage(lng)) {
    const t = getT(context);
    return data({ error: t("language.invalid"), redirectTo }, { status: 400 });
  }
  return redirect(redirectTo, { headers: { "Set-Cookie": await localeCookie.serialize(lng) } });
}

export default function LanguagePage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-md px-4 py-14">
      <h1 className="text-2xl font-semibold text-slate-900">{t("language.pageTitle")}</h1>
      <p className="mt-2 text-slate-700">{t("language.pageIntro")}</p>
      <Form method="post" noValidate className="mt-6 space-y-4">
        <AuthenticityTokenInput />
        <input type="hidden" name="redirectTo" value={actionData?.redirectTo ?? loaderData.redirectTo} />
        <SelectField
          label={t("language.label")}
          name="lng"
          defaultValue={loaderData.current}
          errors={actionData?.error ? [actionData.error] : null}
        >
          {supportedLanguages.map((lng) => (
            <option key={lng} value={lng} lang={lng}>
              {languageNames[lng]}
            </option>
          ))}
        </SelectField>
        <Button type="submit">{t("language.change")}</Button>
      </Form>
    </div>
  );
}
