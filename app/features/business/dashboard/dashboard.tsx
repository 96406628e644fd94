import { useState } from "react";
import { Form } from "react-router";
import { useTranslation } from "react-i18next";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { CopyButton } from "~/ui/copy-button";
import { Button } from "~/ui/button";
import { BookingsSection } from "~/features/business/dashboard/bookings";
import { HoursSection } from "~/features/business/dashboard/hours";
import { ServicesSection } from "~/features/business/dashboard/services";
import { SettingsSection } from "~/features/business/dashboard/settings";
import type { DashboardData, DashboardActionData } from "~/features/business/dashboard/types";

export function BusinessDashboard({ data, actionData }: { data: DashboardData; actionData?: DashboardActionData }) {
  const { t, i18n } = useTranslation();
  const [copied, setCopied] = useState(false);
  const { business } = data;
  const starterDaysLeft = business.starterDaysLeft;
  const hasHours = Object.values(data.schedule).some((day) => day.length > 0);
  const hasService = data.services.some((s) => s.active);
  return (
    <div className="mx-auto max-w-5xl space-y-8 px-4 py-8 sm:py-12">
      <header className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <p className="text-sm text-slate-600">{t("dashboard.welcome", { name: business.ownerName })}</p>
          <h1 className="text-3xl font-semibold tracking-tight text-slate-900">{business.name}</h1>
        </div>
        <Form method="post" action="/logout">
          <AuthenticityTokenInput />
          <Button type="submit" variant="secondary">
            {t("auth.logout")}
          </Button>
        </Form>
      </header>

      <section aria-labelledby="plan-title" className="grid gap-4 sm:grid-cols-2">
        <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 id="plan-title" className="text-sm font-medium text-slate-600">
            {t("dashboard.plan")}
          </h2>
          <p className="mt-1 text-lg font-semibold text-slate-900">{t(`dashboard.planStatus.${business.planStatus}`)}</p>
          <p className="mt-1 text-sm text-slate-700">
            {business.planStatus === "starter" && starterDaysLeft !== null
              ? t("dashboard.starterLeft", {
                  days: starterDaysLeft,
                  date: new Date(business.starterEndsAt!).toLocaleDateString(i18n.language, { dateStyle: "medium" }),
                })
              : t("dashboard.monthlyAllowance")}
          </p>
          <p className="mt-3 text-sm font-medium text-slate-800">
            {t("dashboard.callsUsed", { used: data.calls.used, allowance: data.calls.allowance })}
          </p>
          <div
            role="progressbar"
            aria-label={t("dashboard.callsUsed", { used: data.calls.used, allowance: data.calls.allowance })}
            aria-valuemin={0}
            aria-valuemax={data.calls.allowance}
            aria-valuenow={Math.min(data.calls.used, data.calls.allowance)}
            className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
          >
            <div className="h-full bg-teal-700" style={{ width: `${Math.min(100, (data.calls.used / data.calls.allowance) * 100)}%` }} />
          </div>
        </div>
        <div className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <h2 className="text-sm font-medium text-slate-600">{t("dashboard.bookingLink")}</h2>
          <p className="mt-1 flex flex-wrap items-center gap-2">
            <a href={data.bookingUrl} className="break-all font-medium text-teal-800 underline" dir="ltr">
              {data.bookingUrl}
            </a>
            <CopyButton value={data.bookingUrl} label={t("dashboard.bookingLink")} onCopied={() => setCopied(true)} />
          </p>
          <p role="status" aria-live="polite" className="mt-1 text-sm text-emerald-800">
            {copied ? `${t("copy.copied")} ${t("copy.copiedBody", { label: t("dashboard.bookingLink") })}` : ""}
          </p>
        </div>
      </section>

      {!hasService || !hasHours ? (
        <section aria-labelledby="checklist-title" className="rounded-2xl border border-teal-200 bg-teal-50 p-5 text-teal-950">
          <h2 id="checklist-title" className="text-lg font-semibold">
            {t("dashboard.checklistTitle")}
          </h2>
          <p className="mt-1 text-sm">{t("dashboard.checklistIntro")}</p>
          <ol className="mt-3 space-y-1 text-sm">
            <li>
              {hasService ? "✓ " : "1. "}
              <a href="#services" className="font-medium underline">
                {t("dashboard.checklistService")}
              </a>
            </li>
            <li>
              {hasHours ? "✓ " : "2. "}
              <a href="#hours" className="font-medium underline">
                {t("dashboard.checklistHours")}
              </a>
            </li>
            <li>3. {t("dashboard.checklistShare")}</li>
          </ol>
        </section>
      ) : null}

      <BookingsSection bookings={data.bookings} timeZone={business.timeZone} />
      <ServicesSection services={data.services} actionData={actionData} />
      <HoursSection schedule={data.schedule} daysOff={data.daysOff} timeZone={business.timeZone} actionData={actionData} />
      <SettingsSection business={business} actionData={actionData} />
    </div>
  );
}
