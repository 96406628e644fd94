export const currencies = ["USD", "EUR", "GBP", "SAR", "AED", "CAD", "AUD"] as const;
export type Currency = (typeof currencies)[number];

/** "25", "25.5", "25.50" → 2550; anything else → null. Money is kept in integer cents. */
export function parseAmountToCents(input: string): number | null {
  const trimmed = input.trim().replace(",", ".");
  if (!/^\d{1,7}(\.\d{1,2})?$/.test(trimmed)) return null;
  const [whole, fraction = ""] = trimmed.split(".");
  return Number(whole) * 100 + Number(fraction.padEnd(2, "0"));
}

/** Formatters are costly to build and few in number (locales × currencies): each is made once. */
const moneyFormats = new Map<string, Intl.NumberFormat>();

export function formatMoney(cents: number, currency: string, locale = "en") {
  const key = `${locale}|${currency}`;
  let format = moneyFormats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: "currency", currency });
    moneyFormats.set(key, format);
  }
  return format.format(cents / 100);
}

/** A service's price as a customer reads it: a free service says so in words (`freeLabel`), not "$0.00". */
export function formatPrice(cents: number, currency: string, locale: string, freeLabel: string) {
  return cents === 0 ? freeLabel : formatMoney(cents, currency, locale);
}

export function centsToInput(cents: number) {
  return (cents / 100).toFixed(2);
}
