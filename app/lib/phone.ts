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

/** "+1 212 555 0100" style, for showing a stored E.164 number back to people. */
export function formatPhone(e164: string) {
  return parsePhoneNumberFromString(e164)?.formatInternational() ?? e164;
}

/** Number types a call of ours must never go to: they cost the caller money or reach no person. */
const UNCALLABLE_TYPES = new Set(["PREMIUM_RATE", "SHARED_COST", "VOIP", "PAGER", "UAN", "VOICEMAIL", "PERSONAL_NUMBER"]);

export type CallableResult = { ok: true; e164: string } | { ok: false; reason: "empty" | "invalid" | "country" | "premium" };

/**
 * A number the product may phone: valid, in one of `allowedCountries` (comma-separated ISO
 * codes), and not a premium or unroutable range. Each caller words the refusals its own way.
 */
export function callableNumber(input: string, allowedCountries: string): CallableResult {
  const phone = normalizePhone(input, "US");
  if (!phone.ok) return phone;
  if (!phone.country || !allowedCountries.split(",").includes(phone.country)) return { ok: false, reason: "country" };
  if (phone.type && UNCALLABLE_TYPES.has(phone.type)) return { ok: false, reason: "premium" };
  return { ok: true, e164: phone.e164 };
}
