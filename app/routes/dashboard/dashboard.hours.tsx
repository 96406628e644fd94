import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.hours";
import { loadHoursPage } from "~/features/business/dashboard.server";
import { HoursSection } from "~/features/business/dashboard/hours";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerAction } from "~/features/business/owner-action.server";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** When customers can book: the weekly opening hours and the days off. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadHoursPage(owner, url);
  return { kind: "owner" as const, title: ownerTitle(owner, owner.t("hours.title")), shell: owner.shell, ...page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export const action = (args: Route.ActionArgs) => ownerAction(args);

export default function Hours({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/hours" />;
  return (
    <OwnerShell shell={loaderData.shell} current="hours">
      <OwnerStatus message={loaderData.message} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("hours.title")}</h1>
      <p className="mt-1 text-sm text-slate-700">{t("hours.intro", { zone: loaderData.zoneName })}</p>
      <HoursSection
        schedule={loaderData.schedule}
        daysOff={loaderData.daysOff}
        actionData={actionData && "intent" in actionData ? actionData : undefined}
      />
    </OwnerShell>
  );
}
