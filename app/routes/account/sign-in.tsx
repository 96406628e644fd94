import { data, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/sign-in";
import { sendSignInLink } from "~/features/subscriptions/sign-in-link.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";
import { tIsolated } from "~/ui/bidi";
import { Button, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle } from "~/ui/form/error-summary";
import { Field } from "~/ui/form/field";
import { FocusHeading } from "~/ui/form/focus";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** /sign-in: a subscriber asks for a magic link; the answer never says whether the address has an account. */
export function loader({ context }: Route.LoaderArgs) {
  const t = getT(context);
  return { title: `${t("subscribe.signIn.title")} · Sakina` };
}

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const email = String((await request.formData()).get("email") ?? "")
    .trim()
    .toLowerCase();
  if (!email) return data({ sent: false as const, error: t("subscribe.required"), email }, { status: 400 });
  if (email.length > 254 || !EMAIL.test(email))
    return data({ sent: false as const, error: t("subscribe.emailInvalid"), email }, { status: 400 });
  const exceeded = await firstExceededRule(context, [
    { name: "sign-in:ip", subject: clientIp(context) ?? "unknown", limit: 20, windowSeconds: 3600 },
    { name: "sign-in:email", subject: email, limit: 5, windowSeconds: 3600 },
  ]);
  if (exceeded) {
    return data(
      { sent: false as const, error: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }), email },
      { status: 429 },
    );
  }
  await sendSignInLink(services, email, t, getLocale(context));
  return { sent: true as const, error: null, email };
}

export default function SignIn({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  if (actionData?.sent) {
    return (
      <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
        <PageTitle title={`${t("subscribe.signIn.sentTitle")} · Sakina`} />
        <Card tone="brand">
          <div role="status">
            <FocusHeading key="sent" level={1} className="text-2xl font-semibold">
              {t("subscribe.signIn.sentTitle")}
            </FocusHeading>
            <p className="mt-2">{tIsolated(t, "subscribe.signIn.sentBody", { email: actionData.email })}</p>
          </div>
        </Card>
      </div>
    );
  }
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <PageTitle title={loaderData.title} error={Boolean(actionData?.error)} />
      <FocusHeading key="form" level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t("subscribe.signIn.title")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("subscribe.signIn.intro")}</p>
      <Card className="mt-6">
        <Form method="post" className="space-y-5" noValidate>
          <AuthenticityTokenInput />
          <ErrorSummary problems={actionData?.error ? [{ id: "sign-in-email", message: actionData.error }] : []} />
          <Field
            label={t("subscribe.emailLabel")}
            id="sign-in-email"
            name="email"
            type="email"
            autoComplete="email"
            required
            defaultValue={actionData?.email}
            errors={actionData?.error ? [actionData.error] : null}
          />
          <Button type="submit" className="w-full" disabled={navigation.state === "submitting"}>
            {navigation.state === "submitting" ? t("common.sending") : t("subscribe.signIn.submit")}
          </Button>
        </Form>
      </Card>
      <p className="mt-6 text-sm text-slate-700">
        {t("subscribe.notSubscribed")}{" "}
        <Link to="/subscribe" className={linkClass}>
          {t("subscribe.startTrial")}
        </Link>
      </p>
    </div>
  );
}
