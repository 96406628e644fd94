import type { TFunction } from "i18next";
import { qualityByDay } from "#models/call-quality";
import type { Db } from "#models/db";
import type { QualityDaysView } from "./types";

/**
 * Call quality per day (ADR 0033), worded: the median and 90th percentile of the first words and of
 * the turns' waits, for one business (its time zone's days) or, with businessId null, every call.
 */
export async function loadQualityDays(
  db: Db,
  scope: { businessId: number | null; timeZone: string; from: Date; to: Date },
  t: TFunction,
  locale: string,
): Promise<QualityDaysView> {
  const days = await qualityByDay(db, scope);
  const ms = new Intl.NumberFormat(locale, { style: "unit", unit: "millisecond", unitDisplay: "short" });
  const count = new Intl.NumberFormat(locale);
  const dayFormat = new Intl.DateTimeFormat(locale, { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });
  const figure = (value: number | null) => (value === null ? "–" : ms.format(value));
  return {
    title: t("quality.daily.title"),
    intro: t("quality.daily.intro"),
    none: t("quality.daily.none"),
    headers: {
      day: t("quality.daily.day"),
      calls: t("quality.daily.calls"),
      fwMedian: t("quality.daily.fwMedian"),
      fwP90: t("quality.daily.fwP90"),
      turns: t("quality.daily.turns"),
      turnMedian: t("quality.daily.turnMedian"),
      turnP90: t("quality.daily.turnP90"),
    },
    // The newest day first.
    rows: days.reverse().map((day) => ({
      day: day.day,
      label: dayFormat.format(new Date(`${day.day}T12:00:00Z`)),
      calls: count.format(day.calls),
      fwMedian: figure(day.firstWordsMedian),
      fwP90: figure(day.firstWordsP90),
      turns: count.format(day.turns),
      turnMedian: figure(day.turnMedian),
      turnP90: figure(day.turnP90),
    })),
  };
}
