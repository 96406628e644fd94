import { data, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/business";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Badge } from "~/ui/badge";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { Icon } from "~/ui/icons";
import { BookingCallIllustration } from "~/ui/illustrations";
import { PageHeader, PageShell } from "~/ui/shell/page-shell";
import { Field } from "~/ui/form/field";
import { servicesContext } from "~/platform/context";
import { placeDemoCall } from "~/calls/demo-calls.server";
import { callsUnavailable } from "~/calls/readiness.server";
import { CALLS_UNAVAILABLE_ID, CallsUnavailable } from "~/ui/calls-unavailable";
import { getT, getLocale } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { isolateNumbers } from "~/ui/bidi";
import type { ShellHandle } from "~/ui/shell/shell";

export function loader({ context }: Route.LoaderArgs) {
  const t = getT(context);
  return {
    title: `${t("business.title")} · Sakina`,
    description: t("business.intro"),
    callsUnavailable: callsUnavailable(context.get(servicesContext)),
  };
}

/** The free demo-call card posts here; it works without JavaScript. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const phone = String((await request.formData()).get("phone") ?? "");
  const result = await placeDemoCall(context, t, getLocale(context), phone);
  if (!result.ok) return data({ error: result.message, phone }, { status: result.status });
  return redirectWithToast(services, "/business#demo", {
    type: "success",
    title: t("demo.startedTitle"),
    description: t("demo.startedBody"),
  });
}

// Links and one form: no React, only app/ui/enhance.js (ADR 0016).
export const handle = { hydrate: false } satisfies ShellHandle;

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: loaderData?.title ?? "Sakina" },
  { name: "description", content: loaderData?.description ?? "" },
];

export default function BusinessLanding({ loaderData, actionData }: Route.ComponentProps) {
  const unavailable = loaderData.callsUnavailable;
  const { t } = useTranslation();
  const navigation = useNavigation();
  const calling = navigation.state === "submitting" && navigation.formAction?.startsWith("/business");
  const steps = [
    [t("business.stepOneTitle"), t("business.stepOneBody")],
    [t("business.stepTwoTitle"), t("business.stepTwoBody")],
    [t("business.stepThreeTitle"), t("business.stepThreeBody")],
  ] as const;
  // What the product does and costs, each a fact it can stand behind (no marketing figures).
  const facts = [
    ["tag", t("look.business.factPriceTitle"), t("look.business.factPriceBody")],
    ["clock", t("look.business.factTimingTitle"), t("look.business.factTimingBody")],
    ["calendar", t("look.business.factOutcomesTitle"), t("look.business.factOutcomesBody")],
    ["globe", t("look.business.factLanguagesTitle"), t("look.business.factLanguagesBody")],
    ["phone", t("look.business.factHonestTitle"), t("look.business.factHonestBody")],
    ["shield", t("look.business.factNoAppTitle"), t("look.business.factNoAppBody")],
  ] as const;
  const pricing = [
    t("business.starterCalls"),
    t("business.pricingUnlimited"),
    t("business.pricingLink"),
    t("business.pricingVoice"),
    // "Real-time analytics" and "Priority support" come back when they exist (issue 17).
  ];
  return (
    <PageShell>
      <PageHeader
        eyebrow={t("business.eyebrow")}
        title={t("business.title")}
        intro={<p>{t("business.intro")}</p>}
        actions={
          <>
            <Link to="/get-started" className={buttonClass()}>
              {t("nav.getStarted")}
            </Link>
            <a href="#demo" className={buttonClass("secondary")}>
              {t("look.business.tryDemo")}
            </a>
          </>
        }
        illustration={<BookingCallIllustration />}
      />
      <ul aria-label={t("look.business.glanceLabel")} className="-mt-4 mb-12 flex flex-wrap gap-2">
        {[t("look.business.glancePrice"), t("look.business.glanceLanguages"), t("look.business.glanceNoApp")].map((fact) => (
          <li key={fact}>
            <Badge tone="info">{isolateNumbers(fact)}</Badge>
          </li>
        ))}
      </ul>

      <Card as="section" id="demo" tone="brand" aria-labelledby="demo-title" className="scroll-mt-6">
        <h2 id="demo-title" className="text-2xl font-semibold text-ink">
          {t("demo.title")}
        </h2>
        <p className="mt-1 text-ink-soft">{t("demo.intro")}</p>
        <CallsUnavailable reason={unavailable} className="mt-4" />
        <Form method="post" noValidate className="mt-4 flex flex-wrap items-end gap-3">
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
            hint={isolateNumbers(t("demo.phoneHint"))}
            className="min-w-64 flex-1"
          />
          <Button
            type="submit"
            disabled={calling || Boolean(unavailable)}
            aria-describedby={unavailable ? CALLS_UNAVAILABLE_ID : undefined}
            data-busy-label={t("demo.calling")}
          >
            {calling ? t("demo.calling") : t("demo.submit")}
          </Button>
        </Form>
      </Card>

      <section aria-labelledby="facts-title" className="py-14">
        <h2 id="facts-title" className="text-2xl font-semibold text-ink sm:text-3xl">
          {t("look.business.factsTitle")}
        </h2>
        <ul className="mt-6 grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
          {facts.map(([icon, title, body]) => (
            <Card as="li" key={title}>
              <span className="flex size-10 items-center justify-center rounded-xl bg-teal-50 text-teal-800">
                <Icon name={icon} />
              </span>
              <h3 className="mt-4 font-semibold text-ink">{isolateNumbers(title)}</h3>
              <p className="mt-1 text-ink-soft">{isolateNumbers(body)}</p>
            </Card>
          ))}
        </ul>
      </section>

      <div className="grid gap-6 lg:grid-cols-2">
        <Card as="section" aria-labelledby="pricing-title">
          <h2 id="pricing-title" className="text-2xl font-semibold text-ink">
            {t("business.pricingTitle")}
          </h2>
          <p className="mt-4 text-4xl font-semibold text-ink">
            <bdi dir="ltr">$1</bdi>{" "}
            <span className="text-base font-normal text-ink-muted">{isolateNumbers(t("business.pricingStarter"))}</span>
          </p>
          <ul className="mt-4 space-y-2 text-ink-soft">
            {pricing.map((item) => (
              <li key={item} className="flex gap-2">
                <Icon name="check" className="mt-0.5 size-5 text-teal-700" />
                {isolateNumbers(item)}
              </li>
            ))}
          </ul>
          <p className="mt-4 rounded-lg bg-sand-50 p-3 text-sm text-ink-soft">{isolateNumbers(t("business.starterThen"))}</p>
          <Link to="/get-started" className={`${buttonClass()} mt-6 w-full`}>
            {isolateNumbers(t("business.startFor"))}
          </Link>
        </Card>

        <Card as="section" aria-labelledby="business-how-title">
          <h2 id="business-how-title" className="text-2xl font-semibold text-ink">
            {t("home.howTitle")}
          </h2>
          <ol className="mt-4 space-y-5">
            {steps.map(([title, body], index) => (
              <li key={title} className="flex gap-3">
                <span
                  aria-hidden="true"
                  className="flex size-8 shrink-0 items-center justify-center rounded-full bg-teal-700 font-semibold text-white"
                >
                  {index + 1}
                </span>
                <div>
                  <h3 className="font-semibold text-ink">{title}</h3>
                  <p className="text-ink-soft">{body}</p>
                </div>
              </li>
            ))}
          </ol>
          <p className="mt-6 text-sm text-ink-muted">
            {t("look.business.haveAccount")}{" "}
            <Link to="/login" className={linkClass}>
              {t("nav.login")}
            </Link>
          </p>
        </Card>
      </div>
    </PageShell>
  );
}
