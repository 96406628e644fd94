import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { PlanView } from "~/features/business/plan.server";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { isolateNumbers } from "~/ui/bidi";
import { Button, linkClass } from "~/ui/form/button";

/** A notice the owner must see: calls paused (past due) or stopped by the plan. */
export function PlanNotice({ notice, link = true }: { notice: string | null; link?: boolean }) {
  const { t } = useTranslation();
  if (!notice) return null;
  return (
    <section aria-label={t("plan.title")} className="mb-4 rounded-xl border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
      <p className="font-medium">{isolateNumbers(notice)}</p>
      {link ? (
        <p className="mt-1">
          <Link to="/dashboard/plan" className={linkClass}>
            {t("plan.link")}
          </Link>
        </p>
      ) : null}
    </section>
  );
}

/** Usage this period against the allowance, as text and as a bar. */
export function PlanUsage({ plan }: { plan: PlanView }) {
  const { t } = useTranslation();
  return (
    <>
      <p className="mt-3 text-sm font-medium text-slate-800">{isolateNumbers(plan.usedLabel)}</p>
      <div
        role="progressbar"
        aria-label={plan.usedLabel}
        aria-valuemin={0}
        aria-valuemax={plan.allowance}
        aria-valuenow={Math.min(plan.used, plan.allowance)}
        className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
      >
        <div className="h-full bg-teal-700" style={{ width: `${Math.min(100, (plan.used / plan.allowance) * 100)}%` }} />
      </div>
      {plan.overage > 0 ? (
        <p className="mt-2 text-sm text-slate-800">{isolateNumbers(t("plan.overage", { count: plan.overage }))}</p>
      ) : null}
    </>
  );
}

/** The confirmation calls the plan kept from being placed this period. */
export function PlanRefusals({ plan }: { plan: PlanView }) {
  const { t } = useTranslation();
  if (plan.refused.length === 0) return null;
  return (
    <section aria-labelledby="plan-refused-title" className="mt-4">
      <h3 id="plan-refused-title" className="text-base font-semibold text-slate-900">
        {t("plan.refusedTitle")}
      </h3>
      <ul className="mt-1 list-disc space-y-1 ps-5 text-sm text-slate-800">
        {plan.refused.map((r) => (
          <li key={r.id}>
            {isolateNumbers(r.when)}: {isolateNumbers(r.reason)}
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The owner's plan page: status, usage, next invoice, and the upgrade and cancel forms. */
export function PlanPage({ plan, error }: { plan: PlanView; error: string | null }) {
  const { t } = useTranslation();
  return (
    <>
      <section aria-labelledby="plan-status-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
        <h2 id="plan-status-title" className="text-lg font-semibold text-slate-900">
          {t("dashboard.plan")}: {plan.statusLabel}
        </h2>
        {plan.periodLabel ? <p className="mt-1 text-sm text-slate-700">{isolateNumbers(plan.periodLabel)}</p> : null}
        <PlanUsage plan={plan} />
        {plan.estimateLabel ? <p className="mt-3 text-base font-semibold text-slate-900">{isolateNumbers(plan.estimateLabel)}</p> : null}
        <p className="mt-1 text-sm text-slate-700">{isolateNumbers(plan.estimateDetail)}</p>
        {plan.ending ? <p className="mt-2 text-sm font-medium text-slate-900">{isolateNumbers(plan.ending)}</p> : null}
        <PlanRefusals plan={plan} />
      </section>
      {error ? (
        <p role="alert" className="mt-4 rounded-lg border border-rose-300 bg-rose-50 p-3 text-sm font-medium text-rose-900">
          {error}
        </p>
      ) : null}
      {plan.canUpgrade ? (
        <section aria-labelledby="plan-upgrade-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
          <h2 id="plan-upgrade-title" className="text-lg font-semibold text-slate-900">
            {t("plan.upgradeTitle")}
          </h2>
          <p className="mt-1 text-sm text-slate-700">{isolateNumbers(plan.upgradeIntro)}</p>
          <Form method="post" noValidate className="mt-3">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value="upgrade" />
            <Button type="submit">{t("plan.upgradeButton")}</Button>
          </Form>
        </section>
      ) : null}
      {plan.canCancel || plan.canKeep ? (
        <section aria-labelledby="plan-cancel-title" className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
          <h2 id="plan-cancel-title" className="text-lg font-semibold text-slate-900">
            {t("plan.cancelTitle")}
          </h2>
          {plan.canCancel ? <p className="mt-1 text-sm text-slate-700">{isolateNumbers(plan.cancelIntro)}</p> : null}
          <Form method="post" noValidate className="mt-3">
            <AuthenticityTokenInput />
            <input type="hidden" name="intent" value={plan.canCancel ? "cancel" : "keep"} />
            <Button type="submit" variant={plan.canCancel ? "secondary" : "primary"}>
              {plan.canCancel ? t("plan.cancelButton") : t("plan.keepButton")}
            </Button>
          </Form>
        </section>
      ) : null}
    </>
  );
}
