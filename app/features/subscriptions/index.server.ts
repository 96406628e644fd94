/** What the server wiring uses of subscriptions: the subscriber's call purpose. */
export { supportCallPurpose } from "./subscriptions.server";
