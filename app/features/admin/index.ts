/** What other features may use of admin, safe in the browser (server-only API: none yet). */
export { AdminShell } from "./admin-ui";
