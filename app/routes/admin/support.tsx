import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/support";
import { listSupportTickets } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { closeTicket } from "~/features/admin/actions.server";
import { AdminHeading, Empty, Pager, RowAction } from "~/features/admin/admin-ui";
import { backTo, rowAction } from "~/features/admin/row-action.server";
import { formatWhen } from "~/lib/when";
import { redirectWithToast } from "~/platform/http/toast.server";
import { Badge } from "~/ui/badge";

/** Owners' tickets: open ones first, priority (monthly plan) first among them, oldest first. */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const { rows, total } = await listSupportTickets(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    title: `${pagedTitle(t, t("admin.support.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map(({ ticket, businessName }) => ({
      id: ticket.id,
      when: formatWhen(ticket.createdAt, "UTC", locale),
      business: businessName ?? "",
      email: ticket.email,
      subject: ticket.subject,
      message: ticket.message,
      priority: ticket.priority,
      open: ticket.status === "open",
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const { services, t, admin } = await requireAdmin(context, request);
  const fields = await rowAction(request, t);
  if (fields.intent !== "close") throw data(null, { status: 400 });
  await closeTicket(services, admin, fields.id);
  return redirectWithToast(services, backTo(url), { type: "success", title: t("admin.support.closedToast", { id: fields.id }) });
}

export default function Support({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.support.intro")}>{t("admin.support.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? <Empty>{t("admin.support.empty")}</Empty> : null}
      <ul className="space-y-4">
        {loaderData.rows.map((row) => (
          <li key={row.id}>
            <article aria-labelledby={`ticket-${row.id}`} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div>
                  <h2 id={`ticket-${row.id}`} className="text-lg font-semibold text-slate-900">
                    <bdi>{row.subject}</bdi>
                  </h2>
                  <p className="text-sm text-slate-700">
                    {row.when} · <bdi>{row.business}</bdi> · <bdi>{row.email}</bdi>
                  </p>
                  <p className="mt-1 flex flex-wrap gap-2">
                    {row.priority ? <Badge tone="warning">{t("admin.support.priority")}</Badge> : null}
                    <Badge tone={row.open ? "info" : "neutral"}>{t(row.open ? "admin.support.open" : "admin.support.closed")}</Badge>
                  </p>
                </div>
                {row.open ? (
                  <RowAction intent="close" id={row.id} label={t("admin.support.closeLabel", { id: row.id })}>
                    {t("admin.support.close")}
                  </RowAction>
                ) : null}
              </div>
              <p dir="auto" className="mt-3 whitespace-pre-wrap text-slate-800">
                {row.message}
              </p>
            </article>
          </li>
        ))}
      </ul>
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
