import { z } from "zod";

/** The largest value of PostgreSQL's `integer` (int4), the type of every id column. */
export const INT4_MAX = 2_147_483_647;

/**
 * A row id as a URL or a form sends it: digits only, 1 to INT4_MAX. Anything else (negative,
 * fractional, 2^31 and up, text) is no id at all, so a lookup finds nothing instead of failing.
 */
export function parseDbId(value: unknown): number | null {
  const text = typeof value === "number" ? String(value) : typeof value === "string" ? value.trim() : "";
  if (!/^\d{1,10}$/.test(text)) return null;
  const id = Number(text);
  return id >= 1 && id <= INT4_MAX ? id : null;
}

/** A zod field for a row id, with the message to show when it is not one. */
export function dbId(message: string) {
  return z.preprocess((value) => parseDbId(value) ?? value, z.number(message).int(message).min(1, message).max(INT4_MAX, message));
}

/** True for a real calendar date written YYYY-MM-DD (2026-02-28 yes, 2026-02-31 no). */
export function isCalendarDate(value: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/**
 * Text a person typed, as stored in PostgreSQL: trimmed, at most `max` characters, and without
 * NUL (which a text column refuses) or other control characters except line breaks and tabs.
 */
export function safeText(messages: { tooLong: string; invalid: string; required?: string }, max: number) {
  return (
    z
      // A field left empty is absent from the submission: it reads as "required" where one is given.
      .string(messages.required ?? messages.invalid)
      .trim()
      .max(max, messages.tooLong)
      .refine((value) => ![...value].some(isForbiddenControl), messages.invalid)
  );
}

function isForbiddenControl(char: string) {
  const code = char.charCodeAt(0);
  return (code < 0x20 && char !== "\n" && char !== "\r" && char !== "\t") || code === 0x7f;
}
