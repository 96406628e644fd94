import { useTranslation } from "~/ui/translation";
import { Ltr } from "~/ui/bidi";
import type { Route } from "./+types/consumers";
import { listConsumersForAdmin } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { AdminHeading, Empty, Pager } from "~/features/admin/admin-ui";
import { maskPhone } from "~/features/admin/mask";
import { formatWhen } from "~/lib/when";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, byStatus, paidCalls, total } = await listConsumersForAdmin(services.db, {
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  });
  return {
    title: `${pagedTitle(t, t("admin.consumers.title"), page)} · Sakina`,
    page,
    total,
    paidCalls,
    byStatus: byStatus.map((row) => ({ label: t(`admin.subscriptionStatus.${row.status}`), count: row.n })),
    rows: rows.map((row) => ({
      id: row.id,
      name: row.fullName,
      phone: maskPhone(row.phone),
      plan: row.callFrequency,
      status: t(`admin.subscriptionStatus.${row.status}`),
      since: formatWhen(row.createdAt, "UTC", locale, "date"),
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Consumers({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.consumers.intro")}>{t("admin.consumers.title")}</AdminHeading>
      <section aria-labelledby="consumer-counts" className="mb-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm">
        <h2 id="consumer-counts" className="text-lg font-semibold text-slate-900">
          {t("admin.consumers.counts")}
        </h2>
        <dl className="mt-2 grid grid-cols-[auto_1fr] gap-x-6 gap-y-1 text-sm">
          <dt className="text-slate-700">{t("admin.consumers.subscribers")}</dt>
          <dd className="font-semibold text-slate-900">{loaderData.total}</dd>
          {loaderData.byStatus.map((row) => (
            <div key={row.label} className="contents">
              <dt className="ps-4 text-slate-700">{row.label}</dt>
              <dd className="text-slate-900">{row.count}</dd>
            </div>
          ))}
          <dt className="text-slate-700">{t("admin.consumers.paidCalls")}</dt>
          <dd className="font-semibold text-slate-900">{loaderData.paidCalls}</dd>
        </dl>
      </section>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.consumers.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.consumers.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: t("admin.consumers.name"), cell: (row) => <bdi>{row.name}</bdi>, primary: true },
            { header: t("admin.consumers.phone"), cell: (row) => <Ltr>{row.phone}</Ltr> },
            { header: t("admin.consumers.plan"), cell: (row) => <span dir="ltr">{row.plan}</span> },
            { header: t("admin.consumers.status"), cell: (row) => row.status },
            { header: t("admin.consumers.since"), cell: (row) => row.since },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
