/** The kinds of business the registration form offers ("service" is the default). */
export const industries = [
  "service",
  "healthcare",
  "beauty",
  "fitness",
  "restaurant",
  "professional",
  "education",
  "automotive",
  "home",
  "retail",
  "other",
] as const;
export type Industry = (typeof industries)[number];

/** The time zones the product offers, per the spec, plus a few common ones for businesses. */
export const timeZones = [
  "UTC",
  "America/New_York",
  "America/Chicago",
  "America/Denver",
  "America/Los_Angeles",
  "America/Toronto",
  "Europe/London",
  "Europe/Paris",
  "Europe/Berlin",
  "Europe/Madrid",
  "Europe/Rome",
  "Asia/Dubai",
  "Asia/Riyadh",
  "Asia/Tokyo",
  "Australia/Sydney",
] as const;

/** Confirmation calls speak through the realtime model, so they offer exactly its voices. */
export { realtimeVoices as confirmationVoices } from "~/lib/voices";

export const STARTER_PRICE = "$1";
export const MONTHLY_PRICE = "$99";
