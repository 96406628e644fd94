import { Form, Link } from "~/ui/link";
import { bookingWindowOptions, noticeOptions } from "~/features/business/booking-rules";
import { useTranslation } from "~/ui/translation";
import { languageNames, supportedLanguages } from "~/i18n";
import { voiceName } from "~/lib/voices";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { Field, SelectField, TextareaField } from "~/ui/form/field";
import { errorsFor, submittedValue, type BusinessSettings, type DashboardActionData } from "~/features/business/dashboard/types";

export function SettingsSection({ business, actionData }: { business: BusinessSettings; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  const err = (field: string) => errorsFor(actionData, "save-settings", field);
  const val = (field: string, fallback: string) => submittedValue(actionData, "save-settings", field) ?? fallback;
  return (
    <div className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <Form method="post" noValidate className="grid gap-4 sm:grid-cols-2">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="save-settings" />
        <Field
          id="settings-phone"
          label={t("register.phone")}
          name="phone"
          type="tel"
          dir="ltr"
          required
          defaultValue={val("phone", business.phone)}
          errors={err("phone")}
        />
        <Field
          id="settings-address"
          label={t("settings.address")}
          name="address"
          maxLength={200}
          defaultValue={val("address", business.address)}
          errors={err("address")}
        />
        <TextareaField
          id="settings-description"
          label={t("settings.description")}
          name="description"
          rows={2}
          maxLength={500}
          defaultValue={val("description", business.description)}
          errors={err("description")}
          className="sm:col-span-2"
        />
        <SelectField
          id="settings-zone"
          label={t("settings.timeZone")}
          name="timeZone"
          defaultValue={val("timeZone", business.timeZone)}
          errors={err("timeZone")}
        >
          {business.zoneOptions.map((zone) => (
            <option key={zone.value} value={zone.value}>
              {zone.label}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="settings-notice"
          label={t("settings.notice")}
          name="minimumNoticeMinutes"
          defaultValue={val("minimumNoticeMinutes", String(business.minimumNoticeMinutes))}
          errors={err("minimumNoticeMinutes")}
        >
          {noticeOptions.map((minutes) => (
            <option key={minutes} value={minutes}>
              {minutes === 0
                ? t("settings.noNotice")
                : minutes < 60
                  ? t("settings.minutes", { minutes })
                  : minutes === 60
                    ? t("settings.oneHour")
                    : t("settings.hours", { hours: minutes / 60 })}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="settings-window"
          label={t("settings.bookingWindow")}
          name="bookingWindowDays"
          hint={t("settings.bookingWindowHint")}
          defaultValue={val("bookingWindowDays", String(business.bookingWindowDays))}
          errors={err("bookingWindowDays")}
        >
          {bookingWindowOptions.map((days) => (
            <option key={days} value={days}>
              {t("settings.windowDays", { days })}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="settings-page-language"
          label={t("settings.pageLanguage")}
          name="defaultLanguage"
          defaultValue={val("defaultLanguage", business.defaultLanguage)}
          errors={err("defaultLanguage")}
        >
          {supportedLanguages.map((lng) => (
            <option key={lng} value={lng} lang={lng}>
              {languageNames[lng]}
            </option>
          ))}
        </SelectField>
        <SelectField
          id="settings-call-language"
          label={t("settings.callLanguage")}
          name="confirmationLanguage"
          defaultValue={val("confirmationLanguage", business.confirmationLanguage)}
          errors={err("confirmationLanguage")}
        >
          {supportedLanguages.map((lng) => (
            <option key={lng} value={lng} lang={lng}>
              {languageNames[lng]}
            </option>
          ))}
        </SelectField>
        {/* The voice is chosen in one place, the voice settings, where it can be heard first. */}
        <div className="text-sm">
          <p className="font-medium text-slate-900">{t("settings.voice")}</p>
          <p className="mt-1 text-slate-700">
            <bdi>{voiceName(business.confirmationVoice)}</bdi>{" "}
            <Link to="/voice-settings" className="font-medium text-teal-800 underline underline-offset-2">
              {t("settings.voiceChange")}
            </Link>
          </p>
        </div>
        <Field
          id="settings-call-countries"
          label={t("settings.callCountries")}
          hint={t("settings.callCountriesHint")}
          name="callCountries"
          maxLength={400}
          autoCapitalize="characters"
          dir="ltr"
          defaultValue={val("callCountries", business.callCountries)}
          errors={err("callCountries")}
          className="sm:col-span-2"
        />
        <div className="flex items-end">
          <Button type="submit">{t("settings.save")}</Button>
        </div>
      </Form>
    </div>
  );
}

/**
 * The customers' reminders: an e-mail a day before the appointment (on unless the owner turns it
 * off), and an AI reminder call a chosen number of hours before, offered only where this server
 * can place calls.
 */
export function RemindersSection({ business, actionData }: { business: BusinessSettings; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  const callErrors = errorsFor(actionData, "save-reminders", "reminderCallHours");
  return (
    <section aria-labelledby="reminders-title" className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="reminders-title" className="text-lg font-semibold text-slate-900">
        {t("settings.remindersTitle")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t("settings.remindersIntro")}</p>
      <Form method="post" noValidate className="mt-4 space-y-4">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="save-reminders" />
        <div className="flex items-start gap-3">
          <input
            type="checkbox"
            id="settings-reminder-email"
            name="reminderEmail"
            defaultChecked={business.reminderEmail}
            aria-describedby="settings-reminder-email-hint"
            className="mt-1 size-5 accent-teal-700"
          />
          <div>
            <label htmlFor="settings-reminder-email" className="font-medium text-slate-900">
              {t("settings.reminderEmail")}
            </label>
            <p id="settings-reminder-email-hint" className="text-sm text-slate-700">
              {t("settings.reminderEmailHint")}
            </p>
          </div>
        </div>
        {business.reminderCallOffered ? (
          <SelectField
            id="settings-reminder-call"
            label={t("settings.reminderCall")}
            hint={t("settings.reminderCallHint")}
            name="reminderCallHours"
            defaultValue={business.reminderCallHours === null ? "off" : String(business.reminderCallHours)}
            errors={callErrors}
            className="max-w-sm"
          >
            <option value="off">{t("settings.reminderCallOff")}</option>
            {business.reminderCallChoices.map((hours) => (
              <option key={hours} value={hours}>
                {t("settings.reminderCallHours", { hours })}
              </option>
            ))}
          </SelectField>
        ) : (
          <div>
            <p className="text-sm text-slate-700">{t("settings.reminderCallNotOffered")}</p>
            {callErrors?.map((error) => (
              <p key={error} role="alert" className="mt-1 text-sm font-medium text-red-800">
                {error}
              </p>
            ))}
          </div>
        )}
        <Button type="submit">{t("settings.remindersSave")}</Button>
      </Form>
    </section>
  );
}
