import { Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/dashboard.call";
import { loadCallPage } from "~/features/business/call-quality.server";
import { QualityTimelineView } from "~/features/business/dashboard/call-quality";
import { NotSignedIn } from "~/features/business/dashboard/not-signed-in";
import { ownerForPage, ownerTitle } from "~/features/business/owner.server";
import { parseDbId } from "~/lib/ids";
import { Ltr } from "~/ui/bidi";
import { linkClass } from "~/ui/form/button";
import { OwnerShell } from "~/ui/shell/owner-shell";
import type { ShellHandle } from "~/ui/shell/shell";

export const handle: ShellHandle = { shell: "owner" };

/** One call of the owner's business and its quality: first words, each turn's wait, interruptions, the end (ADR 0033). */
export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const gate = await ownerForPage(context, request, url);
  if ("refused" in gate) return gate.refused;
  const { owner } = gate;
  const page = await loadCallPage(owner, parseDbId(params.callId));
  const title = ownerTitle(owner, owner.t("quality.callTitle", { when: page.call.when }));
  return { kind: "owner" as const, title, shell: owner.shell, ...page };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export default function CallPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  if (loaderData.kind === "invalid") return <NotSignedIn redirectTo="/dashboard/calls" />;
  const { call, timeline } = loaderData;
  return (
    <OwnerShell shell={loaderData.shell} current="calls" here={false}>
      <p>
        <Link to="/dashboard/calls" className={`${linkClass} text-sm`}>
          {t("quality.back")}
        </Link>
      </p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">
        {t("quality.callTitle", { when: call.when })}
      </h1>
      <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
        <dt className="text-slate-600">{t("quality.purpose")}</dt>
        <dd className="text-slate-900">
          {call.purpose}
          {call.to ? (
            <>
              {" · "}
              <Ltr>{call.to}</Ltr>
            </>
          ) : null}
        </dd>
        <dt className="text-slate-600">{t("quality.status")}</dt>
        <dd className="text-slate-900">
          {call.status}
          {call.outcome ? (
            <>
              {" · "}
              <bdi>{call.outcome}</bdi>
            </>
          ) : null}
        </dd>
        {call.duration ? (
          <>
            <dt className="text-slate-600">{t("quality.duration")}</dt>
            <dd className="text-slate-900">{call.duration}</dd>
          </>
        ) : null}
      </dl>
      {call.summary ? (
        <p className="mt-3 text-sm text-slate-700">
          <span className="font-medium text-slate-600">{t("owner.bookings.agentSummary")}:</span> <span dir="auto">{call.summary}</span>
        </p>
      ) : null}
      <section aria-labelledby="quality-title" className="mt-6 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 id="quality-title" className="text-lg font-semibold text-slate-900">
          {t("quality.title")}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t("quality.intro")}</p>
        {timeline ? <QualityTimelineView timeline={timeline} /> : <p className="mt-3 text-slate-700">{t("quality.none")}</p>}
      </section>
    </OwnerShell>
  );
}
