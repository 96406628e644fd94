import { useTranslation } from "~/ui/translation";
import { formatLocalDate, formatMonth, weekdayName } from "~/lib/when";

/**
 * The booking window as month tables, two at a time: `month` is the first one shown (the first
 * of the window by default) and `monthHref` the address of another, for the links to the months
 * before and after (plain links: they work without JavaScript). A bookable day is a submit button named in full ("Thursday
 * 12 March, 6 times available"); other days are plain text. Weeks start on Monday, except in
 * English (Sunday) and Arabic (Saturday), as people there read calendars. `selected`: the day
 * whose times are shown beside it (`aria-current`); `stacked`: one month under the other, in a
 * column beside the times; `stackedFrom: "lg"`: side by side on a tablet, stacked from the width
 * where the times stand beside them (the date step, laid out as the time step).
 */
export function MonthTables({
  days,
  selected,
  stacked = false,
  stackedFrom,
  month: firstShown,
  monthHref,
}: {
  days: { date: string; count: number }[];
  selected?: string;
  stacked?: boolean;
  stackedFrom?: "lg";
  month?: string | null;
  monthHref?: (month: string) => string;
}) {
  const { t, i18n } = useTranslation();
  const firstWeekday = i18n.language === "en" ? 0 : i18n.language === "ar" ? 6 : 1;
  const byDate = new Map(days.map((d) => [d.date, d.count]));
  const allMonths = [...new Set(days.map((d) => d.date.slice(0, 7)))];
  const start = Math.max(0, allMonths.indexOf(firstShown ?? selected?.slice(0, 7) ?? ""));
  const months = allMonths.slice(start, start + MONTHS_SHOWN);
  const before = allMonths[start - 1];
  const after = allMonths[start + MONTHS_SHOWN];
  const weekdays = Array.from({ length: 7 }, (_, i) => (firstWeekday + i) % 7);
  const locale = i18n.language;

  return (
    <div>
      {monthHref && (before || after) ? (
        <nav aria-label={t("book.monthsNav")} className="mb-3 flex justify-between gap-3 text-sm font-medium" data-month-nav>
          {before ? (
            <a href={monthHref(before)} className="rounded-lg px-2 py-2 text-teal-800 underline underline-offset-2 hover:bg-teal-50">
              {t("book.monthBefore", { month: formatMonth(before, locale) })}
            </a>
          ) : (
            <span />
          )}
          {after ? (
            <a href={monthHref(after)} className="rounded-lg px-2 py-2 text-teal-800 underline underline-offset-2 hover:bg-teal-50">
              {t("book.monthAfter", { month: formatMonth(after, locale) })}
            </a>
          ) : null}
        </nav>
      ) : null}
      <div
        className={stacked ? "grid gap-6" : stackedFrom === "lg" ? "grid gap-6 md:grid-cols-2 lg:grid-cols-1" : "grid gap-6 md:grid-cols-2"}
      >
        {months.map((month) => {
          const [year, monthIndex] = month.split("-").map(Number) as [number, number];
          const first = new Date(Date.UTC(year, monthIndex - 1, 1));
          const daysInMonth = new Date(Date.UTC(year, monthIndex, 0)).getUTCDate();
          const lead = (first.getUTCDay() - firstWeekday + 7) % 7;
          const cells: (number | null)[] = [...Array(lead).fill(null), ...Array.from({ length: daysInMonth }, (_, i) => i + 1)];
          while (cells.length % 7) cells.push(null);
          const weeks = Array.from({ length: cells.length / 7 }, (_, w) => cells.slice(w * 7, w * 7 + 7));
          return (
            <table key={month} className="w-full table-fixed border-collapse text-center">
              <caption className="pb-2 text-start font-semibold text-slate-900">{formatMonth(month, locale)}</caption>
              <thead>
                <tr>
                  {weekdays.map((day) => (
                    <th key={day} scope="col" className="pb-1 text-xs font-medium text-slate-600">
                      <abbr title={weekdayName(day, locale, "long")} className="no-underline">
                        {weekdayName(day, locale, "short")}
                      </abbr>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {weeks.map((week, w) => (
                  <tr key={w}>
                    {week.map((day, d) => {
                      if (day === null) return <td key={d} />;
                      const date = `${month}-${String(day).padStart(2, "0")}`;
                      const count = byDate.get(date) ?? 0;
                      const full = formatLocalDate(date, locale, "day");
                      return (
                        <td key={d} className="p-0.5">
                          {count > 0 ? (
                            <button
                              type="submit"
                              name="date"
                              value={date}
                              aria-label={count === 1 ? t("book.dayOne", { day: full }) : t("book.dayMany", { day: full, count })}
                              aria-current={date === selected ? "date" : undefined}
                              className={`h-10 w-full rounded-lg font-semibold hover:bg-teal-700 hover:text-white ${
                                date === selected ? "bg-teal-700 text-white" : "bg-teal-50 text-teal-900"
                              }`}
                            >
                              {day}
                            </button>
                          ) : (
                            <span className="block py-2 text-slate-500">{day}</span>
                          )}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          );
        })}
      </div>
    </div>
  );
}

/** Two months at a time: a window of 30 days is always in view at once, a longer one a page at a time. */
const MONTHS_SHOWN = 2;
