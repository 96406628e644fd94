import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.services";
import { loadServicesPage } from "~/features/business/dashboard.server";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ServicesSection } from "~/features/business/dashboard/services";
import { ownerAction } from "~/features/business/owner-action.server";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** What customers can book: the business's services, to add, edit, switch off and on. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadServicesPage(owner, url);
  return { kind: "owner" as const, title: ownerTitle(owner, owner.t("services.title")), shell: owner.shell, ...page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export const action = (args: Route.ActionArgs) => ownerAction(args);

export default function Services({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/services" />;
  return (
    <OwnerShell shell={loaderData.shell} current="services">
      <OwnerStatus message={loaderData.message} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("services.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("services.intro")}</p>
      <ServicesSection services={loaderData.services} actionData={actionData && "intent" in actionData ? actionData : undefined} />
    </OwnerShell>
  );
}
