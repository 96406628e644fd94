import { data, useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/preferences";
import { commitSubscriberLogout } from "~/features/auth/auth.server";
import { ConsumerRefused } from "~/features/subscriptions/dashboard-page";
import { checkPreferences, refusedPage, subscriberFor } from "~/features/subscriptions/access.server";
import { timeZoneOptions } from "~/features/subscriptions/plans";
import { profileOf } from "~/features/subscriptions/api.server";
import { deleteAccount, savePreferences } from "~/features/subscriptions/account.server";
import { SCHEDULE_TYPES } from "~/features/subscriptions/schedule";
import { callLanguages } from "~/lib/languages";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { isolateNumbers } from "~/ui/bidi";
import { Button, buttonClass } from "~/ui/form/button";
import { Card } from "~/ui/card";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { Field, SelectField } from "~/ui/form/field";
import { FocusHeading } from "~/ui/form/focus";

/** /preferences?userId=N (spec screen 5): when and how the subscriber is called; deleting the account. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) return refusedPage(t, access.reason);

  return {
    kind: "ok" as const,
    title: `${t("subscribe.prefs.title")} · Sakina`,
    userId: access.subscriber.id,
    profile: profileOf(access.subscriber),
  };
}

export async function action({ request, url, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const access = await subscriberFor(services, request, url.searchParams.get("userId"));
  if (!access.ok) throw data(null, { status: 403 });
  const form = Object.fromEntries(await request.formData());
  if (form.intent === "delete") {
    if (form.confirm !== "on")
      return data({ fields: { confirm: [t("subscribe.prefs.deleteConfirmRequired")] } as Record<string, string[]> }, { status: 400 });
    await deleteAccount(services, access.subscriber);
    const cookie = await commitSubscriberLogout(services, request);
    const response = await redirectWithToast(services, "/", { type: "success", title: t("subscribe.prefs.deleted") });
    response.headers.append("Set-Cookie", cookie);
    return response;
  }
  const checked = checkPreferences(t, form);
  if (!checked.ok) return data({ fields: checked.fields }, { status: 400 });
  await savePreferences(services, access.subscriber, checked.value);
  return redirectWithToast(services, `/preferences?userId=${access.subscriber.id}`, { type: "success", title: t("subscribe.prefs.saved") });
}

export default function Preferences({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  if (loaderData.kind === "consumer-refused") return <ConsumerRefused title={loaderData.title} invalid={loaderData.invalid} />;
  const { profile, userId } = loaderData;
  const fields = (actionData?.fields ?? {}) as Record<string, string[] | undefined>;
  const here = `/preferences?userId=${userId}`;
  return (
    <div className="mx-auto max-w-2xl px-4 py-10 sm:py-14">
      <PageTitle title={loaderData.title} error={Object.keys(fields).length > 0} />
      <Link to={`/dashboard?userId=${userId}`} className={buttonClass("secondary")}>
        {t("subscribe.prefs.backToDashboard")}
      </Link>
      <FocusHeading level={1} className="mt-6 text-3xl font-semibold tracking-tight text-slate-900">
        {t("subscribe.prefs.title")}
      </FocusHeading>
      <p className="mt-2 text-slate-700">{t("subscribe.prefs.intro")}</p>
      <Card className="mt-6">
        <Form method="post" action={here} className="space-y-5" noValidate>
          <AuthenticityTokenInput />
          <ErrorSummary
            problems={problemsOf([
              { id: "pref-language", errors: fields.preferredLanguage },
              { id: "pref-voice", errors: fields.voiceGender },
              { id: "pref-schedule", errors: fields.callScheduleType },
              { id: "pref-time", errors: fields.preferredCallTime },
              { id: "pref-zone", errors: fields.timeZone },
            ])}
          />
          <SelectField
            label={t("subscribe.prefs.language")}
            id="pref-language"
            name="preferredLanguage"
            defaultValue={profile.preferredLanguage}
            errors={fields.preferredLanguage}
          >
            {callLanguages.map((language) => (
              <option key={language.code} value={language.code} lang={language.code}>
                {language.nativeName}
              </option>
            ))}
          </SelectField>
          <SelectField
            label={t("subscribe.prefs.voice")}
            id="pref-voice"
            name="voiceGender"
            defaultValue={profile.voiceGender}
            errors={fields.voiceGender}
          >
            <option value="female">{t("subscribe.prefs.voiceFemale")}</option>
            <option value="male">{t("subscribe.prefs.voiceMale")}</option>
          </SelectField>
          <SelectField
            label={t("subscribe.prefs.schedule")}
            id="pref-schedule"
            name="callScheduleType"
            defaultValue={profile.callScheduleType}
            errors={fields.callScheduleType}
          >
            {SCHEDULE_TYPES.map((type) => (
              <option key={type} value={type}>
                {t(`subscribe.prefs.schedule_${type}`)}
              </option>
            ))}
          </SelectField>
          <Field
            label={t("subscribe.prefs.time")}
            id="pref-time"
            name="preferredCallTime"
            dir="ltr"
            inputMode="numeric"
            pattern="[0-2][0-9]:[0-5][0-9]"
            hint={isolateNumbers(t("subscribe.prefs.timeHint"))}
            defaultValue={profile.preferredCallTime}
            errors={fields.preferredCallTime}
          />
          <SelectField
            label={t("subscribe.prefs.zone")}
            id="pref-zone"
            name="timeZone"
            defaultValue={profile.timezone}
            errors={fields.timeZone}
          >
            {(timeZoneOptions as readonly string[]).includes(profile.timezone) ? null : (
              <option value={profile.timezone}>{profile.timezone}</option>
            )}
            {timeZoneOptions.map((zone) => (
              <option key={zone} value={zone}>
                {zone.replace(/_/g, " ")}
              </option>
            ))}
          </SelectField>
          <label className="flex items-start gap-3">
            <input type="checkbox" name="callReminders" defaultChecked={profile.callReminders} className="mt-1 size-5" />
            <span className="text-slate-900">{t("subscribe.prefs.reminders")}</span>
          </label>
          <Button type="submit" disabled={navigation.state !== "idle"}>
            {t("subscribe.prefs.save")}
          </Button>
        </Form>
      </Card>
      <Card className="mt-6">
        <h2 className="text-lg font-semibold text-slate-900">{t("subscribe.prefs.deleteTitle")}</h2>
        <p className="mt-1 text-slate-700">{t("subscribe.prefs.deleteIntro")}</p>
        <Form method="post" noValidate action={here} className="mt-3 space-y-3">
          <AuthenticityTokenInput />
          <label className="flex items-start gap-3">
            <input
              type="checkbox"
              id="delete-confirm"
              name="confirm"
              className="mt-1 size-5"
              aria-invalid={fields.confirm ? true : undefined}
              aria-describedby={fields.confirm ? "delete-confirm-error" : undefined}
            />
            <span className="text-slate-900">{t("subscribe.prefs.deleteConfirm")}</span>
          </label>
          {fields.confirm ? (
            <p id="delete-confirm-error" className="text-sm font-medium text-rose-800">
              {fields.confirm[0]}
            </p>
          ) : null}
          <Button type="submit" name="intent" value="delete" variant="danger">
            {t("subscribe.prefs.deleteButton")}
          </Button>
        </Form>
      </Card>
    </div>
  );
}
