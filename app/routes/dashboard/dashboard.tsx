import { Link } from "~/ui/link";
import { isRouteErrorResponse, useLocation } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard";
import { OwnerDashboard } from "~/features/business/dashboard/owner-dashboard";
import { ownerDashboard, ownerDashboardAction } from "~/features/business/dashboard/owner-dashboard.server";
import { consumerDashboard, consumerDashboardAction } from "~/features/subscriptions/dashboard.server";
import { ConsumerDashboardPage, type ConsumerDashboardPageData } from "~/features/subscriptions/dashboard-page";
import { buttonClass } from "~/ui/form/button";
import { FocusHeading } from "~/ui/form/focus";
import { ErrorPage } from "~/ui/shell/error-page";
import type { ShellHandle } from "~/ui/shell/shell";

/**
 * /dashboard holds two dashboards (DESIGN §3): `?userId=N` addresses a consumer's, which only the
 * session that owns user N may see; without it, a business owner's bookings. The request picks the
 * server side, the data it loaded picks the page.
 */
const serverSide = (url: URL) =>
  url.searchParams.has("userId")
    ? { loader: consumerDashboard, action: consumerDashboardAction }
    : { loader: ownerDashboard, action: ownerDashboardAction };

const isConsumer = (data: Route.ComponentProps["loaderData"] | undefined): data is ConsumerDashboardPageData =>
  data?.kind === "consumer" || data?.kind === "consumer-refused";

export const loader = ({ request, url, context }: Route.LoaderArgs) => serverSide(url).loader(context, request, url);

export const action = ({ request, url, context }: Route.ActionArgs) => serverSide(url).action(context, request, url);

/** The owner's app frame; a consumer's dashboard is a page of the public site. */
export const handle: ShellHandle = {
  shell: (loaderData) => (isConsumer(loaderData as Route.ComponentProps["loaderData"] | undefined) ? "public" : "owner"),
};

// A consumer's dashboard writes its own <title> (PageTitle: "Error: …" after a failed form).
export const meta: Route.MetaFunction = ({ loaderData }) => (isConsumer(loaderData) ? [] : [{ title: loaderData?.title ?? "Sakina" }]);

export default function Dashboard({ loaderData, actionData }: Route.ComponentProps) {
  return isConsumer(loaderData) ? (
    <ConsumerDashboardPage loaderData={loaderData} actionData={actionData} />
  ) : (
    <OwnerDashboard loaderData={loaderData} actionData={actionData} />
  );
}

/** A dashboard whose data could not be read (the database unreachable, a bug): the spec's text and a way to try again. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const { t } = useTranslation();
  const location = useLocation();
  // A refusal (403, 404) is an answer, not a failure to load.
  if (isRouteErrorResponse(error)) return <ErrorPage error={error} />;
  // In the browser; on the server, entry.server.tsx's handleError has logged it.
  if (typeof document !== "undefined") console.error(error);
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
