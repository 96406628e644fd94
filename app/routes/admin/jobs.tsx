import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/jobs";
import { requireAdmin } from "~/features/admin/access.server";
import { AdminHeading, Empty } from "~/features/admin/admin-ui";
import { summarizeJobs } from "~/features/admin/jobs.server";
import { formatWhen } from "~/lib/when";
import { Badge } from "~/ui/badge";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const { jobs, schedules } = await summarizeJobs(services);
  return {
    title: `${t("admin.jobs.title")} · Sakina`,
    schedules,
    jobs: jobs.map((job) => ({
      name: job.name,
      lastRun: job.lastRunAt ? formatWhen(job.lastRunAt, "UTC", locale) : "",
      lastState: job.lastState ?? "",
      completed: job.completed24h,
      failed: job.failed24h,
      lastFailure: job.lastFailureAt ? `${formatWhen(job.lastFailureAt, "UTC", locale)}: ${job.lastFailure ?? ""}` : "",
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Jobs({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.jobs.intro")}>{t("admin.jobs.title")}</AdminHeading>
      {loaderData.jobs.length === 0 ? (
        <Empty>{t("admin.jobs.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.jobs.title")}
          rows={loaderData.jobs}
          rowKey={(row) => row.name}
          columns={[
            { header: t("admin.jobs.name"), cell: (row) => <code dir="ltr">{row.name}</code>, primary: true },
            { header: t("admin.jobs.lastRun"), cell: (row) => row.lastRun },
            {
              header: t("admin.jobs.lastState"),
              cell: (row) => (
                <Badge tone={row.lastState === "failed" ? "danger" : row.lastState === "completed" ? "success" : "neutral"}>
                  {row.lastState}
                </Badge>
              ),
            },
            { header: t("admin.jobs.completed"), cell: (row) => row.completed },
            { header: t("admin.jobs.failed"), cell: (row) => row.failed },
            {
              header: t("admin.jobs.lastError"),
              cell: (row) => (
                <span dir="ltr" className="break-all">
                  {row.lastFailure}
                </span>
              ),
            },
          ]}
        />
      )}
      <h2 className="mt-8 mb-3 text-xl font-semibold text-slate-900">{t("admin.jobs.schedules")}</h2>
      <ResponsiveTable
        caption={t("admin.jobs.schedules")}
        rows={loaderData.schedules}
        rowKey={(row) => row.name}
        columns={[
          { header: t("admin.jobs.name"), cell: (row) => <code dir="ltr">{row.name}</code>, primary: true },
          { header: t("admin.jobs.cron"), cell: (row) => <code dir="ltr">{row.cron}</code> },
        ]}
      />
    </>
  );
}
