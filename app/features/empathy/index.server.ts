/**
 * What other features (and the server wiring) may use of empathy on the server: the listener, the
 * paid call's purpose, and its refund (an admin's retry sends the job's own request).
 */
export { empathyAgent } from "./agent.server";
export { empathyCallPurpose, refundEmpathyRequest } from "./empathy.server";
