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
