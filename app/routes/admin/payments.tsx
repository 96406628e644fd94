import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/payments";
import { listPaymentsForAdmin } from "#models/admin-lists";
import { PAGE_SIZE, requireAdmin } from "~/features/admin/access.server";
import { pageOf, pagedTitle } from "~/ui/pager";
import { refundPayment } from "~/features/admin/actions.server";
import { AdminHeading, Empty, Pager, RowAction } from "~/features/admin/admin-ui";
import { backTo, rowAction } from "~/features/admin/row-action.server";
import { formatWhen } from "~/lib/when";
import { formatMoney } from "~/lib/money";
import { redirectWithToast } from "~/platform/http/toast.server";
import { Badge } from "~/ui/badge";
import { ResponsiveTable } from "~/ui/responsive-table";

export async function loader({ request, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(request);
  const { rows, total } = await listPaymentsForAdmin(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    title: `${pagedTitle(t, t("admin.payments.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map(({ payment, businessName }) => ({
      id: payment.id,
      when: formatWhen(payment.createdAt, "UTC", locale),
      purpose: t(`admin.paymentPurpose.${payment.purpose}`),
      business: businessName ?? "",
      amount: formatMoney(payment.amountCents, payment.currency.toUpperCase(), locale),
      status: payment.status,
      refunded: payment.refundedAt !== null,
    })),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, context }: Route.ActionArgs) {
  const { services, t, admin } = await requireAdmin(context, request);
  const fields = await rowAction(request, t);
  if (fields.intent !== "refund") throw data(null, { status: 400 });
  const result = await refundPayment(services, admin, fields.id);
  if (result.ok)
    return redirectWithToast(services, backTo(request), { type: "success", title: t("admin.payments.refundDone", { id: fields.id }) });
  const title =
    result.reason === "not_configured"
      ? t("admin.payments.notConfigured")
      : result.reason === "already_refunded"
        ? t("admin.payments.alreadyRefunded")
        : result.reason === "provider"
          ? t("admin.payments.refundFailed", { message: result.message })
          : null;
  if (!title) throw data(null, { status: 404 });
  return redirectWithToast(services, backTo(request), { type: "error", title });
}

export default function Payments({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.payments.intro")}>{t("admin.payments.title")}</AdminHeading>
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.payments.empty")}</Empty>
      ) : (
        <ResponsiveTable
          caption={t("admin.payments.title")}
          rows={loaderData.rows}
          rowKey={(row) => row.id}
          columns={[
            { header: t("admin.payments.when"), cell: (row) => row.when, primary: true },
            {
              header: t("admin.payments.purpose"),
              cell: (row) => (
                <>
                  {row.purpose}
                  {row.business ? (
                    <span className="block text-slate-600">
                      <bdi>{row.business}</bdi>
                    </span>
                  ) : null}
                </>
              ),
            },
            { header: t("admin.payments.amount"), cell: (row) => <bdi>{row.amount}</bdi> },
            {
              header: t("admin.payments.status"),
              cell: (row) =>
                row.refunded ? <Badge tone="neutral">{t("admin.payments.refunded")}</Badge> : <span dir="ltr">{row.status}</span>,
            },
            {
              header: t("admin.payments.refund"),
              cell: (row) =>
                row.refunded ? null : (
                  <RowAction intent="refund" id={row.id} tone="danger" label={t("admin.payments.refundLabel", { id: row.id })}>
                    {t("admin.payments.refund")}
                  </RowAction>
                ),
            },
          ]}
        />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}
