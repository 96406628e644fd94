import { data, redirect } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.plan";
import { PlanNotice, PlanPage } from "~/features/business/dashboard/plan";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForAction, ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { changePlan, loadPlanView, type PlanAction } from "~/features/business/plan.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

const actions: readonly PlanAction[] = ["upgrade", "cancel", "keep"];
const doneCodes = ["upgraded", "cancelled", "kept"] as const;

/** /dashboard/plan: the plan, this period's usage and the next invoice; upgrade or cancel. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const done = url.searchParams.get("done");
  return {
    kind: "owner" as const,
    title: ownerTitle(owner, owner.t("plan.title")),
    shell: owner.shell,
    message: (doneCodes as readonly string[]).includes(done ?? "") ? owner.t(`plan.done.${done as (typeof doneCodes)[number]}`) : null,
    plan: await loadPlanView(owner.services, owner.t, owner.locale, owner.business),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const intent = String((await request.formData()).get("intent") ?? "");
  if (!(actions as readonly string[]).includes(intent)) return data({ error: owner.t("plan.error.unavailable") }, { status: 400 });
  const result = await changePlan(owner.services, owner.business.id, intent as PlanAction);
  if (result.ok) return redirect(`/dashboard/plan?done=${result.done}`);
  const status = result.error === "declined" ? 402 : result.error === "not_starter" || result.error === "not_offered" ? 409 : 503;
  return data({ error: owner.t(`plan.error.${result.error === "not_offered" ? "unavailable" : result.error}`) }, { status });
}

export default function Plan({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/plan" />;
  return (
    <OwnerShell shell={loaderData.shell} current="plan">
      <OwnerStatus message={loaderData.message} />
      <PlanNotice notice={loaderData.plan.notice} link={false} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("plan.title")}</h1>
      <PlanPage plan={loaderData.plan} error={actionData?.error ?? null} />
    </OwnerShell>
  );
}
