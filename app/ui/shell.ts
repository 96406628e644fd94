import { useMatches } from "react-router";

/**
 * Which frame a page is drawn in. A route chooses with `export const handle = { shell: "owner" }`:
 * - "public" (the default): Sakina's site header with its navigation, and the footer;
 * - "owner": the business owner's app: no marketing header or footer, the route draws
 *   `OwnerShell` itself (its own navigation: bookings, services, hours, calls, settings);
 * - "booking": a business's public booking page: the business first, Sakina only as a small
 *   "powered by"; no Sakina header, footer or disclaimers (the route draws `BookingShell`).
 */
export type PageShell = "public" | "owner" | "booking";
export interface ShellHandle {
  /** A frame, or a choice by the route's loader data (one URL can serve two audiences). */
  shell?: PageShell | ((loaderData: unknown) => PageShell);
}

/** The shell of the deepest matched route that names one; "public" otherwise. */
export function usePageShell(): PageShell {
  const matches = useMatches();
  for (let i = matches.length - 1; i >= 0; i--) {
    const match = matches[i]!;
    const shell = (match.handle as ShellHandle | undefined)?.shell;
    if (typeof shell === "function") return shell(match.loaderData);
    if (shell) return shell;
  }
  return "public";
}
