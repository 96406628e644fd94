import { createContext } from "react-router";
import type { AppServices } from "~/platform/services.server";

export const servicesContext = createContext<AppServices>();
/** The per-response CSP nonce for inline scripts React Router emits. */
export const nonceContext = createContext<string>("");
/** The CSRF token for this visitor, set by the CSRF middleware. */
export const csrfTokenContext = createContext<string>("");
/** The visitor's IP address: the right-most X-Forwarded-For hop no trusted proxy (TRUST_PROXY) added. */
export const clientIpContext = createContext<string>("unknown");
/** The TCP peer as the socket sees it, whatever headers and TRUST_PROXY say (for loopback-only pages). */
export const socketPeerContext = createContext<string>("unknown");
