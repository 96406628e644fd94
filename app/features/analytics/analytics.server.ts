import type { TFunction } from "i18next";
import { bookingFigures, callFigures, CALL_RESULTS, inboundFigures, type BookingStatus } from "#models/analytics";
import { bookingStatus } from "#models/schema";
import type { Db } from "#models/db";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { loadPlanUsage } from "~/features/business/index.server";
import { formatTimeOfDayLabel, zoneName } from "~/lib/when";
import type { Owner } from "~/features/business/index.server";
import { loadQualityDays } from "./quality.server";
import type { AnalyticsView, Bar, Chart } from "./types";

export const PERIODS = [7, 30, 90] as const;
export type Period = (typeof PERIODS)[number];
const DEFAULT_PERIOD: Period = 30;

/** `?period=7|30|90`; anything else is the default (the links offer only these three). */
export function parsePeriod(value: string | null): Period {
  const days = Number(value);
  return (PERIODS as readonly number[]).includes(days) ? (days as Period) : DEFAULT_PERIOD;
}

const DAY_MS = 86_400_000;

/** "2026-03-29" plus `days` calendar days. */
function addDays(date: string, days: number) {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/**
 * The last `days` calendar days in the business's time zone, today included: from the local
 * midnight that starts the first (whatever its length in hours) up to now.
 */
export function periodWindow(timeZone: string, days: number, now: Date) {
  const today = utcToZoned(now.getTime(), timeZone).date;
  const dates = Array.from({ length: days }, (_, i) => addDays(today, i - days + 1));
  return { dates, from: new Date(zonedTimeToUtc(dates[0]!, 0, timeZone)), to: now };
}

export interface AnalyticsFigures {
  dates: string[];
  bookings: Awaited<ReturnType<typeof bookingFigures>>;
  calls: Awaited<ReturnType<typeof callFigures>>;
  inbound: Awaited<ReturnType<typeof inboundFigures>>;
}

/** The raw figures of one period, as the tests compare them with a seeded data set. */
export async function analyticsFigures(db: Db, business: { id: number; timeZone: string }, days: number, now = new Date()) {
  const window = periodWindow(business.timeZone, days, now);
  const [bookings, calls, inbound] = await Promise.all([
    bookingFigures(db, business.id, window.from, window.to),
    callFigures(db, business.id, window.from, window.to),
    inboundFigures(db, business.id, window.from, window.to),
  ]);
  return { dates: window.dates, bookings, calls, inbound } satisfies AnalyticsFigures;
}

/** ISO weekdays in the order the week is shown (Monday first, as ISO 8601 counts). */
const ISO_WEEKDAYS = [1, 2, 3, 4, 5, 6, 7] as const;
/** 2024-01-01 was a Monday: ISO weekday n is that date plus n - 1 days. */
const weekdayName = (locale: string, isoDay: number, weekday: "long" | "short") =>
  new Intl.DateTimeFormat(locale, { weekday, timeZone: "UTC" }).format(new Date(Date.UTC(2024, 0, isoDay)));

type ChartKey = keyof AnalyticsView["charts"];

function chart(t: TFunction, number: Intl.NumberFormat, key: ChartKey, bars: Bar[], unit: string): Chart {
  const top = bars.reduce<Bar | null>((best, bar) => (bar.value > (best?.value ?? 0) ? bar : best), null);
  const title = t(`analytics.charts.${key}.title`);
  return {
    id: key,
    title,
    intro: t(`analytics.charts.${key}.intro`),
    summary: top ? t("analytics.chartSummary", { label: top.label, value: number.format(top.value) }) : t("analytics.chartEmpty"),
    labelHeader: t(`analytics.charts.${key}.column`),
    valueHeader: unit,
    bars,
  };
}

/** Everything the analytics page shows, worded in the owner's language. */
export async function loadAnalytics(owner: Owner, period: Period, now = new Date()): Promise<AnalyticsView> {
  const { business, t, locale } = owner;
  const window = periodWindow(business.timeZone, period, now);
  const [figures, plan, quality] = await Promise.all([
    analyticsFigures(owner.services.db, business, period, now),
    loadPlanUsage(owner.services, t, locale, business),
    loadQualityDays(
      owner.services.db,
      { businessId: business.id, timeZone: business.timeZone, from: window.from, to: window.to },
      t,
      locale,
    ),
  ]);
  const { bookings, calls, inbound } = figures;
  const number = new Intl.NumberFormat(locale);
  const bookingsUnit = t("analytics.bookings");
  const callsUnit = t("analytics.calls");

  const made = Object.values(bookings.byStatus).reduce((sum, n) => sum + n, 0);
  const confirmedOnCall = calls.byResult.confirmed ?? 0;
  const finished = calls.placed - (calls.byResult.in_progress ?? 0);
  const percent = new Intl.NumberFormat(locale, { style: "percent" });
  const rate = finished > 0 ? percent.format(confirmedOnCall / finished) : null;
  const noShows = bookings.byStatus.no_show ?? 0;
  const minutes = new Intl.NumberFormat(locale, { maximumFractionDigits: 1 }).format(calls.seconds / 60);

  const statusBars = bookingStatus.enumValues.map((status: BookingStatus) => ({
    key: status,
    label: t(`bookingStatus.${status}`),
    value: bookings.byStatus[status] ?? 0,
  }));
  const resultBars = CALL_RESULTS.map((result) => ({
    key: result,
    label: t(`analytics.results.${result}`),
    value: calls.byResult[result] ?? 0,
  }));
  const weekdayBars = ISO_WEEKDAYS.map((day) => ({
    key: String(day),
    label: weekdayName(locale, day, "long"),
    short: weekdayName(locale, day, "short"),
    value: bookings.byWeekday[day] ?? 0,
  }));
  const hourBars = Array.from({ length: 24 }, (_, hour) => ({
    key: String(hour),
    // As the booking page writes times: "9:00 AM" in English, "09:00" in German.
    label: formatTimeOfDayLabel(hour * 60, locale),
    value: bookings.byHour[hour] ?? 0,
  }));
  const dayFormat = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", timeZone: "UTC" });
  const dayBars = figures.dates.map((date) => ({
    key: date,
    label: dayFormat.format(new Date(`${date}T12:00:00Z`)),
    value: bookings.byDay[date] ?? 0,
  }));

  return {
    period,
    timeZone: business.timeZone,
    zoneName: zoneName(business.timeZone, locale),
    tiles: [
      { id: "bookings", label: t("analytics.tiles.bookings"), value: number.format(made), detail: null },
      { id: "calls", label: t("analytics.tiles.calls"), value: number.format(calls.placed), detail: null },
      { id: "minutes", label: t("analytics.tiles.minutes"), value: minutes, detail: null },
      {
        id: "rate",
        label: t("analytics.tiles.rate"),
        value: rate ?? "–",
        detail: rate
          ? t("analytics.tiles.rateDetail", { confirmed: number.format(confirmedOnCall), finished: number.format(finished) })
          : t("analytics.tiles.rateNone"),
      },
      {
        id: "noShows",
        label: t("analytics.tiles.noShows"),
        value: number.format(noShows),
        detail: made > 0 ? t("analytics.tiles.noShowsDetail", { share: percent.format(noShows / made) }) : null,
      },
      {
        id: "inbound",
        label: t("analytics.tiles.inbound"),
        value: number.format(inbound.calls),
        detail: t("analytics.tiles.inboundDetail", { bookings: number.format(inbound.bookings) }),
      },
    ],
    plan: {
      title: `${t("dashboard.plan")}: ${plan.statusLabel}`,
      detail: plan.periodLabel ?? "",
      used: plan.used,
      allowance: plan.allowance,
      label: plan.usedLabel,
    },
    charts: {
      status: chart(t, number, "status", statusBars, bookingsUnit),
      results: chart(t, number, "results", resultBars, callsUnit),
      weekdays: chart(t, number, "weekdays", weekdayBars, bookingsUnit),
      hours: chart(t, number, "hours", hourBars, bookingsUnit),
      days: chart(t, number, "days", dayBars, bookingsUnit),
    },
    quality,
    summary: t("analytics.updated", { days: period, bookings: number.format(made), calls: number.format(calls.placed) }),
  };
}
