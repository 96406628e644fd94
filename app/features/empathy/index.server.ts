/** What other features (and the server wiring) may use of empathy on the server: the listener and the paid call's purpose. */
export { empathyAgent } from "./agent.server";
export { empathyCallPurpose } from "./empathy.server";
