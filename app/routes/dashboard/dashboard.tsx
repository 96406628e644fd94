import { isRouteErrorResponse, Link, useLocation } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/dashboard";
import { loadBookingsPage } from "~/features/business/bookings.server";
import { BookingCard, BookingFilters } from "~/features/business/dashboard/bookings";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { PlanNotice } from "~/features/business/dashboard/plan";
import { ownerAction } from "~/features/business/owner-action.server";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { buttonClass, linkClass } from "~/ui/form/button";
import { FocusHeading } from "~/ui/form/focus";
import { ErrorPage } from "~/ui/shell/error-page";
import { consumerDashboard, consumerDashboardAction } from "~/features/subscriptions/dashboard.server";
import { ConsumerDashboard, ConsumerRefused } from "~/features/subscriptions/dashboard-page";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

/** The owner's app frame; a consumer's dashboard (`?userId=`) is a page of the public site. */
export const handle: ShellHandle = {
  shell: (loaderData) => ((loaderData as { kind?: string } | undefined)?.kind?.startsWith("consumer") ? "public" : "owner"),
};

/**
 * /dashboard: the owner's bookings, one list at a time (upcoming, needing attention, past), each
 * with its actions. `?userId=` addresses a consumer dashboard, which only the session that owns
 * that user may see (none yet: the sign-in page).
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  if (new URL(request.url).searchParams.has("userId")) return consumerDashboard(context, request);
  const gate = await ownerForPage(context, request);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadBookingsPage(owner, new URL(request.url));
  const title = ownerTitle(owner, `${owner.t("bookings.title")}: ${owner.t(`owner.bookings.filter.${page.filter}`)}`);
  return { kind: "owner" as const, title, shell: owner.shell, ...page };
}

// A consumer's dashboard writes its own <title> (PageTitle: "Error: …" after a failed form).
export const meta: Route.MetaFunction = ({ loaderData }) =>
  loaderData?.kind.startsWith("consumer") ? [] : [{ title: loaderData?.title ?? "Sakina" }];

export const action = (args: Route.ActionArgs) =>
  new URL(args.request.url).searchParams.has("userId") ? consumerDashboardAction(args.context, args.request) : ownerAction(args);

export default function Bookings({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard" />;
  if (loaderData.kind === "consumer-refused") return <ConsumerRefused title={loaderData.title} invalid={loaderData.invalid} />;
  if (loaderData.kind === "consumer") {
    return (
      <ConsumerDashboard
        title={loaderData.title}
        dashboard={loaderData.dashboard}
        price={loaderData.price}
        actionData={actionData && "values" in actionData ? (actionData as never) : null}
      />
    );
  }
  const page = loaderData;
  const returnTo = page.filter === "upcoming" ? "/dashboard" : `/dashboard?filter=${page.filter}`;
  const formError = actionData && "formError" in actionData ? (actionData.formError ?? null) : null;
  const empty = {
    upcoming: t("bookings.noneUpcoming"),
    attention: t("owner.bookings.noneAttention"),
    past: t("owner.bookings.nonePast"),
  }[page.filter];
  return (
    <OwnerShell shell={page.shell} current="bookings">
      <OwnerStatus message={formError} tone="error" />
      <OwnerStatus message={page.message} />
      <PlanNotice notice={page.planNotice} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("bookings.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("owner.bookings.intro", { zone: page.zoneName })}</p>
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
        <ul className="mt-4 space-y-3">
          {page.bookings.map((booking) => (
            <li key={booking.id}>
              <BookingCard booking={booking} returnTo={returnTo} />
            </li>
          ))}
        </ul>
      )}
    </OwnerShell>
  );
}

/** A dashboard whose data could not be read (the database unreachable, a bug): the spec's text and a way to try again. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  const location = useLocation();
  // A refusal (403, 404) is an answer, not a failure to load.
  if (isRouteErrorResponse(error)) return <ErrorPage error={error} />;
  console.error(error);
  return (
    <div className="mx-auto max-w-xl px-4 py-16">
      <div role="alert">
        <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
          {t("subscribe.dash.loadFailed")}
        </FocusHeading>
      </div>
      <div className="mt-6 flex flex-wrap gap-3">
        <a href={`${location.pathname}${location.search}`} className={buttonClass()}>
          {t("subscribe.checkAgain")}
        </a>
        <Link to="/" className={buttonClass("secondary")}>
          {t("errors.goHome")}
        </Link>
      </div>
    </div>
  );
}
