// Server only (the .server name makes the build refuse it in a browser bundle): the full metadata
// that tells a real number from a plausible one is about 50 kB gzipped, more than a booking page's
// whole budget for JavaScript. Forms check numbers in their actions; loaders send formatted strings.
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";

export type PhoneResult =
  { ok: true; e164: string; country: CountryCode | undefined; type: string | undefined } | { ok: false; reason: "empty" | "invalid" };

/**
 * Parses what a person typed ("+44 20 7946 0958", "(212) 555-0100", "0551234567") into E.164.
 * Numbers without a leading + or 00 are read as numbers of `defaultCountry`.
 */
export function normalizePhone(input: string, defaultCountry: CountryCode = "US"): PhoneResult {
  const trimmed = input.trim();
  if (!trimmed) return { ok: false, reason: "empty" };
  if (/[^\d\s()+\-.]/.test(trimmed)) return { ok: false, reason: "invalid" };
  const international = trimmed.startsWith("00") ? `+${trimmed.slice(2)}` : trimmed;
  const parsed = parsePhoneNumberFromString(international, defaultCountry);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: "invalid" };
  return { ok: true, e164: parsed.number, country: parsed.country, type: parsed.getType() };
}

/**
 * "+1 212 555 0100" style, for showing a stored E.164 number back to people. Each number is
 * formatted once (parsing with the full metadata took a fifth of a millisecond, and an owner's
 * page of a hundred bookings shows a hundred numbers on every load).
 */
export function formatPhone(e164: string) {
  let formatted = formattedPhones.get(e164);
  if (formatted === undefined) {
    formatted = parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
    if (formattedPhones.size >= MAX_FORMATTED_PHONES) formattedPhones.delete(formattedPhones.keys().next().value!);
    formattedPhones.set(e164, formatted);
  }
  return formatted;
}
const formattedPhones = new Map<string, string>();
const MAX_FORMATTED_PHONES = 10_000;
