import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/overview";
import { countAwaitingReview, countBusinessesByStatus, countOpenTickets } from "#models/admin-lists";
import { requireAdmin } from "~/features/admin/access.server";
import { ADMIN_SECTIONS, AdminHeading } from "~/features/admin/admin-ui";
import { linkClass } from "~/ui/form/button";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t } = await requireAdmin(context, request);
  const [toReview, openTickets, suspended] = await Promise.all([
    countAwaitingReview(services.db),
    countOpenTickets(services.db),
    countBusinessesByStatus(services.db, "suspended"),
  ]);
  return { title: `${t("admin.overview.title")} · Sakina`, toReview, openTickets, suspended };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Overview({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.overview.intro")}>{t("admin.overview.title")}</AdminHeading>
      <ul className="mb-6 flex flex-wrap gap-3 text-sm">
        <li className="rounded-xl border border-slate-200 bg-white px-4 py-2 shadow-sm">
          <Link to="/admin/reviews" className={linkClass}>
            {t("admin.overview.toReview", { count: loaderData.toReview })}
          </Link>
        </li>
        <li className="rounded-xl border border-slate-200 bg-white px-4 py-2 shadow-sm">
          <Link to="/admin/support" className={linkClass}>
            {t("admin.overview.openTickets", { count: loaderData.openTickets })}
          </Link>
        </li>
        <li className="rounded-xl border border-slate-200 bg-white px-4 py-2 shadow-sm">
          <Link to="/admin/businesses" className={linkClass}>
            {t("admin.overview.suspended", { count: loaderData.suspended })}
          </Link>
        </li>
      </ul>
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
        {ADMIN_SECTIONS.filter((section) => section.id !== "overview").map((section) => (
          <li key={section.id} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
            <Link to={section.to} className={`${linkClass} text-lg`}>
              {t(`admin.nav.${section.id}`)}
            </Link>
            <p className="mt-1 text-sm text-slate-700">{t(`admin.about.${section.id}`)}</p>
          </li>
        ))}
      </ul>
    </>
  );
}
