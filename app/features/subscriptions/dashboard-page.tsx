import { useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "../../routes/dashboard/+types/dashboard";
import type { DashboardData } from "./dashboard-data.server";
import { daysRemaining, TRIAL_WARNING_DAYS, urgencies } from "./plans";
import { Ltr, UserText, isolateNumbers, tIsolated } from "~/ui/bidi";
import { Badge } from "~/ui/badge";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field, SelectField } from "~/ui/form/field";
import { FocusHeading } from "~/ui/form/focus";

/** What the consumer's dashboard loads: the dashboard, or the page that refuses it. */
export type ConsumerDashboardPageData = Extract<Route.ComponentProps["loaderData"], { kind: "consumer" | "consumer-refused" }>;

/** /dashboard?userId=N: the subscriber's dashboard for the session that owns N, the refusal for anyone else. */
export function ConsumerDashboardPage({
  loaderData,
  actionData,
}: {
  loaderData: ConsumerDashboardPageData;
  actionData: Route.ComponentProps["actionData"];
}) {
  if (loaderData.kind === "consumer-refused") return <ConsumerRefused title={loaderData.title} invalid={loaderData.invalid} />;
  return (
    <ConsumerDashboard
      title={loaderData.title}
      dashboard={loaderData.dashboard}
      price={loaderData.price}
      actionData={actionData && "values" in actionData ? (actionData as never) : null}
    />
  );
}

/** Spec screen 4: status, usage, recent calls, quick actions and what the plan gives. Works without JavaScript. */
export function ConsumerDashboard({
  title,
  dashboard,
  price,
  actionData,
}: {
  title: string;
  dashboard: DashboardData;
  price: string;
  actionData?: { fields?: Record<string, string[] | undefined>; formError?: string; values?: Record<string, string> } | null;
}) {
  const { t, i18n } = useTranslation();
  const navigation = useNavigation();
  const { user } = dashboard;
  const locale = i18n.language;
  const zone = user.timeZone;
  const date = (iso: string) => new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeZone: zone }).format(new Date(iso));
  const dateTime = (iso: string) =>
    new Intl.DateTimeFormat(locale, { dateStyle: "medium", timeStyle: "short", timeZone: zone }).format(new Date(iso));
  const trial = user.subscriptionStatus === "trial";
  const days = daysRemaining(user.trialEndsAt);
  const used = dashboard.callsUsed;
  const percent = dashboard.callLimit ? Math.min(100, Math.round((used / dashboard.callLimit) * 100)) : 0;
  const fields = actionData?.fields ?? {};
  const here = `/dashboard?userId=${user.id}`;
  const busy = navigation.state !== "idle";
  const limitText = dashboard.limitReason
    ? t(`subscribe.limit.${dashboard.limitReason}`, { date: user.billingDate ? date(user.billingDate) : "" })
    : null;
  const limitReached = dashboard.limitReason === "trial_used" || dashboard.limitReason === "month_used";
  // Why a call cannot be asked for: the request just refused, else what the dashboard knows.
  const unavailable = actionData?.formError ?? (!dashboard.canMakeCall ? limitText : null);

  return (
    <div className="mx-auto max-w-4xl px-4 py-8 sm:py-12">
      <PageTitle title={title} error={Object.keys(fields).length > 0 || Boolean(actionData?.formError)} />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <FocusHeading level={1} className="text-3xl font-semibold tracking-tight text-slate-900">
          {tIsolated(t, "subscribe.dash.welcome", { name: user.fullName || user.phone })}
        </FocusHeading>
        <div className="flex flex-wrap gap-3 text-sm">
          <Link to={`/preferences?userId=${user.id}`} className={linkClass}>
            {t("subscribe.dash.preferences")}
          </Link>
          <Form method="post" noValidate action={here}>
            <AuthenticityTokenInput />
            <button type="submit" name="intent" value="sign_out" className={linkClass}>
              {t("subscribe.signIn.signOut")}
            </button>
          </Form>
        </div>
      </div>

      {user.subscriptionStatus === "past_due" ? (
        <div role="alert" className="mt-6 rounded-card border-2 border-rose-700 bg-rose-50 p-4 text-rose-950">
          <p className="font-semibold">{t("subscribe.dash.pastDueTitle")}</p>
          <p className="mt-1 text-sm">{t("subscribe.dash.pastDueBody")}</p>
          <Link to={`/subscription/card?userId=${user.id}`} className={`${buttonClass()} mt-3`}>
            {t("subscribe.dash.updateCard")}
          </Link>
        </div>
      ) : null}

      <div className="mt-6 grid gap-5 md:grid-cols-2">
        <Card>
          <h2 className="text-lg font-semibold text-slate-900">
            {trial ? t("subscribe.dash.trialStatus") : t("subscribe.dash.subscriptionStatus")}
          </h2>
          <p className="mt-2">
            <Badge tone={user.subscriptionStatus === "past_due" || user.subscriptionStatus === "cancelled" ? "warning" : "success"}>
              {t(`subscribe.status.${user.subscriptionStatus as "trial"}`)}
            </Badge>
          </p>
          <p className="mt-2 text-slate-800">
            {trial && days !== null
              ? isolateNumbers(t("subscribe.dash.daysRemaining", { count: days }))
              : user.cancelAtPeriodEnd && user.billingDate
                ? isolateNumbers(t("subscribe.dash.accessUntil", { date: date(user.billingDate) }))
                : user.billingDate
                  ? isolateNumbers(t("subscribe.dash.nextBilling", { date: date(user.billingDate) }))
                  : t("subscribe.dash.notAvailable")}
          </p>
          {trial && days !== null && days <= TRIAL_WARNING_DAYS ? (
            <div className="mt-3 rounded-lg bg-amber-50 p-3 text-amber-950">
              <p className="font-semibold">{t("subscribe.dash.trialEndingSoon")}</p>
              <p className="mt-1 text-sm">{t("subscribe.dash.trialEndingBody")}</p>
              <Form method="post" noValidate action={here} className="mt-2">
                <AuthenticityTokenInput />
                <Button type="submit" name="intent" value="upgrade" disabled={busy}>
                  {t("subscribe.dash.subscribeNow")}
                </Button>
              </Form>
            </div>
          ) : null}
          <p className="mt-3 text-sm text-slate-700">
            {user.nextCallAt
              ? isolateNumbers(t("subscribe.dash.nextCall", { when: dateTime(user.nextCallAt) }))
              : t("subscribe.dash.noNextCall")}
          </p>
        </Card>

        <Card>
          <h2 className="text-lg font-semibold text-slate-900">{t("subscribe.dash.callUsage")}</h2>
          <p className="mt-2 text-slate-800" id="usage-label">
            {isolateNumbers(
              trial
                ? t("subscribe.dash.trialUsed", { used, limit: dashboard.callLimit })
                : t("subscribe.dash.monthUsed", { used, limit: dashboard.callLimit }),
            )}
          </p>
          <div
            role="progressbar"
            aria-labelledby="usage-label"
            aria-valuemin={0}
            aria-valuemax={dashboard.callLimit}
            aria-valuenow={used}
            className="mt-2 h-3 overflow-hidden rounded-full bg-sand-200"
          >
            <div className="h-full rounded-full bg-teal-700" style={{ width: `${percent}%` }} />
          </div>
          <p className="mt-2 text-sm text-slate-700">
            {isolateNumbers(t("subscribe.dash.remaining", { count: dashboard.callsRemaining }))}
          </p>
          {limitReached ? (
            <div className="mt-3 rounded-lg bg-amber-50 p-3 text-amber-950">
              <p className="font-semibold">{t("subscribe.dash.limitReached")}</p>
              <p className="mt-1 text-sm">{isolateNumbers(limitText ?? "")}</p>
              {trial ? (
                <Form method="post" noValidate action={here} className="mt-2">
                  <AuthenticityTokenInput />
                  <Button type="submit" name="intent" value="upgrade" disabled={busy}>
                    {t("subscribe.dash.subscribeForMore")}
                  </Button>
                </Form>
              ) : null}
            </div>
          ) : null}
        </Card>
      </div>

      <Card className="mt-5">
        <h2 id="request-call" className="text-lg font-semibold text-slate-900">
          {t("subscribe.dash.quickActions")}
        </h2>
        <Form method="post" action={here} className="mt-3 space-y-4" noValidate>
          <AuthenticityTokenInput />
          <ErrorSummary
            problems={problemsOf([
              { id: "call-feeling", errors: fields.feeling },
              { id: "call-urgency", errors: fields.urgency },
            ])}
            formErrors={[actionData?.formError]}
          />
          <p className="text-slate-700">{t("subscribe.dash.requestIntro")}</p>
          <div className="grid gap-4 sm:grid-cols-[2fr_1fr]">
            <Field
              label={t("subscribe.dash.feeling")}
              id="call-feeling"
              name="feeling"
              dir="auto"
              maxLength={200}
              hint={t("subscribe.dash.feelingHint")}
              defaultValue={actionData?.values?.feeling}
              errors={fields.feeling}
              required
            />
            <SelectField
              label={t("subscribe.dash.urgencyField")}
              id="call-urgency"
              name="urgency"
              defaultValue={actionData?.values?.urgency || "normal"}
              errors={fields.urgency}
            >
              {urgencies.map((u) => (
                <option key={u} value={u}>
                  {t(`subscribe.dash.urgency.${u}`)}
                </option>
              ))}
            </SelectField>
          </div>
          <p className="text-sm text-slate-700">{t("subscribe.dash.urgentNote")}</p>
          {unavailable ? (
            <p id="call-unavailable" className="rounded-lg bg-amber-50 p-3 text-sm text-amber-950">
              {isolateNumbers(unavailable)}
            </p>
          ) : null}
          <Button
            type="submit"
            name="intent"
            value="request_call"
            disabled={!dashboard.canMakeCall || busy}
            aria-describedby={unavailable ? "call-unavailable" : undefined}
          >
            {t("subscribe.dash.requestCall")}
          </Button>
        </Form>
        <div className="mt-5 flex flex-wrap gap-4 border-t border-sand-200 pt-4">
          {trial ? (
            <Form method="post" noValidate action={here} className="space-y-1">
              <AuthenticityTokenInput />
              <p className="text-sm text-slate-700">
                {isolateNumbers(t("subscribe.dash.upgradeIntro"))} {tIsolated(t, "subscribe.perMonth", { price: <Ltr>{price}</Ltr> })}
              </p>
              <Button type="submit" name="intent" value="upgrade" variant="secondary" disabled={busy}>
                {t("subscribe.dash.upgrade")}
              </Button>
            </Form>
          ) : null}
          {(user.subscriptionStatus === "active" || user.subscriptionStatus === "trial" || user.subscriptionStatus === "past_due") &&
          !user.cancelAtPeriodEnd ? (
            <Form method="post" noValidate action={here} className="space-y-1">
              <AuthenticityTokenInput />
              <p className="text-sm text-slate-700">{t("subscribe.dash.cancelIntro")}</p>
              <Button type="submit" name="intent" value="cancel" variant="secondary" disabled={busy}>
                {t("subscribe.dash.cancel")}
              </Button>
            </Form>
          ) : null}
          {user.cancelAtPeriodEnd && user.subscriptionStatus !== "cancelled" ? (
            <Form method="post" noValidate action={here}>
              <AuthenticityTokenInput />
              <Button type="submit" name="intent" value="resume" variant="secondary" disabled={busy}>
                {t("subscribe.dash.resume")}
              </Button>
            </Form>
          ) : null}
          <Link to={`/subscription/card?userId=${user.id}`} className={`${linkClass} self-end text-sm`}>
            {t("subscribe.dash.updateCard")}
          </Link>
        </div>
      </Card>

      <Card className="mt-5">
        <h2 className="text-lg font-semibold text-slate-900">{t("subscribe.dash.recentCalls")}</h2>
        {dashboard.recentCalls.length === 0 ? (
          <p className="mt-2 text-slate-700">{t("subscribe.dash.noCalls")}</p>
        ) : (
          <ul className="mt-3 divide-y divide-sand-200">
            {dashboard.recentCalls.map((call) => (
              <li key={call.id} className="py-3">
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <p className="font-medium text-slate-900">
                    {call.feeling ? <UserText>{call.feeling}</UserText> : t("subscribe.dash.scheduled")}
                  </p>
                  <Badge tone={call.status === "completed" ? "info" : "neutral"}>{t(`subscribe.dash.callStatus.${call.status}`)}</Badge>
                </div>
                <p className="mt-1 text-sm text-slate-700">
                  <time dateTime={call.createdAt}>{isolateNumbers(dateTime(call.createdAt))}</time> ·{" "}
                  {t("subscribe.dash.urgencyLabel", { urgency: t(`subscribe.dash.urgency.${call.urgency as "normal"}`) })}
                </p>
                {call.summary ? (
                  <div className="mt-2 rounded-lg bg-sand-50 p-3 text-sm">
                    <p className="font-medium text-slate-900">{t("subscribe.dash.summary")}</p>
                    <p className="mt-1 text-slate-800">
                      <UserText>{call.summary}</UserText>
                    </p>
                    <Form method="post" noValidate action={here} className="mt-2">
                      <AuthenticityTokenInput />
                      <input type="hidden" name="supportCallId" value={call.id} />
                      <button type="submit" name="intent" value="delete_summary" className={`${linkClass} text-sm`}>
                        {t("subscribe.dash.deleteSummary")}
                      </button>
                    </Form>
                  </div>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>

      <Card tone="muted" className="mt-5">
        <h2 className="text-lg font-semibold text-slate-900">{t("subscribe.dash.whatYouGet")}</h2>
        <ul className="mt-2 list-disc space-y-1 ps-5 text-slate-800">
          <li>{t("subscribe.dash.benefits.listener")}</li>
          <li>{t("subscribe.dash.benefits.available")}</li>
          <li>{t("subscribe.dash.benefits.judgment")}</li>
          <li>{t("subscribe.dash.benefits.validation")}</li>
        </ul>
        <p className="mt-3 text-sm text-slate-700">{t("subscribe.dash.notMedical")}</p>
      </Card>
    </div>
  );
}

/** A dashboard address that is malformed, not this session's, or unknown: the same page for the last two. */
export function ConsumerRefused({ title, invalid }: { title: string; invalid: boolean }) {
  const { t } = useTranslation();
  return (
    <div className="mx-auto max-w-md px-4 py-12 sm:py-16">
      <PageTitle title={title} />
      <Card>
        <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
          {invalid ? t("subscribe.invalidTitle") : t("subscribe.signInTitle")}
        </FocusHeading>
        <p className="mt-2 text-slate-700">{invalid ? t("subscribe.invalidBody") : t("subscribe.signInBody")}</p>
        <div className="mt-5 flex flex-wrap gap-3">
          <Link to="/sign-in" className={buttonClass()}>
            {t("subscribe.signIn.title")}
          </Link>
          <Link to="/login" className={buttonClass("secondary")}>
            {t("nav.login")}
          </Link>
        </div>
        <p className="mt-4 text-sm text-slate-700">
          {t("subscribe.notSubscribed")}{" "}
          <Link to="/subscribe" className={linkClass}>
            {t("subscribe.startTrial")}
          </Link>
        </p>
      </Card>
    </div>
  );
}
