/** A phone number an admin may see: its first three digits (the country) and last two, the rest hidden. */
export function maskPhone(e164: string | null) {
  if (!e164) return "";
  const digits = e164.replace(/\D/g, "");
  if (digits.length < 8) return "•".repeat(digits.length);
  return `+${digits.slice(0, 3)}${"•".repeat(digits.length - 5)}${digits.slice(-2)}`;
}
