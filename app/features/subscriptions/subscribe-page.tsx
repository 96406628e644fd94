import { PaymentsNotConfigured } from "~/ui/payments-not-configured";
import { useNavigate, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "../../routes/+types/subscribe";
import { callFrequencies, PLAN_CURRENCY, PLAN_PRICE_CENTS, type CallFrequency } from "./plans";
import { postJson } from "~/lib/stripe-js";
import { formatMoney } from "~/lib/money";
import { Ltr, Money, isolateNumbers, tIsolated } from "~/ui/bidi";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field } from "~/ui/form/field";
import { FocusHeading } from "~/ui/form/focus";
import { Steps } from "~/ui/form/steps";
import { StripePayment } from "~/ui/form/stripe-payment";

export function SubscribePage({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { t, i18n } = useTranslation();
  const steps = [t("subscribe.steps.form"), t("subscribe.steps.payment"), t("subscribe.steps.success")];
  const hasErrors = Boolean(actionData && (actionData.formError || Object.keys(actionData.fields).length > 0));
  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:py-14">
      <PageTitle
        title={actionData && "checkEmail" in actionData ? `${t("subscribe.checkEmail.title")} · Sakina` : loaderData.title}
        error={hasErrors}
      />
      <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{t("subscribe.title")}</h1>
      <p className="mt-2 text-slate-700">{isolateNumbers(t("subscribe.intro"))}</p>
      <div className="mt-6">
        <Steps steps={steps} current={loaderData.step === "form" ? 0 : 1} />
      </div>
      {actionData && "checkEmail" in actionData ? (
        <CheckEmail email={actionData.checkEmail} />
      ) : loaderData.step === "form" ? (
        <>
          {loaderData.paymentsConfigured ? null : <PaymentsNotConfigured />}
          <DetailsStep actionData={actionData} locale={i18n.language} />
        </>
      ) : (
        <PaymentStep
          pending={loaderData.pending!}
          paymentsConfigured={loaderData.paymentsConfigured}
          formError={actionData?.formError ?? null}
          locale={i18n.language}
        />
      )}
    </div>
  );
}

type ActionData = Route.ComponentProps["actionData"];

function CheckEmail({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <Card tone="brand" className="mt-6">
      <div role="status">
        <FocusHeading key="check-email" level={2} className="text-xl font-semibold">
          {t("subscribe.checkEmail.title")}
        </FocusHeading>
        <p className="mt-2">{tIsolated(t, "subscribe.checkEmail.body", { email: <Ltr>{email}</Ltr> })}</p>
      </div>
    </Card>
  );
}

function DetailsStep({ actionData, locale }: { actionData: ActionData; locale: string }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const fields = (actionData?.fields ?? {}) as Record<string, string[] | undefined>;
  const values = (actionData?.values ?? {}) as Record<string, string | undefined>;
  const chosen = values.callFrequency || "twice_weekly";
  const problems = problemsOf([
    { id: "sub-name", errors: fields.fullName },
    { id: "sub-email", errors: fields.email },
    { id: "sub-phone", errors: fields.phone },
    { id: "sub-frequency-weekly", errors: fields.callFrequency },
  ]);
  return (
    <Card className="mt-6">
      <FocusHeading key="form" level={2} className="text-xl font-semibold text-slate-900">
        {t("subscribe.steps.form")}
      </FocusHeading>
      <Form method="post" className="mt-4 space-y-5" noValidate>
        <AuthenticityTokenInput />
        <ErrorSummary problems={problems} formErrors={[actionData?.formError]} />
        <Field
          label={t("subscribe.fullName")}
          id="sub-name"
          name="fullName"
          autoComplete="name"
          required
          defaultValue={values.fullName}
          errors={fields.fullName}
        />
        <Field
          label={t("subscribe.emailLabel")}
          id="sub-email"
          name="email"
          type="email"
          autoComplete="email"
          required
          hint={t("subscribe.emailHint")}
          defaultValue={values.email}
          errors={fields.email}
          errorAction={
            actionData && "signIn" in actionData ? (
              <Link to="/sign-in" className={linkClass}>
                {t("subscribe.signInInstead")}
              </Link>
            ) : null
          }
        />
        <Field
          label={t("subscribe.phone")}
          id="sub-phone"
          name="phone"
          type="tel"
          dir="ltr"
          autoComplete="tel"
          required
          hint={isolateNumbers(t("subscribe.phoneHint"))}
          defaultValue={values.phone}
          errors={fields.phone}
        />
        <fieldset aria-describedby={fields.callFrequency ? "sub-frequency-error" : undefined}>
          <legend className="font-medium text-slate-900">{t("subscribe.frequency")}</legend>
          <div className="mt-2 grid gap-2 sm:grid-cols-3">
            {callFrequencies.map((frequency) => (
              <label
                key={frequency}
                className="flex cursor-pointer flex-col rounded-xl border border-slate-300 bg-white p-3 has-[:checked]:border-teal-700 has-[:checked]:ring-2 has-[:checked]:ring-teal-700"
              >
                <span className="flex items-center gap-2 font-medium text-slate-900">
                  <input
                    type="radio"
                    id={`sub-frequency-${frequency}`}
                    name="callFrequency"
                    value={frequency}
                    defaultChecked={chosen === frequency}
                  />
                  {t(`subscribe.frequency_${frequency}`)}
                </span>
                <span className="ms-6 text-sm text-slate-700">
                  {tIsolated(t, "subscribe.perMonth", {
                    price: <Money cents={PLAN_PRICE_CENTS[frequency]} currency={PLAN_CURRENCY} locale={locale} />,
                  })}
                </span>
              </label>
            ))}
          </div>
          {fields.callFrequency ? (
            <p id="sub-frequency-error" className="mt-1 text-sm font-medium text-rose-800">
              {fields.callFrequency[0]}
            </p>
          ) : null}
        </fieldset>
        <p className="text-sm text-slate-700">
          {tIsolated(t, "subscribe.trialNote", {
            // The plan's price depends on the frequency chosen above: the note gives the range.
            price: (
              <Ltr>{`${formatMoney(PLAN_PRICE_CENTS.weekly, PLAN_CURRENCY, locale)}–${formatMoney(PLAN_PRICE_CENTS.every_two_days, PLAN_CURRENCY, locale)}`}</Ltr>
            ),
          })}
        </p>
        <Button type="submit" className="w-full" disabled={navigation.state === "submitting"}>
          {navigation.state === "submitting" ? t("common.sending") : t("subscribe.continue")}
        </Button>
      </Form>
      <p className="mt-4 text-sm text-slate-700">
        <Link to="/sign-in" className={linkClass}>
          {t("subscribe.signIn.title")}
        </Link>
      </p>
    </Card>
  );
}

function PaymentStep({
  pending,
  paymentsConfigured,
  formError,
  locale,
}: {
  pending: { fullName: string; email: string; phone: string; callFrequency: CallFrequency };
  paymentsConfigured: boolean;
  formError: string | null;
  locale: string;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const money = <Money cents={PLAN_PRICE_CENTS[pending.callFrequency]} currency={PLAN_CURRENCY} locale={locale} />;
  const checkoutForm = (
    <Form method="post" noValidate className="space-y-2">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="checkout" />
      <p className="text-sm text-slate-700">{t("subscribe.checkoutIntro")}</p>
      <Button type="submit" className="w-full">
        {t("subscribe.checkoutButton")}
      </Button>
    </Form>
  );
  return (
    <Card className="mt-6 space-y-5">
      <FocusHeading key="payment" level={2} className="text-xl font-semibold text-slate-900">
        {t("subscribe.paymentTitle")}
      </FocusHeading>
      <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600">{t("subscribe.fullName")}</dt>
        <dd dir="auto" className="text-slate-900">
          {pending.fullName}
        </dd>
        <dt className="text-slate-600">{t("subscribe.emailLabel")}</dt>
        <dd className="text-slate-900">
          <Ltr>{pending.email}</Ltr>
        </dd>
        <dt className="text-slate-600">{t("subscribe.phone")}</dt>
        <dd className="text-slate-900">
          <Ltr>{pending.phone}</Ltr>
        </dd>
        <dt className="text-slate-600">{t("subscribe.frequency")}</dt>
        <dd className="text-slate-900">
          {t(`subscribe.frequency_${pending.callFrequency}`)} · {tIsolated(t, "subscribe.perMonth", { price: money })}
        </dd>
      </dl>
      <p className="text-slate-700">{tIsolated(t, "subscribe.paymentIntroShort", { price: money })}</p>
      {formError ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm text-rose-800">
          {formError}
        </p>
      ) : null}
      {paymentsConfigured ? (
        <StripePayment
          setup
          payLabel={t("subscribe.saveCard")}
          fallback={checkoutForm}
          createIntent={() => postJson<{ clientSecret: string; userId: number }>("/api/subscription/create", pending)}
          onPaid={(setupIntentId) => navigate(`/subscribe/complete?setup=${encodeURIComponent(setupIntentId)}`)}
        />
      ) : (
        <div className="space-y-3">
          <p id="card-unavailable" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
            {t("payment.notConfigured")}
          </p>
          <Button type="button" disabled aria-describedby="card-unavailable" className="w-full">
            {t("subscribe.saveCard")}
          </Button>
        </div>
      )}
      <Link to="/subscribe" className={buttonClass("secondary")}>
        {t("subscribe.backToDetails")}
      </Link>
    </Card>
  );
}
