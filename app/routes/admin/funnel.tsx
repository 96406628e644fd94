import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/funnel";
import { requireAdmin } from "~/features/admin/access.server";
import { AdminHeading } from "~/features/admin/admin-ui";
import { FUNNELS, loadFunnels } from "~/features/admin/funnel.server";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const funnels = await loadFunnels(services, null);
  const percent = new Intl.NumberFormat(locale, { style: "percent", maximumFractionDigits: 1 });
  const format = (steps: (typeof funnels)["empathy"]) =>
    steps.map((step) => ({
      name: step.name,
      label: t(`admin.funnel.events.${step.name}`),
      count: step.count,
      conversion: step.conversion === null ? "" : percent.format(step.conversion),
    }));
  return {
    title: `${t("admin.funnel.title")} · Sakina`,
    funnels: (Object.keys(FUNNELS) as (keyof typeof FUNNELS)[]).map((id) => ({ id, steps: format(funnels[id]) })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Funnel({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.funnel.intro")}>{t("admin.funnel.title")}</AdminHeading>
      <div className="space-y-8">
        {loaderData.funnels.map((funnel) => (
          <section key={funnel.id} aria-labelledby={`funnel-${funnel.id}`}>
            <h2 id={`funnel-${funnel.id}`} className="mb-3 text-xl font-semibold text-slate-900">
              {t(`admin.funnel.${funnel.id}`)}
            </h2>
            <ResponsiveTable
              caption={t(`admin.funnel.${funnel.id}`)}
              rows={funnel.steps}
              rowKey={(row) => row.name}
              columns={[
                { header: t("admin.funnel.step"), cell: (row) => row.label, primary: true },
                { header: t("admin.funnel.count"), cell: (row) => row.count },
                { header: t("admin.funnel.conversion"), cell: (row) => row.conversion },
              ]}
            />
          </section>
        ))}
      </div>
    </>
  );
}
