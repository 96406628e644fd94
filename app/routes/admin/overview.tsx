import { Link } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/overview";
import { requireAdmin } from "~/features/admin/access.server";
import { ADMIN_SECTIONS, AdminHeading } from "~/features/admin/admin-ui";
import { linkClass } from "~/ui/button";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { t } = await requireAdmin(context, request);
  return { title: `${t("admin.overview.title")} · Sakina` };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Overview() {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.overview.intro")}>{t("admin.overview.title")}</AdminHeading>
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
