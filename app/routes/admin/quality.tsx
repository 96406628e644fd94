import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/quality";
import { requireAdmin } from "~/features/admin/access.server";
import { AdminHeading } from "~/features/admin/admin-ui";
import { QualityDays } from "~/features/analytics/quality-days";
import { loadQualityDays } from "~/features/analytics/quality.server";

const DAYS = 30;

/** Call quality across businesses (ADR 0033): per UTC day, the median and 90th percentile of the first words and the turns' waits. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const to = new Date();
  const from = new Date(Date.UTC(to.getUTCFullYear(), to.getUTCMonth(), to.getUTCDate() - DAYS + 1));
  const view = await loadQualityDays(services.db, { businessId: null, timeZone: "UTC", from, to }, t, locale);
  return { title: `${t("quality.admin.title")} · Sakina`, view };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Quality({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("quality.admin.intro")}>{t("quality.admin.title")}</AdminHeading>
      <QualityDays view={loaderData.view} />
    </>
  );
}
