import { Form, Link } from "~/ui/link";
import { useEffect, useState } from "react";
import { Ltr } from "~/ui/bidi";
import { useNavigation, useRevalidator } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { CallCentreData } from "~/features/business/call-centre.server";
import { Button, linkClass } from "~/ui/form/button";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Field } from "~/ui/form/field";
import { CALLS_UNAVAILABLE_ID, CallsUnavailable } from "~/ui/calls-unavailable";

/**
 * The control centre's body: a test call through the dialling policy, and the recent calls, which
 * follow the server's events with JavaScript (a reload shows the latest without).
 */
export function CallCentre({
  data,
  reply,
  callLinks = false,
}: {
  data: CallCentreData;
  reply?: { error: string; to: string; general?: boolean } | null;
  /** Each call's time links to its page with its quality (the owner's app). */
  callLinks?: boolean;
}) {
  const unavailable = data.callsUnavailable;
  const { t } = useTranslation();
  const navigation = useNavigation();
  const revalidator = useRevalidator();
  const [live, setLive] = useState(false);
  // Live updates: the server says when a call changes; the page then reloads its data.
  useEffect(() => {
    const source = new EventSource("/telephony/events");
    source.addEventListener("open", () => setLive(true));
    source.addEventListener("calls", () => revalidator.revalidate());
    source.addEventListener("error", () => setLive(false));
    return () => source.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one event stream per page; the revalidator changes identity on every render
  }, []);
  return (
    <>
      <p className="mt-4 text-slate-700">
        {t("telephony.provider")}: <strong>{data.provider ?? t("providers.none")}</strong>
      </p>
      <section aria-labelledby="test-call-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 id="test-call-title" className="text-lg font-semibold text-slate-900">
          {t("telephony.testCall")}
        </h2>
        <CallsUnavailable reason={unavailable} className="mt-3" />
        <Form method="post" noValidate className="mt-3 flex flex-wrap items-end gap-3">
          <AuthenticityTokenInput />
          <Field
            label={t("demo.phone")}
            name="to"
            type="tel"
            dir="ltr"
            required
            defaultValue={reply?.to}
            errors={reply?.error && !reply.general ? [reply.error] : null}
            className="min-w-0 flex-1 basis-60"
          />
          <Button
            type="submit"
            disabled={navigation.state === "submitting" || Boolean(unavailable)}
            aria-describedby={unavailable ? CALLS_UNAVAILABLE_ID : undefined}
          >
            {navigation.state === "submitting" ? t("demo.calling") : t("telephony.call")}
          </Button>
        </Form>
      </section>
      <section aria-labelledby="calls-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="calls-title" className="text-lg font-semibold text-slate-900">
            {t("telephony.recent")}
          </h2>
          <p className="text-sm text-slate-600" role="status">
            {live ? t("telephony.live") : t("telephony.refreshHint")}
          </p>
        </div>
        <p className="mt-1 text-sm text-slate-600">{t("owner.calls.zone", { zone: data.zoneName })}</p>
        {data.calls.length === 0 ? (
          <p className="mt-3 text-slate-700">{t("telephony.none")}</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-200">
            {data.calls.map((call) => (
              <li key={call.id} className="grid gap-x-4 gap-y-0.5 py-2.5 text-sm sm:grid-cols-[13rem_1fr_auto]">
                {callLinks ? (
                  <Link to={`/dashboard/calls/${call.id}`} className={`${linkClass} font-medium`}>
                    {call.when}
                  </Link>
                ) : (
                  <span className="font-medium text-slate-900">{call.when}</span>
                )}
                <span className="text-slate-800">
                  {call.purpose}
                  {call.to ? (
                    <>
                      {" · "}
                      <Ltr>{call.to}</Ltr>
                    </>
                  ) : null}
                </span>
                <span className="text-slate-700">
                  {call.status}
                  {call.outcome ? (
                    <>
                      {" · "}
                      <bdi>{call.outcome}</bdi>
                    </>
                  ) : null}
                  {call.duration ? ` · ${call.duration}` : ""}
                </span>
                {call.summary ? (
                  <p className="text-slate-700 sm:col-span-3">
                    <span className="font-medium text-slate-600">{t("owner.bookings.agentSummary")}:</span>{" "}
                    <span dir="auto">{call.summary}</span>
                  </p>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
