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
  /**
   * `false`: the page loads no React, only app/ui/enhance.js (a few kilobytes), which swaps in the
   * next step of the same page and moves the focus. For public pages that are plain links and
   * forms (ADR 0016): on a slow phone they show and respond at once. A function decides by the
   * loader's data (the home page loads React for its payment step only).
   */
  hydrate?: false | ((loaderData: unknown) => boolean);
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

/** Whether this page loads React (false when any matched route opts out with `hydrate: false`). */
export function usePageHydrates(): boolean {
  return pageHydrates(useMatches());
}

/**
 * The rule itself, for the matched routes' handles and loader data: the page (usePageHydrates)
 * and the server's entry, which renders a page that loads no React to a string in one pass
 * (entry.server.tsx), both ask it.
 */
export function pageHydrates(matches: readonly { handle?: unknown; loaderData?: unknown }[]): boolean {
  return matches.every((match) => {
    const hydrate = (match.handle as ShellHandle | undefined)?.hydrate;
    return typeof hydrate === "function" ? hydrate(match.loaderData) : hydrate !== false;
  });
}

/**
 * For a page any signed-in person may open (/telephony, /providers, change-password): the
 * owner's or admin's own frame when the loader found one (`frame` in its data), the site's
 * otherwise. The route draws `SignedInFrame` around its content.
 */
export const signedInShell = (loaderData: unknown): PageShell =>
  loaderData && typeof loaderData === "object" && "frame" in loaderData && loaderData.frame ? "owner" : "public";
