/**
 * The one way the owner's app writes dates and times: `Intl.DateTimeFormat` in the page's
 * language, in the business's time zone (so an owner travelling abroad still sees the times of
 * the shop). The language decides 12- or 24-hour clocks and digits; every page and list uses
 * these styles, so a time never reads differently in two places. Formatted on the server only,
 * so the browser's own ICU can never disagree with the server's rendering.
 */
const styles = {
  dateTime: { weekday: "short", day: "numeric", month: "short", year: "numeric", hour: "numeric", minute: "2-digit" },
  date: { weekday: "long", day: "numeric", month: "long", year: "numeric" },
  time: { hour: "numeric", minute: "2-digit" },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

export type WhenStyle = keyof typeof styles;

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(locale: string, timeZone: string, style: WhenStyle) {
  const key = `${locale}|${timeZone}|${style}`;
  let found = formatters.get(key);
  if (!found) {
    found = new Intl.DateTimeFormat(locale, { ...styles[style], timeZone });
    formatters.set(key, found);
  }
  return found;
}

/** An instant in the business's time zone. */
export function formatWhen(instant: Date | number | string, timeZone: string, locale: string, style: WhenStyle = "dateTime") {
  return formatter(locale, timeZone, style).format(new Date(instant));
}

/** A calendar date ("2026-12-24") as the page's language writes it. */
export function formatLocalDate(date: string, locale: string) {
  return formatter(locale, "UTC", "date").format(new Date(`${date}T12:00:00Z`));
}
