import { Link } from "~/ui/link";
import { redirect } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.calls";
import { loadCallCentre, placeTestCall } from "~/features/business/call-centre.server";
import { loadPlanView } from "~/features/business/plan.server";
import { PlanNotice, PlanRefusals, PlanUsage } from "~/features/business/dashboard/plan";
import { isolateNumbers } from "~/ui/bidi";
import { linkClass } from "~/ui/form/button";
import { CallCentre } from "~/features/business/dashboard/call-centre";
import { loadOwnerMessages } from "~/features/receptionist/index.server";
import { OwnerMessages } from "~/features/receptionist/owner-messages";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForAction, ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { OwnerShell, OwnerStatus } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** The owner's calls: the plan's confirmation-call allowance, a test call, the recent calls live, the messages callers left. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const [plan, centre, messages] = await Promise.all([
    loadPlanView(owner.services, owner.t, owner.locale, owner.business),
    loadCallCentre(owner.services, owner.t, owner.locale, owner.account, owner.business.timeZone),
    loadOwnerMessages(owner.services, owner.t, owner.locale, owner.business),
  ]);
  const done = url.searchParams.get("done") === "test-call";
  return {
    kind: "owner" as const,
    title: ownerTitle(owner, owner.t("owner.calls.title")),
    shell: owner.shell,
    message: done ? `${owner.t("demo.startedTitle")}. ${owner.t("demo.startedBody")}` : null,
    plan,
    centre,
    messages,
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const owner = await ownerForAction(context, request);
  const typed = String((await request.formData()).get("to") ?? "");
  const refused = await placeTestCall(owner.services, owner.t, context, owner.account, typed);
  if (refused) return refused;
  return redirect("/dashboard/calls?done=test-call");
}

export default function Calls({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/calls" />;
  const { plan } = loaderData;
  return (
    <OwnerShell shell={loaderData.shell} current="calls">
      <OwnerStatus message={loaderData.message} />
      <PlanNotice notice={plan.notice} link={false} />
      <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{t("owner.calls.title")}</h1>
      <section aria-labelledby="plan-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 id="plan-title" className="text-lg font-semibold text-slate-900">
          {t("dashboard.plan")}: {plan.statusLabel}
        </h2>
        {plan.periodLabel ? <p className="mt-1 text-sm text-slate-700">{isolateNumbers(plan.periodLabel)}</p> : null}
        <PlanUsage plan={plan} />
        {plan.estimateLabel ? <p className="mt-2 text-sm text-slate-800">{isolateNumbers(plan.estimateLabel)}</p> : null}
        <PlanRefusals plan={plan} />
        <p className="mt-3 text-sm">
          <Link to="/dashboard/plan" className={linkClass}>
            {t("plan.link")}
          </Link>
        </p>
      </section>
      <CallCentre data={loaderData.centre} reply={actionData} callLinks />
      <OwnerMessages messages={loaderData.messages} />
    </OwnerShell>
  );
}
