import { getFormProps, useForm } from "@conform-to/react";
import { useRef, useState, type ReactNode } from "react";
import { useNavigate, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { CallSummary } from "~/features/empathy/call-summary";
import { CrisisNotice } from "~/ui/crisis-notice";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Steps } from "~/ui/form/steps";
import { StripePayment } from "~/ui/form/stripe-payment";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { Field, SelectField } from "~/ui/form/field";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { isolateNumbers } from "~/ui/bidi";
import { type EmpathyDetailsInput } from "~/features/empathy/schemas";
import { voiceGenders } from "~/features/empathy/offer";
import { callLanguages } from "~/lib/languages";
import { postJson } from "~/lib/stripe-js";
import { CALLS_UNAVAILABLE_ID, CallsUnavailable } from "~/ui/calls-unavailable";
import type { Route } from "../../routes/+types/home";

/** The notice that says payments are not set up (calls are, or that notice would say so first). */
const PAYMENTS_UNAVAILABLE_ID = "payments-unavailable";

/** What the visitor entered at step one, as the cookie keeps it, with the number formatted for people. */
type Draft = NonNullable<Route.ComponentProps["loaderData"]["draft"]>;

export function HomePage({ loaderData, actionData }: Pick<Route.ComponentProps, "loaderData" | "actionData">) {
  const { t } = useTranslation();
  const facts = [t("home.price"), t("home.duration"), t("home.languages"), t("home.anonymous")];
  const steps = [
    [t("home.stepOneTitle"), t("home.stepOneBody")],
    [t("home.stepTwoTitle"), t("home.stepTwoBody")],
    [t("home.stepThreeTitle"), t("home.stepThreeBody")],
  ] as const;
  const current = loaderData.step === "payment" ? 1 : 0;
  return (
    <div className="mx-auto max-w-6xl px-4">
      <section className="grid gap-8 py-10 sm:py-14 lg:grid-cols-5 lg:gap-12">
        <div className="lg:col-span-2">
          <h1 className="text-4xl font-semibold tracking-tight text-slate-900 sm:text-5xl">{t("home.title")}</h1>
          <p className="mt-5 text-lg text-slate-700">{isolateNumbers(t("home.intro"))}</p>
          <ul className="mt-6 flex flex-wrap gap-2" aria-label={t("home.factsLabel")}>
            {facts.map((fact) => (
              <li key={fact} className="rounded-full bg-teal-50 px-3 py-1 text-sm font-medium text-teal-900">
                {isolateNumbers(fact)}
              </li>
            ))}
          </ul>
          <p className="mt-6 rounded-xl bg-slate-100 p-4 text-sm text-slate-800">{t("footer.notMedical")}</p>
          <p className="mt-6 text-sm text-slate-700">
            {t("home.businessBody")}{" "}
            <Link to="/business" className={linkClass}>
              {t("home.businessLink")}
            </Link>
          </p>
        </div>

        <div id="payment" className="scroll-mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-8 lg:col-span-3">
          <h2 className="text-2xl font-semibold text-slate-900">{t("empathy.formTitle")}</h2>
          <div className="mt-4">
            <Steps steps={[t("empathy.stepDetails"), t("empathy.stepPayment"), t("empathy.stepCall")]} current={current} />
          </div>
          <div className="mt-6">
            {/* Said before anything is typed: no call can be placed (or paid for) from this server. */}
            <CallsUnavailable reason={loaderData.callsUnavailable} className="mb-5" />
            {!loaderData.callsUnavailable && !loaderData.paymentsConfigured ? (
              <p
                id={PAYMENTS_UNAVAILABLE_ID}
                role="status"
                className="mb-5 rounded-lg border border-amber-200 bg-amber-50 p-3 text-sm text-amber-950"
              >
                {t("payment.notConfigured")}
              </p>
            ) : null}
            {loaderData.step === "payment" && loaderData.draft ? (
              <PaymentStep
                title={loaderData.title}
                draft={loaderData.draft}
                paymentsConfigured={loaderData.paymentsConfigured}
                callsConfigured={!loaderData.callsUnavailable}
              />
            ) : (
              <DetailsStep
                title={loaderData.title}
                lastResult={actionData}
                draft={loaderData.draft}
                recorded={loaderData.recordCalls}
                unavailableId={
                  loaderData.callsUnavailable ? CALLS_UNAVAILABLE_ID : !loaderData.paymentsConfigured ? PAYMENTS_UNAVAILABLE_ID : null
                }
              />
            )}
          </div>
        </div>
      </section>

      <section aria-labelledby="how-title" className="py-8">
        <h2 id="how-title" className="text-2xl font-semibold text-slate-900">
          {t("home.howTitle")}
        </h2>
        <ol className="mt-6 grid gap-4 sm:grid-cols-3">
          {steps.map(([title, body], index) => (
            <li key={title} className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
              <span
                aria-hidden="true"
                className="flex h-8 w-8 items-center justify-center rounded-full bg-teal-700 font-semibold text-white"
              >
                {index + 1}
              </span>
              <h3 className="mt-3 font-semibold text-slate-900">{isolateNumbers(title)}</h3>
              <p className="mt-1 text-slate-700">{isolateNumbers(body)}</p>
            </li>
          ))}
        </ol>
        <p className="mt-6">
          <Link to="/how-it-works" className={linkClass}>
            {t("home.learnMore")}
          </Link>
        </p>
      </section>

      <section aria-labelledby="subscribe-title" className="py-8">
        <Card tone="warm">
          <h2 id="subscribe-title" className="text-2xl font-semibold text-slate-900">
            {t("home.subscribeTitle")}
          </h2>
          <p className="mt-2 max-w-2xl text-slate-800">{isolateNumbers(t("home.subscribeBody"))}</p>
          <div className="mt-4 flex flex-wrap items-center gap-4">
            <Link to="/subscribe" className={buttonClass()}>
              {t("home.subscribeLink")}
            </Link>
            <Link to="/sign-in" className={linkClass}>
              {t("home.signInLink")}
            </Link>
          </div>
        </Card>
      </section>

      <div className="py-8">
        <CrisisNotice country={loaderData.helpCountry} chooseAction="/" keep={loaderData.step === "payment" ? { step: "payment" } : {}} />
      </div>
    </div>
  );
}

function DetailsStep({
  title,
  lastResult,
  draft,
  recorded,
  unavailableId,
}: {
  title: string;
  lastResult: Route.ComponentProps["actionData"];
  draft: Draft | null;
  recorded: boolean;
  /** The notice saying why no call can be had here: the button is disabled and points to it. */
  unavailableId: string | null;
}) {
  const { t, i18n } = useTranslation();
  // Someone reading the site in Arabic most likely wants to talk in Arabic.
  const defaultLanguage = draft?.language ?? callLanguages.find((language) => language.code === i18n.language)?.id ?? "english";
  const navigation = useNavigation();
  const [form, fields] = useForm<EmpathyDetailsInput>({
    id: "empathy-details",
    lastResult: navigation.state === "idle" ? lastResult : null,
    defaultValue: {
      phone: draft?.shownPhone ?? "",
      language: defaultLanguage,
      voice: draft?.voice ?? "female",
      email: draft?.email ?? "",
    },
    // Checked by the action only, with and without JavaScript: the rules (zod) stay out of the
    // home page's JavaScript; the errors come back as its reply.
    shouldValidate: "onSubmit",
  });
  const busy = navigation.state === "submitting";
  const voiceErrorId = `${fields.voice.id}-error`;
  const problems = problemsOf([fields.phone, fields.language, fields.voice, fields.email, fields.adult, fields.recording]);
  return (
    <Form method="post" {...getFormProps(form)} noValidate className="space-y-5">
      <PageTitle title={title} error={problems.length > 0 || Boolean(form.errors?.length)} />
      <AuthenticityTokenInput />
      <ErrorSummary problems={problems} formErrors={form.errors ?? []} />
      <FocusHeading key="details" level={3} className="text-lg font-semibold text-slate-900">
        {t("empathy.stepDetails")}
      </FocusHeading>
      <Field
        label={t("empathy.phone")}
        id={fields.phone.id}
        name={fields.phone.name}
        type="tel"
        required
        autoComplete="tel"
        inputMode="tel"
        defaultValue={fields.phone.initialValue}
        errors={fields.phone.errors}
        hint={isolateNumbers(t("empathy.phoneHint"))}
      />
      <SelectField
        label={t("empathy.language")}
        id={fields.language.id}
        name={fields.language.name}
        defaultValue={fields.language.initialValue ?? defaultLanguage}
        errors={fields.language.errors}
      >
        {callLanguages.map((language) => (
          <option key={language.id} value={language.id} lang={language.code}>
            {language.nativeName === language.name ? language.name : `${language.nativeName} (${language.name})`}
          </option>
        ))}
      </SelectField>
      <fieldset aria-describedby={fields.voice.errors?.length ? voiceErrorId : undefined}>
        <legend className="block text-sm font-medium text-slate-800">{t("empathy.voice")}</legend>
        <div className="mt-2 grid grid-cols-2 gap-3">
          {voiceGenders.map((gender, index) => (
            <label
              key={gender}
              className="flex cursor-pointer items-center gap-3 rounded-lg border border-slate-300 p-3 has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50"
            >
              <input
                type="radio"
                // The error summary links to the group's first choice.
                id={index === 0 ? fields.voice.id : undefined}
                name={fields.voice.name}
                value={gender}
                defaultChecked={(fields.voice.initialValue ?? "female") === gender}
                className="h-4 w-4 accent-teal-700"
              />
              <span className="text-slate-900">{t(`empathy.voice_${gender}`)}</span>
            </label>
          ))}
        </div>
        {fields.voice.errors?.length ? (
          <p id={voiceErrorId} className="mt-1 text-sm font-medium text-rose-700">
            {fields.voice.errors[0]}
          </p>
        ) : null}
      </fieldset>
      <Field
        label={`${t("empathy.email")} (${t("common.optional")})`}
        id={fields.email.id}
        name={fields.email.name}
        type="email"
        autoComplete="email"
        defaultValue={fields.email.initialValue}
        errors={fields.email.errors}
        hint={t("empathy.emailHint")}
      />
      <div className="rounded-xl bg-slate-50 p-4 text-sm text-slate-800">
        <h3 className="font-semibold text-slate-900">{t(recorded ? "empathy.recordingTitle" : "empathy.transcriptTitle")}</h3>
        <p className="mt-1">{isolateNumbers(t(recorded ? "empathy.recordingNotice" : "empathy.transcriptNotice"))}</p>
      </div>
      <Checkbox id={fields.adult.id} name={fields.adult.name} label={isolateNumbers(t("empathy.adult"))} errors={fields.adult.errors} />
      <Checkbox
        id={fields.recording.id}
        name={fields.recording.name}
        label={t(recorded ? "empathy.recordingAccept" : "empathy.transcriptAccept")}
        errors={fields.recording.errors}
      />
      <Button
        type="submit"
        disabled={busy || Boolean(unavailableId)}
        aria-describedby={unavailableId ?? undefined}
        className="w-full"
        data-busy-label={t("common.sending")}
      >
        {busy ? t("common.sending") : isolateNumbers(t("empathy.continue"))}
      </Button>
    </Form>
  );
}

function Checkbox({ id, name, label, errors }: { id: string; name: string; label: ReactNode; errors?: string[] }) {
  const errorId = `${id}-error`;
  return (
    <div>
      <div className="flex items-start gap-3">
        <input
          id={id}
          name={name}
          type="checkbox"
          required
          aria-invalid={errors?.length ? true : undefined}
          aria-describedby={errors?.length ? errorId : undefined}
          className="mt-1 h-4 w-4 shrink-0 accent-teal-700"
        />
        <label htmlFor={id} className="text-sm text-slate-800">
          {label}
        </label>
      </div>
      {errors?.length ? (
        <p id={errorId} className="mt-1 ms-7 text-sm font-medium text-rose-700">
          {errors[0]}
        </p>
      ) : null}
    </div>
  );
}

type Phase = { kind: "paying" } | { kind: "placing" } | { kind: "call-error"; message: string; statusUrl: string | null };

function PaymentStep({
  title,
  draft,
  paymentsConfigured,
  callsConfigured,
}: {
  title: string;
  draft: Draft;
  paymentsConfigured: boolean;
  callsConfigured: boolean;
}) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [phase, setPhase] = useState<Phase>({ kind: "paying" });
  // One PaymentIntent per visit to this step: a declined card is retried on the same one.
  const intent = useRef<Promise<{ clientSecret: string; paymentIntentId: string; statusUrl: string }> | null>(null);
  const language = callLanguages.find((entry) => entry.id === draft.language) ?? callLanguages[0];

  function createIntent() {
    intent.current ??= postJson<{ clientSecret: string; paymentIntentId: string; statusUrl: string }>("/api/create-payment-intent", {
      amount: 5,
      phone: draft.phone,
      language: draft.language,
      voice: draft.voice,
      email: draft.email ?? "",
      adult: true,
      recordingAccepted: true,
    }).catch((error) => {
      intent.current = null;
      throw error;
    });
    return intent.current;
  }

  async function startCall(paymentIntentId: string) {
    setPhase({ kind: "placing" });
    const statusUrl = (await intent.current)?.statusUrl ?? null;
    const response = await fetch("/api/empathy/start-call", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      credentials: "same-origin",
      body: JSON.stringify({ phone: draft.phone, language: draft.language, paymentIntentId }),
    });
    const body = (await response.json().catch(() => ({}))) as { statusUrl?: string; error?: string; code?: string };
    // Already used: the webhook got there first, which is just as good.
    if (response.ok || body.code === "already_used") {
      navigate(body.statusUrl ?? statusUrl ?? "/");
      return;
    }
    setPhase({ kind: "call-error", message: body.error ?? t("empathy.callErrorBody"), statusUrl });
  }

  const checkoutForm = (
    <Form method="post" noValidate>
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="checkout" />
      <Button type="submit" className="w-full">
        {isolateNumbers(t("empathy.payCheckout"))}
      </Button>
    </Form>
  );

  const unavailable = !paymentsConfigured ? t("payment.notConfigured") : !callsConfigured ? t("empathy.callsNotConfigured") : null;
  return (
    <div className="space-y-6">
      <PageTitle title={title} />
      <section aria-labelledby="summary-title">
        <FocusHeading key="payment" level={3} id="summary-title" className="text-lg font-semibold text-slate-900">
          {t("empathy.summaryTitle")}
        </FocusHeading>
        <CallSummary className="mt-3" phone={draft.shownPhone} language={language.nativeName} voice={draft.voice} />
      </section>

      {unavailable ? (
        // The button is there, disabled, with the reason beside it: nobody can pay for a call that cannot be placed.
        <div className="space-y-3">
          <p id="pay-unavailable" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
            {unavailable}
          </p>
          <Button type="button" disabled aria-describedby="pay-unavailable" className="w-full">
            {isolateNumbers(t("empathy.pay"))}
          </Button>
        </div>
      ) : phase.kind === "placing" ? (
        <div role="status" className="rounded-xl bg-emerald-50 p-5 text-emerald-950">
          <p className="font-semibold">{t("payment.successTitle")}</p>
          <p className="mt-1 flex items-center gap-2">
            <span aria-hidden="true" className="h-4 w-4 animate-spin rounded-full border-2 border-emerald-700 border-t-transparent" />
            {t("empathy.placing")}
          </p>
        </div>
      ) : phase.kind === "call-error" ? (
        <div role="alert" className="rounded-xl bg-rose-50 p-5 text-rose-950">
          <p className="font-semibold">{t("empathy.callErrorTitle")}</p>
          <p className="mt-1">{phase.message}</p>
          <p className="mt-1">{isolateNumbers(t("empathy.paymentKept"))}</p>
          {phase.statusUrl ? (
            <Link to={phase.statusUrl} className={`${buttonClass()} mt-4`}>
              {t("empathy.openStatus")}
            </Link>
          ) : null}
        </div>
      ) : (
        <section aria-labelledby="pay-title" className="space-y-3">
          <h3 id="pay-title" className="text-lg font-semibold text-slate-900">
            {t("empathy.payTitle")}
          </h3>
          <StripePayment
            payLabel={isolateNumbers(t("empathy.pay"))}
            fallback={checkoutForm}
            showExpressCheckout
            deferred={{ amount: 500, currency: "usd" }}
            createIntent={createIntent}
            onPaid={startCall}
          />
          <p className="text-xs text-slate-600">{t("empathy.secureNote")}</p>
        </section>
      )}

      {phase.kind === "paying" ? (
        <Link to="/" className={buttonClass("secondary")}>
          {t("empathy.back")}
        </Link>
      ) : null}
    </div>
  );
}
