import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/audit";
import { listAudit } from "#models/audit-log";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { AdminHeading, Empty, Pager } from "~/features/admin/admin-ui";
import { formatWhen } from "~/lib/when";
import { ResponsiveTable } from "~/ui/responsive-table";

/** What admins did, newest first. Read only: the app has no way to change or remove an entry. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, total } = await listAudit(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    title: `${pagedTitle(t, t("admin.audit.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map((row) => ({
      id: row.id,
      when: formatWhen(row.createdAt, "UTC", locale),
      actor: row.actorEmail,
      action: row.action,
      target: row.targetType ? `${row.targetType} ${row.targetId ?? ""}`.trim() : "",
      detail: Object.entries(row.detail)
        .map(([key, value]) => `${key}: ${String(value)}`)
        .join(", "),
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Audit({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.audit.intro")}>{t("admin.audit.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.audit.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.audit.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: t("admin.audit.action"), cell: (row) => <code dir="ltr">{row.action}</code>, primary: true },
            { header: t("admin.audit.when"), cell: (row) => row.when },
            { header: t("admin.audit.actor"), cell: (row) => <bdi>{row.actor}</bdi> },
            { header: t("admin.audit.target"), cell: (row) => <bdi>{row.target}</bdi> },
            { header: t("admin.audit.detail"), cell: (row) => <bdi>{row.detail}</bdi> },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
