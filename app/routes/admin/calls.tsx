import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/calls";
import { listCallsForAdmin } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { AdminHeading, Empty, Pager } from "~/features/admin/admin-ui";
import { formatWhen } from "~/lib/when";
import { formatMoney } from "~/lib/money";
import { Badge } from "~/ui/badge";
import { linkClass } from "~/ui/form/button";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const flaggedOnly = url.searchParams.get("flagged") === "1";
  const { rows, total } = await listCallsForAdmin(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }, { flaggedOnly });
  const seconds = new Intl.NumberFormat(locale, { style: "unit", unit: "second", unitDisplay: "short" });
  return {
    title: `${pagedTitle(t, t("admin.calls.title"), page)} · Sakina`,
    page,
    total,
    flaggedOnly,
    rows: rows.map((row) => ({
      id: row.id,
      when: formatWhen(row.createdAt, "UTC", locale),
      purpose: t(`owner.callPurpose.${row.purpose}`),
      language: row.language,
      status: t(`owner.callStatus.${row.status}`),
      duration: row.durationSeconds !== null ? seconds.format(row.durationSeconds) : "",
      cost: row.costCents !== null ? formatMoney(row.costCents, "USD", locale) : "",
      delivery:
        row.delivered === true
          ? t("admin.calls.delivered")
          : row.delivered === false
            ? t("admin.calls.notDelivered", { reason: row.undeliveredReason ?? "" })
            : t("admin.calls.pending"),
      delivered: row.delivered,
      flag: row.flaggedForReview ? (row.reviewedAt ? "reviewed" : "flagged") : null,
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Calls({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.calls.intro")}>{t("admin.calls.title")}</AdminHeading>
      <p className="mb-4 text-sm">
        <Link to={loaderData.flaggedOnly ? "/admin/calls" : "/admin/calls?flagged=1"} className={linkClass}>
          {t(loaderData.flaggedOnly ? "admin.calls.filterAll" : "admin.calls.filterFlagged")}
        </Link>
      </p>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.calls.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.calls.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: t("admin.calls.when"), cell: (row) => row.when, primary: true },
            { header: t("admin.calls.purpose"), cell: (row) => row.purpose },
            { header: t("admin.calls.language"), cell: (row) => <span dir="ltr">{row.language}</span> },
            { header: t("admin.calls.status"), cell: (row) => row.status },
            { header: t("admin.calls.duration"), cell: (row) => row.duration },
            { header: t("admin.calls.cost"), cell: (row) => row.cost },
            { header: t("admin.calls.delivery"), cell: (row) => <bdi>{row.delivery}</bdi> },
            {
              header: t("admin.calls.flags"),
              cell: (row) =>
                row.flag === "flagged" ? (
                  <Badge tone="warning">{t("admin.calls.flagged")}</Badge>
                ) : row.flag === "reviewed" ? (
                  <Badge tone="neutral">{t("admin.calls.reviewed")}</Badge>
                ) : null,
            },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
