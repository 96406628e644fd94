import { data, Link, redirect } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/dashboard";
import { findBusinessById } from "#models/businesses";
import { BusinessDashboard } from "~/features/business/dashboard/dashboard";
import { buttonClass } from "~/ui/button";
import { getAccount } from "~/features/auth/auth.server";
import { handleDashboardAction, loadBusinessDashboard } from "~/features/business/dashboard.server";
import { appOrigin } from "~/features/business/onboarding.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { redirectWithToast } from "~/platform/toast.server";

/**
 * /dashboard: with a business session, the owner's dashboard. `?userId=` addresses a consumer
 * dashboard, which only the session that owns that user may see.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const url = new URL(request.url);
  const account = await getAccount(context, request);
  if (account?.mustChangePassword) throw redirect(`/change-password?redirectTo=${encodeURIComponent("/dashboard")}`);
  const business = account?.businessId && !url.searchParams.has("userId") ? await findBusinessById(services.db, account.businessId) : null;
  if (!business) {
    return data({ kind: "invalid" as const, title: `${t("dashboard.invalidTitle")} · Sakina` }, { status: account ? 404 : 401 });
  }
  return loadBusinessDashboard(services, t, business, appOrigin(services));
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const account = await getAccount(context, request);
  if (!account?.businessId || account.mustChangePassword) throw data(null, { status: 403 });
  const result = await handleDashboardAction(services, t, account.businessId, await request.formData());
  if (result.ok) {
    return redirectWithToast(services, `/dashboard#${sectionOf(result.intent)}`, { type: "success", title: result.message });
  }
  return data(result, { status: 400 });
}

function sectionOf(intent: string) {
  if (intent.includes("service")) return "services";
  if (intent.includes("hours") || intent.includes("day-off")) return "hours";
  return "settings";
}

export default function Dashboard({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") {
    return (
      <div className="mx-auto max-w-lg px-4 py-16 text-center">
        <h1 className="text-2xl font-semibold text-slate-900">{t("dashboard.invalidTitle")}</h1>
        <p className="mt-3 text-slate-700">{t("dashboard.invalidBody")}</p>
        <div className="mt-6 flex flex-wrap justify-center gap-3">
          <Link to="/login?redirectTo=%2Fdashboard" className={buttonClass()}>
            {t("nav.login")}
          </Link>
          <Link to="/" className={buttonClass("secondary")}>
            {t("common.backToHome")}
          </Link>
        </div>
      </div>
    );
  }
  return <BusinessDashboard data={loaderData} actionData={actionData && "intent" in actionData ? actionData : undefined} />;
}
