import type { RouterContextProvider } from "react-router";
import { loadBookingsPage } from "../bookings.server";
import { ownerAction } from "../owner-action.server";
import { ownerForPage, ownerTitle } from "../owner.server";
import { pagedTitle } from "~/ui/pager";

/** /dashboard for a business owner (or the sign-in page for anyone else): the bookings, one list at a time. */
export async function ownerDashboard(context: Readonly<RouterContextProvider>, request: Request, url: URL) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadBookingsPage(owner, url);
  const list = `${owner.t("bookings.title")}: ${owner.t(`owner.bookings.filter.${page.filter}`)}`;
  const title = ownerTitle(owner, pagedTitle(owner.t, list, page.page));
  return { kind: "owner" as const, title, shell: owner.shell, ...page };
}

/** The bookings' forms (confirm, cancel, call again…), for the signed-in owner only. */
export const ownerDashboardAction = (context: Readonly<RouterContextProvider>, request: Request, url: URL) =>
  ownerAction({ request, url, context });
