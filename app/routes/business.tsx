import { data, Form, Link, useNavigation } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/business";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { Button, buttonClass } from "~/ui/button";
import { Field } from "~/ui/field";
import { appOrigin } from "~/features/business/onboarding.server";
import { servicesContext } from "~/platform/context";
import { placeDemoCall } from "~/features/calls/demo-calls.server";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/toast.server";

export function loader({ context }: Route.LoaderArgs) {
  const { t } = getI18n(context);
  return { title: `${t("business.title")} · Sakina`, description: t("business.intro") };
}

/** The free demo-call card posts here; it works without JavaScript. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const phone = String((await request.formData()).get("phone") ?? "");
  const result = await placeDemoCall(context, t, getLocale(context), phone, appOrigin(services));
  if (!result.ok) return data({ error: result.message, phone }, { status: result.status });
  return redirectWithToast(services, "/business#demo", {
    type: "success",
    title: t("demo.startedTitle"),
    description: t("demo.startedBody"),
  });
}

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title ?? "Sakina" },
  { name: "description", content: loaderData?.description ?? "" },
];

export default function BusinessLanding({ actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const calling = navigation.state === "submitting" && navigation.formAction?.startsWith("/business");
  const stats = [
    ["95%", t("business.statCost")],
    ["83%", t("business.statSales")],
    ["98%", t("business.statSatisfaction")],
  ] as const;
  const steps = [
    [t("business.stepOneTitle"), t("business.stepOneBody")],
    [t("business.stepTwoTitle"), t("business.stepTwoBody")],
    [t("business.stepThreeTitle"), t("business.stepThreeBody")],
  ] as const;
  return (
    <div className="mx-auto max-w-6xl px-4">
      <section className="flex flex-col gap-6 py-12 sm:py-16 lg:flex-row lg:items-center lg:justify-between">
        <div className="max-w-2xl">
          <p className="text-sm font-semibold uppercase tracking-wide text-teal-800">{t("business.eyebrow")}</p>
          <h1 className="mt-2 text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl">{t("business.title")}</h1>
          <p className="mt-5 text-lg text-slate-700">{t("business.intro")}</p>
          <div className="mt-8 flex flex-wrap gap-3">
            <Link to="/get-started" className={buttonClass()}>
              {t("nav.getStarted")}
            </Link>
            <Link to="/login" className={buttonClass("secondary")}>
              {t("nav.login")}
            </Link>
          </div>
        </div>
      </section>

      <section id="demo" aria-labelledby="demo-title" className="mb-8 rounded-2xl border border-teal-200 bg-teal-50 p-6">
        <h2 id="demo-title" className="text-2xl font-semibold text-slate-900">
          {t("demo.title")}
        </h2>
        <p className="mt-1 text-slate-700">{t("demo.intro")}</p>
        <Form method="post" className="mt-4 flex flex-wrap items-end gap-3">
          <AuthenticityTokenInput />
          {actionData?.error ? (
            <p role="alert" className="w-full rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
              <span className="font-semibold">{t("demo.failedTitle")}: </span>
              {actionData.error}
            </p>
          ) : null}
          <Field
            label={t("demo.phone")}
            name="phone"
            type="tel"
            autoComplete="tel"
            required
            defaultValue={actionData?.phone}
            hint={t("demo.phoneHint")}
            className="min-w-64 flex-1"
          />
          <Button type="submit" disabled={calling}>
            {calling ? t("demo.calling") : t("demo.submit")}
          </Button>
        </Form>
      </section>

      <section aria-labelledby="stats-title" className="py-4">
        <h2 id="stats-title" className="sr-only">
          {t("business.statsTitle")}
        </h2>
        <ul className="grid gap-4 sm:grid-cols-3">
          {stats.map(([figure, label]) => (
            <li key={label} className="rounded-2xl border border-slate-200 bg-white p-5 text-center shadow-sm">
              <p className="text-3xl font-semibold text-teal-800">{figure}</p>
              <p className="mt-1 text-slate-700">{label}</p>
            </li>
          ))}
        </ul>
      </section>

      <div className="grid gap-6 py-10 lg:grid-cols-2">
        <section aria-labelledby="pricing-title" className="rounded-2xl border border-teal-200 bg-white p-6 shadow-sm">
          <h2 id="pricing-title" className="text-2xl font-semibold text-slate-900">
            {t("business.pricingTitle")}
          </h2>
          <p className="mt-4 text-4xl font-semibold text-slate-900">
            $1 <span className="text-base font-normal text-slate-600">{t("business.pricingStarter")}</span>
          </p>
          <ul className="mt-4 space-y-2 text-slate-700">
            <li>✓ {t("business.starterCalls")}</li>
            <li>✓ {t("business.pricingUnlimited")}</li>
            <li>✓ {t("business.pricingLink")}</li>
            <li>✓ {t("business.pricingVoice")}</li>
            <li>✓ {t("business.pricingAnalytics")}</li>
            <li>✓ {t("business.pricingSupport")}</li>
          </ul>
          <p className="mt-4 rounded-lg bg-slate-50 p-3 text-sm text-slate-700">{t("business.starterThen")}</p>
          <Link to="/get-started" className={`${buttonClass()} mt-6 w-full`}>
            {t("business.startFor")}
          </Link>
        </section>

        <section aria-labelledby="business-how-title" className="rounded-2xl border border-slate-200 bg-white p-6 shadow-sm">
          <h2 id="business-how-title" className="text-2xl font-semibold text-slate-900">
            {t("home.howTitle")}
          </h2>
          <ol className="mt-4 space-y-4">
            {steps.map(([title, body], index) => (
              <li key={title} className="flex gap-3">
                <span
                  aria-hidden="true"
                  className="flex h-8 w-8 shrink-0 items-center justify-center rounded-full bg-teal-700 font-semibold text-white"
                >
                  {index + 1}
                </span>
                <div>
                  <h3 className="font-semibold text-slate-900">{title}</h3>
                  <p className="text-slate-700">{body}</p>
                </div>
              </li>
            ))}
          </ol>
        </section>
      </div>
    </div>
  );
}
