/** What the server wiring uses of subscriptions: the subscriber's call purpose and the scheduled calls' job. */
export { supportCallPurpose } from "./support-calls.server";
export { SCHEDULED_CALLS_CRON, scheduledCallsJob } from "./scheduled-calls.server";
