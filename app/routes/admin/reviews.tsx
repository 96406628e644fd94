import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/reviews";
import { listReviewQueue } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { reviewCall } from "~/features/admin/actions.server";
import { AdminHeading, Empty, Pager, RowAction } from "~/features/admin/admin-ui";
import { backTo, rowAction } from "~/features/admin/row-action.server";
import { formatWhen } from "~/lib/when";
import { redirectWithToast } from "~/platform/http/toast.server";

/** Calls flagged for crisis language, oldest first, with the redacted transcript to read. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, total } = await listReviewQueue(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    title: `${pagedTitle(t, t("admin.reviews.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map((row) => ({
      id: row.id,
      when: formatWhen(row.createdAt, "UTC", locale),
      purpose: t(`owner.callPurpose.${row.purpose}`),
      language: row.language,
      reason: row.flagReason,
      transcript: row.transcript.map((turn) => ({ role: turn.role, text: turn.text })),
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const { services, t, admin } = await requireAdmin(context, request);
  const fields = await rowAction(request, t);
  if (fields.intent !== "reviewed") throw data(null, { status: 400 });
  await reviewCall(services, admin, fields.id);
  // Reviewed now or by another admin a moment ago: either way it has left the queue.
  return redirectWithToast(services, backTo(url), { type: "success", title: t("admin.reviews.done", { id: fields.id }) });
}

export default function Reviews({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.reviews.intro")}>{t("admin.reviews.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? <Empty>{t("admin.reviews.empty")}</Empty> : null}
      <ul className="space-y-4">
        {loaderData.rows.map((row) => (
          <li key={row.id}>
            <article aria-labelledby={`review-${row.id}`} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div>
                  <h2 id={`review-${row.id}`} className="text-lg font-semibold text-slate-900">
                    {t("admin.reviews.call", { id: row.id })}
                  </h2>
                  <p className="text-sm text-slate-700">
                    {row.when} · {row.purpose} · <span dir="ltr">{row.language}</span>
                  </p>
                </div>
                <RowAction intent="reviewed" id={row.id} label={t("admin.reviews.markReviewedLabel", { id: row.id })}>
                  {t("admin.reviews.markReviewed")}
                </RowAction>
              </div>
              {row.reason ? (
                <p className="mt-3 text-sm">
                  <span className="font-medium text-slate-800">{t("admin.reviews.reason")}:</span> <bdi>{row.reason}</bdi>
                </p>
              ) : null}
              <h3 className="mt-3 text-sm font-medium text-slate-800">{t("admin.reviews.transcript")}</h3>
              {row.transcript.length === 0 ? (
                <p className="mt-1 text-sm text-slate-700">{t("admin.reviews.noTranscript")}</p>
              ) : (
                <dl className="mt-1 space-y-1 text-sm">
                  {row.transcript.map((turn, index) => (
                    <div key={index} className="flex gap-2">
                      <dt className="shrink-0 font-medium text-slate-800">
                        {t(turn.role === "caller" ? "admin.reviews.caller" : "admin.reviews.agent")}:
                      </dt>
                      <dd dir="auto" className="text-slate-700">
                        {turn.text}
                      </dd>
                    </div>
                  ))}
                </dl>
              )}
            </article>
          </li>
        ))}
      </ul>
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
