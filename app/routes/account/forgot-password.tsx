import { data, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { z } from "zod";
import type { Route } from "./+types/forgot-password";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Field } from "~/ui/form/field";
import { ErrorSummary, PageTitle } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { tIsolated } from "~/ui/bidi";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { requestPasswordReset } from "~/features/auth/password-reset.server";

export function loader({ context }: Route.LoaderArgs) {
  const t = getT(context);
  return { title: `${t("forgot.title")} · Sakina` };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const email = String((await request.formData()).get("email") ?? "").trim();
  if (!email) return data({ sent: false as const, error: t("forgot.missing"), email }, { status: 400 });
  if (!z.email().safeParse(email).success || email.length > 254) {
    return data({ sent: false as const, error: t("register.emailInvalid"), email }, { status: 400 });
  }
  await requestPasswordReset(context, t, getLocale(context), email, services.publicOrigin());
  return { sent: true as const, email, error: null };
}

export default function ForgotPassword({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  if (actionData?.sent) {
    return (
      <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
        <PageTitle title={`${t("forgot.sentTitle")} · Sakina`} />
        <div className="rounded-2xl border border-emerald-200 bg-emerald-50 p-6 text-emerald-950">
          <FocusHeading key="sent" level={1} className="text-2xl font-semibold">
            {t("forgot.sentTitle")}
          </FocusHeading>
          <p className="mt-2">{t("forgot.sentBody")}</p>
          <p className="mt-2 text-sm">{tIsolated(t, "forgot.sentTo", { email: actionData.email })}</p>
        </div>
        <div className="mt-6 flex flex-wrap gap-3">
          <Link to="/forgot-password" reloadDocument className={buttonClass("secondary")}>
            {t("forgot.again")}
          </Link>
          <Link to="/login" className={buttonClass()}>
            {t("forgot.backToLogin")}
          </Link>
        </div>
        <p className="mt-6">
          <Link to="/" className={`${linkClass} text-sm`}>
            {t("common.backToHome")}
          </Link>
        </p>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <PageTitle title={loaderData.title} error={Boolean(actionData?.error)} />
      <Link to="/login" className={`${linkClass} text-sm`}>
        {t("forgot.backToLogin")}
      </Link>
      <FocusHeading key="form" level={1} className="mt-4 text-3xl font-semibold tracking-tight text-slate-900">
        {t("forgot.title")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("forgot.intro")}</p>
      <Form method="post" noValidate className="mt-8 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
        <AuthenticityTokenInput />
        <ErrorSummary problems={actionData?.error ? [{ id: "forgot-email", message: actionData.error }] : []} />
        <Field
          label={t("auth.email")}
          id="forgot-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={actionData?.email}
          errors={actionData?.error ? [actionData.error] : null}
        />
        <Button type="submit" disabled={navigation.state === "submitting"} className="w-full">
          {navigation.state === "submitting" ? t("common.sending") : t("forgot.submit")}
        </Button>
      </Form>
    </div>
  );
}
