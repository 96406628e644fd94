/**
 * The consumer subscription as sold (DESIGN.md section 5): a 7-day trial with 5 calls and the card
 * collected at signup, then a monthly plan by call frequency with 30 calls a month. Shared by the
 * pages and the server; nothing secret.
 */
export const callFrequencies = ["weekly", "twice_weekly", "every_two_days"] as const;
export type CallFrequency = (typeof callFrequencies)[number];

export const PLAN_PRICE_CENTS: Record<CallFrequency, number> = { weekly: 999, twice_weekly: 1299, every_two_days: 1499 };
export const PLAN_CURRENCY = "usd";

/** Signup's frequency names the schedule's type (twice_weekly is bi_weekly: twice a week). */
export const scheduleOfFrequency = { weekly: "weekly", twice_weekly: "bi_weekly", every_two_days: "every_two_days" } as const;

export const TRIAL_DAYS = 7;
export const TRIAL_CALLS = 5;
export const MONTHLY_CALLS = 30;
/** The dashboard warns when this many days of the trial or fewer remain. */
export const TRIAL_WARNING_DAYS = 2;

export const urgencies = ["low", "normal", "high"] as const;
export type Urgency = (typeof urgencies)[number];

/** The spec's time zone options. */
export const timeZoneOptions = [
  "UTC",
  "America/New_York",
  "America/Chicago",
  "America/Denver",
  "America/Los_Angeles",
  "Europe/London",
  "Europe/Paris",
  "Asia/Dubai",
  "Asia/Riyadh",
  "Asia/Tokyo",
] as const;

/** Days left of a trial: the ceiling of the time to its end, never below 0. */
export function daysRemaining(endsAt: Date | string | null, now = Date.now()) {
  if (!endsAt) return null;
  return Math.max(0, Math.ceil((new Date(endsAt).getTime() - now) / 86_400_000));
}
