import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.analytics";
import { loadAnalytics, parsePeriod } from "~/features/analytics/analytics.server";
import { AnalyticsBody } from "~/features/analytics/analytics-page";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** The owner's analytics over the last 7, 30 or 90 days (`?period=`), in the business's time zone. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const period = parsePeriod(url.searchParams.get("period"));
  return {
    kind: "owner" as const,
    title: ownerTitle(owner, owner.t("analytics.title")),
    shell: owner.shell,
    view: await loadAnalytics(owner, period),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function Analytics({ loaderData }: Route.ComponentProps) {
  const { i18n } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/analytics" />;
  return (
    <OwnerShell shell={loaderData.shell} current="analytics">
      <AnalyticsBody view={loaderData.view} locale={i18n.language} rtl={i18n.dir(i18n.language) === "rtl"} />
    </OwnerShell>
  );
}
