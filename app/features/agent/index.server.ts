/** What the server wiring uses of the customer-service agent: its call purpose. */
export { customerServiceCallPurpose } from "./customer-service-agent.server";
