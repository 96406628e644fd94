import { z } from "zod";

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
