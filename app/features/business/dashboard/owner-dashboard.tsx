import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "../../../routes/dashboard/+types/dashboard";
import { BookingFilters, BookingRows } from "./bookings";
import { NotSignedIn } from "./not-signed-in";
import { PlanNotice } from "./plan";
import { linkClass } from "~/ui/form/button";
import { Pager } from "~/ui/pager";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";

/** What the owner's dashboard loads: its bookings, or the sign-in page for anyone else. */
export type OwnerDashboardData = Exclude<Route.ComponentProps["loaderData"], { kind: "consumer" | "consumer-refused" }>;

/** /dashboard for a business owner: the bookings, one list at a time (upcoming, needing attention, past), each with its actions. */
export function OwnerDashboard({
  loaderData,
  actionData,
}: {
  loaderData: OwnerDashboardData;
  actionData: Route.ComponentProps["actionData"];
}) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard" />;
  const page = loaderData;
  // An action on a card comes back to the list and page it was on.
  const listQuery = new URLSearchParams([
    ...(page.filter === "upcoming" ? [] : [["filter", page.filter]]),
    ...(page.page > 1 ? [["page", String(page.page)]] : []),
  ]).toString();
  const returnTo = listQuery ? `/dashboard?${listQuery}` : "/dashboard";
  const formError = actionData && "formError" in actionData ? (actionData.formError ?? null) : null;
  const empty = {
    upcoming: t("bookings.noneUpcoming"),
    attention: t("owner.bookings.noneAttention"),
    cancelled: t("owner.bookings.noneCancelled"),
    past: t("owner.bookings.nonePast"),
  }[page.filter];
  return (
    <OwnerShell shell={page.shell} current="bookings">
      <OwnerStatus message={formError} tone="error" />
      <OwnerStatus message={page.message} />
      <PlanNotice notice={page.planNotice} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("bookings.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">
        {t(page.callsPlaced ? "owner.bookings.intro" : "owner.bookings.introNoCalls", { zone: page.zoneName })}
      </p>
      <nav aria-label={t("owner.schedule.viewsLabel")} className="mt-2 flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link to="/dashboard/schedule?view=day" className={linkClass}>
          {t("owner.schedule.dayTitle")}
        </Link>
        <Link to="/dashboard/schedule?view=week" className={linkClass}>
          {t("owner.schedule.weekTitle")}
        </Link>
      </nav>
      {!page.setup.hasService || !page.setup.hasHours ? (
        <section aria-labelledby="checklist-title" className="mt-4 rounded-2xl border border-teal-200 bg-teal-50 p-4 text-teal-950">
          <h2 id="checklist-title" className="font-semibold">
            {t("dashboard.checklistTitle")}
          </h2>
          <p className="mt-1 text-sm">{t("dashboard.checklistIntro")}</p>
          <ol className="mt-2 list-inside list-decimal space-y-1 text-sm">
            <li>
              {page.setup.hasService ? `${t("owner.done")}: ` : null}
              <Link to="/dashboard/services" className={linkClass}>
                {t("dashboard.checklistService")}
              </Link>
            </li>
            <li>
              {page.setup.hasHours ? `${t("owner.done")}: ` : null}
              <Link to="/dashboard/hours" className={linkClass}>
                {t("dashboard.checklistHours")}
              </Link>
            </li>
            <li>{t("dashboard.checklistShare")}</li>
          </ol>
        </section>
      ) : null}
      <BookingFilters current={page.filter} attentionCount={page.attentionCount} />
      {page.bookings.length === 0 ? (
        <p className="mt-6 rounded-2xl border border-dashed border-slate-300 bg-white p-6 text-center text-slate-700">{empty}</p>
      ) : (
        <BookingRows bookings={page.bookings} returnTo={returnTo} />
      )}
      {page.total > page.pageSize ? (
        <Pager page={page.page} total={page.total} pageSize={page.pageSize} label={t("owner.bookings.pages")} drop={["done", "booking"]} />
      ) : null}
    </OwnerShell>
  );
}
