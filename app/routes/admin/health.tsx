import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/health";
import { requireAdmin } from "~/features/admin/access.server";
import { AdminHeading } from "~/features/admin/admin-ui";
import { providerStatuses } from "~/providers/status.server";
import type { AppServices } from "~/platform/services.server";
import { Badge } from "~/ui/badge";
import { ResponsiveTable } from "~/ui/responsive-table";

type State = "working" | "error" | "notConfigured";

/** Each provider checked now with its real credentials (the same check as /providers, not cached). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t } = await requireAdmin(context, request);
  const status = await providerStatuses(services, { refresh: true });
  const rows: { id: string; name: string; state: State; message: string }[] = status.providers
    .filter((provider) => provider.id === "twilio" || provider.id === "openai")
    .map((provider) => ({
      id: provider.id,
      name: provider.name,
      state: !provider.configured ? "notConfigured" : provider.working ? "working" : "error",
      message: provider.message,
    }));
  rows.push({ id: "stripe", name: t("admin.health.payments"), ...(await stripeState(services, t("admin.payments.notConfigured"))) });
  rows.push({
    id: "email",
    name: t("admin.health.email"),
    state: "working",
    message: services.env.SMTP_URL ? t("admin.health.emailSmtp") : t("admin.health.emailOutbox"),
  });
  return { title: `${t("admin.health.title")} · Sakina`, rows, recommendation: status.recommendation };
}

/**
 * A real request with the configured key: looking up a payment that does not exist answers
 * "not found" to a valid key, and an error to a refused key or an unreachable Stripe.
 */
async function stripeState(services: AppServices, notConfigured: string): Promise<{ state: State; message: string }> {
  if (!services.payments) return { state: "notConfigured", message: notConfigured };
  try {
    await services.payments.findPayment("pi_sakina_health_check");
    return { state: "working", message: "" };
  } catch (error) {
    return { state: "error", message: error instanceof Error ? error.message : String(error) };
  }
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Health({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.health.intro")}>{t("admin.health.title")}</AdminHeading>
      <ResponsiveTable
        caption={t("admin.health.title")}
        rows={loaderData.rows}
        rowKey={(row) => row.id}
        columns={[
          { header: t("admin.health.provider"), cell: (row) => row.name, primary: true },
          {
            header: t("admin.health.state"),
            cell: (row) => (
              <Badge tone={row.state === "working" ? "success" : row.state === "error" ? "danger" : "neutral"}>
                {t(`admin.health.${row.state}`)}
              </Badge>
            ),
          },
          { header: t("admin.health.message"), cell: (row) => <bdi>{row.message}</bdi> },
        ]}
      />
      <p className="mt-4 text-sm text-slate-700" dir="ltr">
        {loaderData.recommendation}
      </p>
    </>
  );
}
