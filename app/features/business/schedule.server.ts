import { listBookingsStartingBetween } from "#models/bookings";
import { formatBookingReference } from "#models/booking-reference";
import { formatLocalDate, formatWhen } from "~/lib/when";
import { dayOfLocalDate, localDateOfDay, utcToZoned, weekdayOf, zonedTimeToUtc } from "~/lib/zoned-time";
import { isCalendarDate } from "~/lib/time";
import type { Owner } from "~/features/business/owner.server";

export type ScheduleView = "day" | "week";

/** The first day of a week in the owner's language: Sunday in English, Saturday in Arabic, Monday elsewhere (as the booking calendar). */
export function firstWeekdayOf(locale: string) {
  return locale === "en" ? 0 : locale === "ar" ? 6 : 1;
}

/**
 * The owner's day or week of bookings (`/dashboard/schedule?view=day|week&date=YYYY-MM-DD`), in the
 * business's time zone: each day with its bookings in time order (cancelled ones left out), and
 * the addresses of the day or week before and after. Nothing here needs JavaScript.
 */
export async function loadSchedule(owner: Owner, url: URL, now = Date.now()) {
  const { business, locale, t } = owner;
  const view: ScheduleView = url.searchParams.get("view") === "day" ? "day" : "week";
  const today = utcToZoned(now, business.timeZone).date;
  const asked = url.searchParams.get("date") ?? "";
  const date = isCalendarDate(asked) && asked >= "2000-01-01" && asked <= "2999-12-31" ? asked : today;
  const day = dayOfLocalDate(date);
  const first = view === "day" ? day : day - ((weekdayOf(day) - firstWeekdayOf(locale) + 7) % 7);
  const length = view === "day" ? 1 : 7;
  const dates = Array.from({ length }, (_, i) => localDateOfDay(first + i));
  const range = {
    from: new Date(zonedTimeToUtc(dates[0]!, 0, business.timeZone)),
    to: new Date(zonedTimeToUtc(localDateOfDay(first + length), 0, business.timeZone)),
  };
  const rows = await listBookingsStartingBetween(owner.services.db, business.id, range);
  const byDate = new Map<string, typeof rows>();
  for (const row of rows) {
    const local = utcToZoned(row.booking.startsAt.getTime(), business.timeZone).date;
    byDate.set(local, [...(byDate.get(local) ?? []), row]);
  }
  const href = (params: { view?: ScheduleView; date?: string }) => {
    const search = new URLSearchParams({ view: params.view ?? view, date: params.date ?? date });
    return `/dashboard/schedule?${search}`;
  };
  const step = view === "day" ? 1 : 7;
  return {
    view,
    date,
    heading:
      view === "day"
        ? formatLocalDate(date, locale, "date")
        : t("owner.schedule.weekOf", {
            first: formatLocalDate(dates[0]!, locale, "day"),
            last: formatLocalDate(dates.at(-1)!, locale, "day"),
          }),
    links: {
      before: href({ date: localDateOfDay(first - step) }),
      after: href({ date: localDateOfDay(first + step) }),
      today: date === today || dates.includes(today) ? null : href({ date: today }),
      day: href({ view: "day" }),
      week: href({ view: "week" }),
    },
    days: dates.map((local) => ({
      date: local,
      label: formatLocalDate(local, locale, "day"),
      today: local === today,
      dayHref: href({ view: "day", date: local }),
      bookings: (byDate.get(local) ?? []).map(({ booking, serviceName }) => ({
        id: booking.id,
        start: formatWhen(booking.startsAt, business.timeZone, locale, "time"),
        end: formatWhen(booking.endsAt, business.timeZone, locale, "time"),
        startIso: booking.startsAt.toISOString(),
        serviceName,
        customerName: booking.customerName,
        reference: formatBookingReference(booking.reference),
        status: booking.status,
        statusLabel: t(`bookingStatus.${booking.status}`),
      })),
    })),
  };
}

export type ScheduleData = Awaited<ReturnType<typeof loadSchedule>>;
