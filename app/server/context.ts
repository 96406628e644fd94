import { createContext } from "react-router";
import type { AppServices } from "./services.server";

export const servicesContext = createContext<AppServices>();
/** The per-response CSP nonce for inline scripts React Router emits. */
export const nonceContext = createContext<string>("");
/** The CSRF token for this visitor, set by the CSRF middleware. */
export const csrfTokenContext = createContext<string>("");
/** The visitor's IP address, as the HTTP server saw it (behind a trusted proxy, the forwarded one). */
export const clientIpContext = createContext<string>("unknown");
