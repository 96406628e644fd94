import { useEffect, useState } from "react";
import { data, Form, useNavigation, useRevalidator } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/telephony";
import { listRecentCalls } from "#models/calls";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { Button } from "~/ui/button";
import { Field } from "~/ui/field";
import { formatPhone } from "~/lib/phone";
import { refusalMessage, screenNumber } from "~/features/calls/dialling-policy.server";
import { findBusinessById } from "#models/businesses";
import { requireAccount } from "~/features/auth/auth.server";
import { appOrigin } from "~/features/business/onboarding.server";
import { requestCall } from "~/features/calls/engine.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule } from "~/platform/rate-limit.server";
import { redirectWithToast } from "~/platform/toast.server";

/** The control centre: a test call, recent calls with live status, and the provider in use. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request);
  const { t } = getI18n(context);
  const scope = account.role === "admin" ? {} : { businessId: account.businessId ?? -1 };
  const calls = await listRecentCalls(services.db, { ...scope, limit: 25 });
  return {
    title: `${t("telephony.title")} · Sakina`,
    provider: services.telephony.configured ? "Twilio" : null,
    calls: calls.map((c) => ({
      id: c.id,
      purpose: c.purpose,
      to: c.toNumber ? formatPhone(c.toNumber) : "—",
      status: c.status,
      outcome: c.outcome,
      durationSeconds: c.durationSeconds,
      createdAt: c.createdAt.toISOString(),
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request);
  const { t } = getI18n(context);
  const typed = String((await request.formData()).get("to") ?? "");
  if (!services.telephony.configured) return data({ error: t("demo.notConfigured") }, { status: 503 });
  const business = account.businessId ? await findBusinessById(services.db, account.businessId) : null;
  // The test call goes through the same dialling policy as every other call.
  const phone = await screenNumber(services, typed, { path: "test", business, ip: clientIp(context) });
  if (!phone.ok) return data({ error: refusalMessage(t, phone.reason) }, { status: 400 });
  const exceeded = await firstExceededRule(context, [
    { name: "test-call:account", subject: String(account.id), limit: 10, windowSeconds: 3600 },
  ]);
  if (exceeded) return data({ error: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }) }, { status: 429 });
  await requestCall(services, {
    purpose: "test",
    to: phone.e164,
    language: getLocale(context),
    voice: "shimmer",
    businessId: account.businessId,
    origin: appOrigin(services),
  });
  return redirectWithToast(services, "/telephony", { type: "success", title: t("demo.startedTitle"), description: t("demo.startedBody") });
}

export default function Telephony({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation();
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);
  return (
    <div className="mx-auto max-w-5xl space-y-6 px-4 py-10">
      <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{t("telephony.title")}</h1>
      <p className="text-slate-700">
        {t("telephony.provider")}: <strong>{loaderData.provider ?? t("providers.none")}</strong>
      </p>
      <section aria-labelledby="test-call-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h2 id="test-call-title" className="text-lg font-semibold text-slate-900">
          {t("telephony.testCall")}
        </h2>
        <Form method="post" className="mt-3 flex flex-wrap items-end gap-3">
          <AuthenticityTokenInput />
          <Field
            label={t("demo.phone")}
            name="to"
            type="tel"
            required
            errors={actionData?.error ? [actionData.error] : null}
            className="min-w-64 flex-1"
          />
          <Button type="submit" disabled={navigation.state === "submitting"}>
            {navigation.state === "submitting" ? t("demo.calling") : t("telephony.call")}
          </Button>
        </Form>
      </section>
      <section aria-labelledby="calls-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="calls-title" className="text-lg font-semibold text-slate-900">
            {t("telephony.recent")}
          </h2>
          <p className="text-sm text-slate-600" role="status">
            {live ? t("telephony.live") : t("telephony.refreshHint")}
          </p>
        </div>
        {loaderData.calls.length === 0 ? (
          <p className="mt-3 text-slate-700">{t("telephony.none")}</p>
        ) : (
          <div className="mt-3 overflow-x-auto">
            <table className="w-full min-w-[36rem] text-start text-sm">
              <caption className="sr-only">{t("telephony.recent")}</caption>
              <thead>
                <tr className="border-b border-slate-300 text-slate-600">
                  <th scope="col" className="py-2 pe-3 text-start font-medium">
                    {t("bookings.when")}
                  </th>
                  <th scope="col" className="py-2 pe-3 text-start font-medium">
                    {t("telephony.purpose")}
                  </th>
                  <th scope="col" className="py-2 pe-3 text-start font-medium">
                    {t("telephony.to")}
                  </th>
                  <th scope="col" className="py-2 pe-3 text-start font-medium">
                    {t("manage.status")}
                  </th>
                  <th scope="col" className="py-2 text-start font-medium">
                    {t("telephony.duration")}
                  </th>
                </tr>
              </thead>
              <tbody>
                {loaderData.calls.map((call) => (
                  <tr key={call.id} className="border-b border-slate-200">
                    <td className="py-2 pe-3">
                      {new Date(call.createdAt).toLocaleString(i18n.language, { dateStyle: "short", timeStyle: "short" })}
                    </td>
                    <td className="py-2 pe-3">{call.purpose}</td>
                    <td className="py-2 pe-3" dir="ltr">
                      {call.to}
                    </td>
                    <td className="py-2 pe-3">
                      {call.status}
                      {call.outcome ? ` · ${call.outcome}` : ""}
                    </td>
                    <td className="py-2">{call.durationSeconds !== null ? `${call.durationSeconds} s` : "—"}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
