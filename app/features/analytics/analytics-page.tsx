import { useEffect, useRef, useState } from "react";
import { useRevalidator } from "react-router";
import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { ChartCard } from "./charts";
import { QualityDays } from "./quality-days";
import type { AnalyticsView } from "./types";

/** Where the page hears of changes (app/routes/dashboard/dashboard.analytics.events.ts). */
export const ANALYTICS_EVENTS_PATH = "/dashboard/analytics/events";
const PERIOD_CHOICES = [7, 30, 90] as const;

/**
 * With JavaScript, the figures follow the server's events: on "change" the page reloads its data
 * (the same loader as a reload) and, if the totals moved, a polite live region says so in one
 * sentence. Without JavaScript the page is complete as served, and a reload shows the latest.
 */
function useLiveFigures(summary: string) {
  const revalidator = useRevalidator();
  const [live, setLive] = useState(false);
  const [announcement, setAnnouncement] = useState("");
  const asked = useRef(false);
  const lastSummary = useRef(summary);

  useEffect(() => {
    const source = new EventSource(ANALYTICS_EVENTS_PATH);
    source.addEventListener("ready", (event) => setLive(JSON.parse((event as MessageEvent<string>).data).live === true));
    source.addEventListener("change", () => {
      asked.current = true;
      void revalidator.revalidate();
    });
    source.addEventListener("error", () => setLive(false));
    return () => source.close();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one event stream per page; the revalidator changes identity on every render
  }, []);

  useEffect(() => {
    if (summary === lastSummary.current) return;
    lastSummary.current = summary;
    // Only a live update is announced: a period chosen by the owner is a new page, not news.
    if (asked.current) setAnnouncement(summary);
    asked.current = false;
  }, [summary]);

  return { live, announcement };
}

export function AnalyticsBody({ view, locale, rtl }: { view: AnalyticsView; locale: string; rtl: boolean }) {
  const { t } = useTranslation();
  const { live, announcement } = useLiveFigures(view.summary);
  const { plan } = view;
  return (
    <>
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("analytics.title")}</h1>
          <p className="mt-1 text-slate-700">{t("analytics.intro", { days: view.period, zone: view.zoneName })}</p>
        </div>
        <nav aria-label={t("analytics.periodLabel")}>
          <ul className="flex gap-1 rounded-lg border border-slate-300 bg-white p-1">
            {PERIOD_CHOICES.map((days) => (
              <li key={days}>
                <Link
                  to={`/dashboard/analytics?period=${days}`}
                  aria-current={days === view.period ? "page" : undefined}
                  className={`block rounded-md px-3 py-1.5 text-sm font-medium ${
                    days === view.period ? "bg-teal-700 text-white" : "text-slate-800 hover:bg-slate-100"
                  }`}
                >
                  {t("analytics.period", { days })}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </div>
      <div className="mt-2 flex flex-wrap gap-x-4 text-sm text-slate-600">
        <p>{live ? t("analytics.live") : t("analytics.reload")}</p>
        <p id="analytics-update" aria-live="polite" aria-atomic="true">
          {announcement}
        </p>
      </div>

      <ul className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {view.tiles.map((tile) => (
          <li key={tile.id} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm" data-tile={tile.id}>
            <p className="text-sm text-slate-700">{tile.label}</p>
            <p className="mt-1 text-2xl font-semibold text-slate-900 tabular-nums">{tile.value}</p>
            {tile.detail ? <p className="mt-1 text-sm text-slate-700">{tile.detail}</p> : null}
          </li>
        ))}
      </ul>

      <section aria-labelledby="allowance-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 id="allowance-title" className="text-lg font-semibold text-slate-900">
          {plan.title}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{plan.detail}</p>
        <p className="mt-3 text-sm font-medium text-slate-800">{plan.label}</p>
        <div
          role="progressbar"
          aria-label={plan.label}
          aria-valuemin={0}
          aria-valuemax={plan.allowance}
          aria-valuenow={Math.min(plan.used, plan.allowance)}
          className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
        >
          <div className="h-full bg-teal-700" style={{ width: `${Math.min(100, (plan.used / Math.max(1, plan.allowance)) * 100)}%` }} />
        </div>
      </section>

      <div className="mt-4 grid gap-4">
        <ChartCard chart={view.charts.status} layout="rows" locale={locale} rtl={rtl} />
        <ChartCard chart={view.charts.results} layout="rows" locale={locale} rtl={rtl} />
        <ChartCard chart={view.charts.weekdays} layout="columns" locale={locale} rtl={rtl} />
        <ChartCard chart={view.charts.hours} layout="columns" locale={locale} rtl={rtl} />
        <ChartCard chart={view.charts.days} layout="columns" locale={locale} rtl={rtl} />
        <QualityDays view={view.quality} />
        <section aria-labelledby="no-shows-title" className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
          <h2 id="no-shows-title" className="text-lg font-semibold text-slate-900">
            {t("analytics.noShows.title")}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{t("analytics.noShows.body")}</p>
        </section>
      </div>
    </>
  );
}
