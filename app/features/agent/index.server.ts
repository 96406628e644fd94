/** What the server wiring uses of the customer-service agent: its call purpose, and the booking look-up it lends the confirmation agent. */
export { customerServiceCallPurpose } from "./customer-service-agent.server";
export { lookupBookingTool } from "./tools.server";
