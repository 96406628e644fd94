import { randomInt } from "node:crypto";

/**
 * A booking's reference: six characters a caller can read out and an agent can take down. The
 * alphabet leaves out the look-alikes 0/O and 1/I/L, so what is written is what is heard; 31
 * characters give 31^6 (about 887 million) references per business. Stored without the dash,
 * shown in two groups of three ("K7M-Q4P").
 */
export const REFERENCE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ";
export const REFERENCE_LENGTH = 6;

/** A new reference from the operating system's cryptographic randomness, each character uniform. */
export function newBookingReference(): string {
  let reference = "";
  for (let i = 0; i < REFERENCE_LENGTH; i++) reference += REFERENCE_ALPHABET[randomInt(REFERENCE_ALPHABET.length)];
  return reference;
}

/** Eastern Arabic and Persian digits, as a caller in Arabic may type them. */
const DIGITS: Record<string, string> = Object.fromEntries(
  [..."٠١٢٣٤٥٦٧٨٩"].map((d, i) => [d, String(i)]).concat([..."۰۱۲۳۴۵۶۷۸۹"].map((d, i) => [d, String(i)])),
);

/**
 * The stored form of what someone typed or said: case, spaces, dashes and dots do not matter
 * ("k7m q4p", "K7M-Q4P"). Null when it cannot be a reference (wrong length, a character outside
 * the alphabet).
 */
export function parseBookingReference(input: string): string | null {
  const compact = [...input.normalize("NFKC")]
    .map((c) => DIGITS[c] ?? c)
    .join("")
    .replace(/[\s\-\u2010-\u2015\u2212.\u00b7_/]/g, "")
    .toUpperCase();
  if (compact.length !== REFERENCE_LENGTH) return null;
  return [...compact].every((c) => REFERENCE_ALPHABET.includes(c)) ? compact : null;
}

/** Two groups of three, for reading aloud and for the eye: "K7M-Q4P". */
export function formatBookingReference(reference: string): string {
  return reference.length === REFERENCE_LENGTH ? `${reference.slice(0, 3)}-${reference.slice(3)}` : reference;
}
