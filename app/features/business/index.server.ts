/** What other features may use of business on the server: the signed-in owner, the plan's rules and call metering. */
export { reportCallUsageJob } from "./signup/onboarding.server";
export type { Owner } from "./owner.server";
export { admitConfirmationCall, admitReminderCall, loadPlanUsage, periodStartOf, PLAN_REASON_PREFIX, planDecision } from "./plan.server";
export { ownerCalendarEvent } from "./calendar-feed.server";
