import { PaymentsNotConfigured } from "~/ui/payments-not-configured";
import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { useState } from "react";
import { useNavigate, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Steps } from "~/ui/form/steps";
import { StripePayment } from "~/ui/form/stripe-payment";
import { Button, linkClass } from "~/ui/form/button";
import { Field, SelectField } from "~/ui/form/field";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { isolateNumbers, tIsolated } from "~/ui/bidi";
import { industries } from "~/features/business/signup/industries";
import { postJson } from "~/lib/stripe-js";
import { registrationSchema } from "~/features/business/schemas";
import type { Route } from "../../../routes/business/+types/get-started";

export function GetStartedPage({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { t } = useTranslation();
  const steps = [t("register.stepBusiness"), t("register.stepVerify"), t("register.stepPayment")];
  const current = { register: 0, verify: 1, payment: 2, active: 3 }[loaderData.step];
  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:py-14">
      {loaderData.step === "register" ? null : <PageTitle title={loaderData.title} />}
      <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
        {t("register.title")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("register.intro")}</p>
      <div className="mt-6">
        <Steps steps={steps} current={current} />
      </div>
      <div className="mt-8 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8">
        {loaderData.step === "register" && !loaderData.paymentsConfigured ? <PaymentsNotConfigured /> : null}
        {loaderData.step === "register" ? <RegisterForm title={loaderData.title} actionData={actionData} /> : null}
        {loaderData.step === "verify" ? <CheckInbox email={loaderData.email} /> : null}
        {loaderData.step === "payment" && loaderData.business ? (
          <Payment business={loaderData.business} configured={loaderData.paymentsConfigured} />
        ) : null}
        {loaderData.step === "active" ? (
          <div className="space-y-4">
            <p>{t("register.alreadyActive")}</p>
            <Link to="/login" className={linkClass}>
              {t("nav.login")}
            </Link>
          </div>
        ) : null}
      </div>
      <p className="mt-6 text-sm text-slate-700">
        {t("register.haveAccount")}{" "}
        <Link to="/login" className={linkClass}>
          {t("nav.login")}
        </Link>
      </p>
    </div>
  );
}

function RegisterForm({ title, actionData }: { title: string; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "register",
    lastResult: navigation.state === "idle" ? actionData?.reply : null,
    defaultValue: { industry: "service" },
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: registrationSchema(t) }),
  });
  const busy = navigation.state === "submitting";
  const problems = problemsOf([fields.name, fields.ownerName, fields.email, fields.phone, fields.industry]);
  // Shown while the e-mail field still holds the error the server gave it.
  const emailExists = Boolean(actionData?.emailExists && fields.email.errors?.length);
  return (
    <Form method="post" {...getFormProps(form)} noValidate className="space-y-5">
      <PageTitle title={title} error={problems.length > 0 || Boolean(form.errors?.length)} />
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="register" />
      <ErrorSummary problems={problems} formErrors={form.errors ?? []} />
      <FocusHeading key="register" className="text-xl font-semibold text-slate-900">
        {t("register.stepBusiness")}
      </FocusHeading>
      <Field
        label={t("register.name")}
        id={fields.name.id}
        name={fields.name.name}
        required
        autoComplete="organization"
        defaultValue={fields.name.initialValue}
        errors={fields.name.errors}
      />
      <Field
        label={t("register.ownerName")}
        id={fields.ownerName.id}
        name={fields.ownerName.name}
        required
        autoComplete="name"
        defaultValue={fields.ownerName.initialValue}
        errors={fields.ownerName.errors}
      />
      <Field
        label={t("register.email")}
        id={fields.email.id}
        name={fields.email.name}
        type="email"
        required
        autoComplete="email"
        defaultValue={fields.email.initialValue}
        errors={fields.email.errors}
        hint={t("register.emailHint")}
        errorAction={
          emailExists ? (
            <span className="flex flex-wrap gap-x-4 gap-y-1">
              <Link to="/login" className={linkClass}>
                {t("nav.login")}
              </Link>
              <Link to="/forgot-password" className={linkClass}>
                {t("auth.forgot")}
              </Link>
            </span>
          ) : null
        }
      />
      <Field
        label={t("register.phone")}
        id={fields.phone.id}
        name={fields.phone.name}
        type="tel"
        required
        autoComplete="tel"
        defaultValue={fields.phone.initialValue}
        errors={fields.phone.errors}
        hint={isolateNumbers(t("register.phoneHint"))}
      />
      <SelectField
        label={t("register.industry")}
        id={fields.industry.id}
        name={fields.industry.name}
        defaultValue={fields.industry.initialValue ?? "service"}
        errors={fields.industry.errors}
      >
        {industries.map((industry) => (
          <option key={industry} value={industry}>
            {t(`industry.${industry}`)}
          </option>
        ))}
      </SelectField>
      <Button type="submit" disabled={busy} className="w-full sm:w-auto">
        {busy ? t("common.sending") : t("register.submit")}
      </Button>
    </Form>
  );
}

function CheckInbox({ email }: { email: string }) {
  const { t } = useTranslation();
  return (
    <div className="space-y-4">
      <FocusHeading key="verify" className="text-xl font-semibold text-slate-900">
        {t("register.checkInboxTitle")}
      </FocusHeading>
      <p className="text-slate-700">{tIsolated(t, "register.checkInboxBody", { email })}</p>
      <div className="flex flex-wrap gap-3">
        <Form method="post" noValidate>
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="resend" />
          <Button type="submit" variant="secondary">
            {t("register.resend")}
          </Button>
        </Form>
        <Form method="post" noValidate>
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="restart" />
          <Button type="submit" variant="secondary">
            {t("register.restart")}
          </Button>
        </Form>
      </div>
    </div>
  );
}

function Payment({ business, configured }: { business: { id: number; name: string; email: string }; configured: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [done, setDone] = useState(false);
  const checkoutForm = (
    <Form method="post" noValidate>
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="checkout" />
      <Button type="submit" className="w-full">
        {isolateNumbers(t("register.payCheckout"))}
      </Button>
    </Form>
  );
  return (
    <div className="space-y-6">
      <div>
        <FocusHeading key="payment" className="text-xl font-semibold text-slate-900">
          {isolateNumbers(t("register.paymentTitle"))}
        </FocusHeading>
        <p className="mt-1 text-slate-700">{tIsolated(t, "register.paymentFor", { business: business.name })}</p>
      </div>
      <StarterOffer />
      {!configured ? (
        <p role="alert" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
          {t("payment.notConfigured")}
        </p>
      ) : done ? null : (
        <StripePayment
          payLabel={isolateNumbers(t("register.pay"))}
          fallback={checkoutForm}
          createIntent={() => postJson<{ clientSecret: string }>("/api/create-subscription", { businessId: business.id })}
          onPaid={async (paymentIntentId) => {
            const result = await postJson<{ loginEmail: string; bookingLink: string }>("/api/activate-business", {
              businessId: business.id,
              paymentIntentId,
            });
            setDone(true);
            const params = new URLSearchParams({
              email: business.email,
              businessName: business.name,
              loginEmail: result.loginEmail,
              bookingLink: result.bookingLink,
            });
            // The spec's short pause, so the confirmation can be read before the page changes.
            setTimeout(() => navigate(`/setup-complete?${params}`), 1500);
          }}
        />
      )}
      {/* On the page before the payment succeeds, so its message is announced when it arrives. */}
      <div role="status" aria-live="polite">
        {done ? (
          <p className="rounded-lg bg-emerald-50 p-4 font-medium text-emerald-900">
            {t("payment.successTitle")} {t("register.redirecting")}
          </p>
        ) : null}
      </div>
      <Form method="post" noValidate>
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="restart" />
        <button type="submit" className={`${linkClass} text-sm`}>
          {t("register.restart")}
        </button>
      </Form>
    </div>
  );
}

export function StarterOffer() {
  const { t } = useTranslation();
  return (
    <div className="rounded-xl bg-teal-50 p-4 text-teal-950">
      <p className="text-lg font-semibold">{isolateNumbers(t("business.starterHeadline"))}</p>
      <ul className="mt-2 list-disc space-y-1 ps-5 text-sm">
        <li>{isolateNumbers(t("business.starterCalls"))}</li>
        <li>{isolateNumbers(t("business.starterActivation"))}</li>
        <li>{isolateNumbers(t("business.starterDashboard"))}</li>
        <li>{isolateNumbers(t("business.starterThen"))}</li>
      </ul>
    </div>
  );
}
