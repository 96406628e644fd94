import { data, Link, redirect } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/dashboard";
import { listServices } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { getWeeklySchedule, listDaysOff } from "#models/opening-hours";
import { listBusinessBookings } from "#models/bookings";
import { countBusinessCallsSince } from "#models/calls";
import { MONTHLY_CALLS, STARTER_CALLS } from "#models/businesses";
import { BusinessDashboard } from "~/components/business-dashboard/dashboard";
import { buttonClass } from "~/components/ui/button";
import { getAccount } from "~/server/auth.server";
import { handleDashboardAction } from "~/server/business-dashboard.server";
import { appOrigin } from "~/server/business-onboarding.server";
import { servicesContext } from "~/server/context";
import { getI18n } from "~/server/i18n.server";
import { redirectWithToast } from "~/server/toast.server";

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
  const today = new Date().toISOString().slice(0, 10);
  // The allowance runs from activation during the starter, then per calendar month.
  const periodStart =
    business.planStatus === "starter" && business.activatedAt
      ? business.activatedAt
      : new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
  const [serviceRows, schedule, closures, upcoming, past, callsUsed] = await Promise.all([
    listServices(services.db, business.id),
    getWeeklySchedule(services.db, business.id),
    listDaysOff(services.db, business.id, today),
    listBusinessBookings(services.db, business.id, "upcoming"),
    listBusinessBookings(services.db, business.id, "past", new Date(), 20),
    countBusinessCallsSince(services.db, business.id, periodStart),
  ]);
  const bookingRow = ({ booking, serviceName }: (typeof upcoming)[number]) => ({
    id: booking.id,
    serviceName,
    startsAt: booking.startsAt.toISOString(),
    customerName: booking.customerName,
    customerPhone: booking.customerPhone,
    status: booking.status,
    callState: booking.callState,
    callOutcome: booking.callOutcome,
  });
  return {
    kind: "business" as const,
    title: `${t("dashboard.title")} · ${business.name}`,
    bookingUrl: `${appOrigin(services, request)}/book/${business.bookingLink}`,
    business: {
      name: business.name,
      ownerName: business.ownerName,
      status: business.status,
      planStatus: business.planStatus,
      starterEndsAt: business.starterEndsAt?.toISOString() ?? null,
      phone: business.phone,
      address: business.address ?? "",
      description: business.description ?? "",
      timeZone: business.timeZone,
      minimumNoticeMinutes: business.minimumNoticeMinutes,
      defaultLanguage: business.defaultLanguage,
      confirmationLanguage: business.confirmationLanguage,
      confirmationVoice: business.confirmationVoice,
    },
    services: serviceRows.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description ?? "",
      priceCents: s.priceCents,
      currency: s.currency,
      durationMinutes: s.durationMinutes,
      active: s.active,
    })),
    schedule,
    daysOff: closures.map((d) => ({ id: d.id, date: d.date, note: d.note ?? "" })),
    bookings: { upcoming: upcoming.map(bookingRow), past: past.map(bookingRow) },
    calls: { used: callsUsed, allowance: business.planStatus === "starter" ? STARTER_CALLS : MONTHLY_CALLS },
  };
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
