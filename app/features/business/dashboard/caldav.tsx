import { Form } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { Field } from "~/ui/form/field";
import { errorsFor, submittedValue, type DashboardActionData } from "~/features/business/dashboard/types";

/** Stand-ins for the address and the name in the translated sentence, replaced by <bdi> elements. */
const CALENDAR_SLOT = "[[calendar]]";
const USERNAME_SLOT = "[[username]]";
const SLOTS = /(\[\[calendar\]\]|\[\[username\]\])/;

export interface CalendarConnectionView {
  calendarUrl: string;
  username: string;
  lastSync: string | null;
  failure: { when: string; problem: string } | null;
  waitingWrites: number;
}

/**
 * The owner's own CalDAV calendar (issue 47): the connection's state (where, as whom, the last
 * successful sync, the last failure and the writes still waiting), and the form that connects it,
 * checked by the server before it is saved. A plain form: it works without JavaScript.
 */
export function CalDavPanel({ calendar, actionData }: { calendar: CalendarConnectionView | null; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  const intent = "connect-calendar";
  const err = (field: string) => errorsFor(actionData, intent, field);
  const refused = Boolean(actionData && actionData.intent === intent && !actionData.ok);
  const form = (
    <Form method="post" noValidate className="mt-4 grid gap-4 sm:grid-cols-2">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value={intent} />
      <Field
        id="caldav-url"
        label={t("caldav.url")}
        hint={t("caldav.urlHint")}
        name="calendarUrl"
        type="url"
        inputMode="url"
        autoComplete="url"
        required
        maxLength={500}
        defaultValue={submittedValue(actionData, intent, "calendarUrl") ?? calendar?.calendarUrl ?? ""}
        errors={err("calendarUrl")}
        className="sm:col-span-2"
      />
      <Field
        id="caldav-username"
        label={t("caldav.username")}
        name="calendarUsername"
        autoComplete="username"
        autoCapitalize="none"
        spellCheck={false}
        dir="ltr"
        required
        maxLength={200}
        defaultValue={submittedValue(actionData, intent, "calendarUsername") ?? calendar?.username ?? ""}
        errors={err("calendarUsername")}
      />
      <Field
        id="caldav-password"
        label={t("caldav.password")}
        hint={t("caldav.passwordHint")}
        name="calendarPassword"
        type="password"
        autoComplete="current-password"
        required
        maxLength={500}
        errors={err("calendarPassword")}
      />
      <div>
        <Button type="submit">{t("caldav.connect")}</Button>
      </div>
    </Form>
  );
  return (
    <section aria-labelledby="caldav-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 id="caldav-title" className="text-lg font-semibold text-slate-900">
        {t("caldav.title")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t("caldav.intro")}</p>
      {calendar ? (
        <>
          <div id="caldav-status" className="mt-4 space-y-1 text-sm text-slate-800">
            <p>
              {/* The address and the name are left-to-right text in any page: each in a <bdi> of its own. */}
              {t("caldav.connected", { calendar: CALENDAR_SLOT, username: USERNAME_SLOT })
                .split(SLOTS)
                .map((part, i) =>
                  part === CALENDAR_SLOT ? (
                    <bdi key={i} dir="ltr" className="break-all">
                      {calendar.calendarUrl}
                    </bdi>
                  ) : part === USERNAME_SLOT ? (
                    <bdi key={i} dir="ltr">
                      {calendar.username}
                    </bdi>
                  ) : (
                    part
                  ),
                )}
            </p>
            <p>{calendar.lastSync ? t("caldav.lastSync", { when: calendar.lastSync }) : t("caldav.neverSynced")}</p>
            {calendar.failure ? (
              <p className="rounded-lg border border-amber-300 bg-amber-50 p-2 text-amber-950">
                {t("caldav.failing", { when: calendar.failure.when, problem: calendar.failure.problem })}
              </p>
            ) : null}
            {calendar.waitingWrites > 0 ? <p>{t("caldav.waiting", { count: calendar.waitingWrites })}</p> : null}
          </div>
          <Form method="post" className="mt-3">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="disconnect-calendar" />
            <Button type="submit" variant="secondary">
              {t("caldav.disconnect")}
            </Button>
          </Form>
          <details className="mt-4 border-t border-slate-200 pt-4" open={refused}>
            <summary className="cursor-pointer font-medium text-teal-800">{t("caldav.reconnect")}</summary>
            {form}
          </details>
        </>
      ) : (
        form
      )}
    </section>
  );
}
