import { data, redirect, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/login";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, linkClass } from "~/ui/form/button";
import { Field } from "~/ui/form/field";
import { ErrorSummary, PageTitle } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { safeRedirect } from "~/lib/safe-redirect";
import { authenticate, commitLogin, getSignedIn, nextAfterLogin } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { toastHeader } from "~/platform/http/toast.server";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const redirectTo = safeRedirect(url.searchParams.get("redirectTo"), "/dashboard");
  const signedIn = await getSignedIn(context, request);
  if (signedIn) throw redirect(nextAfterLogin(signedIn.account, redirectTo, signedIn.secondFactorPassed));
  const t = getT(context);
  return { redirectTo, title: `${t("auth.loginTitle")} · Sakina` };
}

/** A refused guess tells the browser when to come back. */
export const headers: Route.HeadersFunction = ({ actionHeaders }) => {
  const retryAfter = actionHeaders.get("Retry-After");
  return retryAfter ? { "Retry-After": retryAfter } : new Headers();
};

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const form = await request.clone().formData();
  const redirectTo = safeRedirect(form.get("redirectTo"), "/dashboard");
  const result = await authenticate(context, request);
  if (result.error) {
    return data(
      { title: result.error.title, message: result.error.message, email: String(form.get("email") ?? "") },
      {
        status: result.error.status,
        ...(result.error.retryAfterSeconds ? { headers: { "Retry-After": String(result.error.retryAfterSeconds) } } : {}),
      },
    );
  }
  const headers = new Headers({ "Set-Cookie": await commitLogin(services, result.account, request) });
  // The account as it was before this sign-in: no earlier sign-in means a first visit, not a return.
  const firstSignIn = !result.account.lastLoginAt;
  headers.append(
    "Set-Cookie",
    await toastHeader(services, { type: "success", title: t(firstSignIn ? "auth.welcome" : "auth.welcomeBack") }),
  );
  return redirect(nextAfterLogin(result.account, redirectTo, false), { headers });
}

export default function Login({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <PageTitle title={loaderData.title} error={Boolean(actionData)} />
      <Link to="/" className={`${linkClass} text-sm`}>
        {t("common.backToHome")}
      </Link>
      <FocusHeading level={1} className="mt-4 text-3xl font-semibold tracking-tight text-slate-900">
        {t("auth.loginTitle")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("auth.loginIntro")}</p>
      <Form method="post" noValidate className="mt-8 space-y-5 rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
        <AuthenticityTokenInput />
        <input type="hidden" name="redirectTo" value={loaderData.redirectTo} />
        {/* Which of the two was wrong is not said; the summary leads back to the first field. */}
        <ErrorSummary problems={actionData ? [{ id: "login-email", message: `${actionData.title}: ${actionData.message}` }] : []} />
        <Field
          label={t("auth.email")}
          id="login-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          defaultValue={actionData?.email}
          aria-invalid={actionData ? true : undefined}
        />
        <Field label={t("auth.password")} id="login-password" name="password" type="password" autoComplete="current-password" required />
        <Button type="submit" disabled={busy} className="w-full">
          {busy ? t("auth.signingIn") : t("auth.signIn")}
        </Button>
        <p className="text-sm">
          <Link to="/forgot-password" className={linkClass}>
            {t("auth.forgot")}
          </Link>
        </p>
      </Form>
      <p className="mt-6 text-sm text-slate-700">
        {t("auth.noAccount")}{" "}
        <Link to="/get-started" className={linkClass}>
          {t("nav.getStarted")}
        </Link>
      </p>
    </div>
  );
}
