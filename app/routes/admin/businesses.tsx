import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/businesses";
import { listBusinessesForAdmin } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { reactivateBusiness, suspendBusiness } from "~/features/admin/actions.server";
import { AdminHeading, Empty, Pager, RowAction } from "~/features/admin/admin-ui";
import { backTo, rowAction } from "~/features/admin/row-action.server";
import { redirectWithToast } from "~/platform/http/toast.server";
import { Badge } from "~/ui/badge";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, total } = await listBusinessesForAdmin(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  const percent = new Intl.NumberFormat(locale, { style: "percent" });
  return {
    title: `${pagedTitle(t, t("admin.businesses.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map((row) => ({
      id: row.id,
      name: row.name,
      email: row.email,
      status: row.status,
      plan: t(`admin.planStatus.${row.planStatus}`),
      usage: row.callsThisPeriod,
      bookings: row.bookings,
      rate: row.decided > 0 ? percent.format(row.confirmed / row.decided) : t("admin.businesses.none"),
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const { services, t, admin } = await requireAdmin(context, request);
  const fields = await rowAction(request, t);
  if (fields.intent !== "suspend" && fields.intent !== "reactivate") throw data(null, { status: 400 });
  const changed =
    fields.intent === "suspend" ? await suspendBusiness(services, admin, fields.id) : await reactivateBusiness(services, admin, fields.id);
  if (!changed) return redirectWithToast(services, backTo(url), { type: "error", title: t("admin.businesses.notActive") });
  const title = t(fields.intent === "suspend" ? "admin.businesses.suspended" : "admin.businesses.reactivated", { name: changed.name });
  return redirectWithToast(services, backTo(url), { type: "success", title });
}

export default function Businesses({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.businesses.intro")}>{t("admin.businesses.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.businesses.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.businesses.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            {
              header: t("admin.businesses.name"),
              primary: true,
              cell: (row) => (
                <>
                  <bdi>{row.name}</bdi>
                  <span className="block text-sm font-normal text-slate-600">
                    <bdi>{row.email}</bdi>
                  </span>
                </>
              ),
            },
            {
              header: t("admin.businesses.status"),
              cell: (row) => (
                <Badge tone={row.status === "active" ? "success" : row.status === "suspended" ? "danger" : "neutral"}>
                  {t(`admin.businessStatus.${row.status}`)}
                </Badge>
              ),
            },
            { header: t("admin.businesses.plan"), cell: (row) => row.plan },
            { header: t("admin.businesses.usage"), cell: (row) => row.usage },
            { header: t("admin.businesses.bookings"), cell: (row) => row.bookings },
            { header: t("admin.businesses.confirmationRate"), cell: (row) => row.rate },
            {
              header: t("admin.businesses.actions"),
              cell: (row) =>
                row.status === "active" ? (
                  <RowAction intent="suspend" id={row.id} tone="danger" label={t("admin.businesses.suspendLabel", { name: row.name })}>
                    {t("admin.businesses.suspend")}
                  </RowAction>
                ) : row.status === "suspended" ? (
                  <RowAction intent="reactivate" id={row.id} label={t("admin.businesses.reactivateLabel", { name: row.name })}>
                    {t("admin.businesses.reactivate")}
                  </RowAction>
                ) : null,
            },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
