import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/refusals";
import { listRefusalsForAdmin } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { AdminHeading, Empty, Pager } from "~/features/admin/admin-ui";
import { formatWhen } from "~/lib/when";
import { ResponsiveTable } from "~/ui/responsive-table";

/** What the dialling policy refused: rate limits, countries and ranges, opt-outs (hashes only, never a number). */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, total } = await listRefusalsForAdmin(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    title: `${pagedTitle(t, t("admin.refusals.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map(({ refusal, businessName }) => ({
      id: refusal.id,
      when: formatWhen(refusal.createdAt, "UTC", locale),
      path: t(`owner.callPurpose.${refusal.path as "demo"}`, { defaultValue: refusal.path }),
      reason: t(`notCalled.reason.${refusal.reason as "invalid"}`, { defaultValue: refusal.reason }),
      country: refusal.country ?? "",
      business: businessName ?? "",
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Refusals({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.refusals.intro")}>{t("admin.refusals.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.refusals.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.refusals.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: t("admin.refusals.when"), cell: (row) => row.when, primary: true },
            { header: t("admin.refusals.path"), cell: (row) => row.path },
            { header: t("admin.refusals.reason"), cell: (row) => <bdi>{row.reason}</bdi> },
            { header: t("admin.refusals.country"), cell: (row) => <span dir="ltr">{row.country}</span> },
            { header: t("admin.refusals.business"), cell: (row) => <bdi>{row.business}</bdi> },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
