import { data } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/payments";
import { listFailedRefundsForAdmin, listPaymentsForAdmin } from "#models/admin-lists";
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

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { services, t, locale } = await requireAdmin(context, request);
  const page = pageOf(url);
  const [{ rows, total }, failed] = await Promise.all([
    listPaymentsForAdmin(services.db, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }),
    listFailedRefundsForAdmin(services.db),
  ]);
  const row = ({ payment, businessName, empathyStatus }: (typeof rows)[number]) => ({
    id: payment.id,
    when: formatWhen(payment.createdAt, "UTC", locale),
    purpose: t(`admin.paymentPurpose.${payment.purpose}`),
    business: businessName ?? "",
    amount: formatMoney(payment.amountCents, payment.currency.toUpperCase(), locale),
    status: payment.status,
    refunded: payment.refundedAt !== null,
    refundFailed: payment.refundedAt === null && empathyStatus === "refund_failed",
  });
  return {
    title: `${pagedTitle(t, t("admin.payments.title"), page)} · Sakina`,
    page,
    total,
    rows: rows.map(row),
    failedRefunds: failed.map(row),
  };
}

export const meta: Route.MetaFunction = ({ loaderData }) => [{ title: loaderData?.title ?? "Sakina" }];

export async function action({ request, url, context }: Route.ActionArgs) {
  const { services, t, admin } = await requireAdmin(context, request);
  const fields = await rowAction(request, t);
  if (fields.intent !== "refund") throw data(null, { status: 400 });
  const result = await refundPayment(services, admin, fields.id);
  if (result.ok)
    return redirectWithToast(services, backTo(url), { type: "success", title: t("admin.payments.refundDone", { id: fields.id }) });
  const title =
    result.reason === "not_configured"
      ? t("admin.payments.notConfigured")
      : result.reason === "already_refunded"
        ? t("admin.payments.alreadyRefunded")
        : result.reason === "provider"
          ? t("admin.payments.refundFailed", { message: result.message })
          : null;
  if (!title) throw data(null, { status: 404 });
  return redirectWithToast(services, backTo(url), { type: "error", title });
}

type PaymentRow = Route.ComponentProps["loaderData"]["rows"][number];

export default function Payments({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  return (
    <>
      <AdminHeading intro={t("admin.payments.intro")}>{t("admin.payments.title")}</AdminHeading>
      {loaderData.failedRefunds.length > 0 ? (
        <section aria-labelledby="failed-refunds" className="mb-8 rounded-2xl border border-red-200 bg-red-50 p-4">
          <h2 id="failed-refunds" className="text-lg font-semibold text-red-900">
            {t("admin.payments.failedRefundsTitle")}
          </h2>
          <p className="mt-1 mb-3 text-red-900">{t("admin.payments.failedRefundsIntro")}</p>
          <PaymentsTable caption={t("admin.payments.failedRefundsTitle")} rows={loaderData.failedRefunds} />
        </section>
      ) : null}
      {loaderData.rows.length === 0 ? (
        <Empty>{t("admin.payments.empty")}</Empty>
      ) : (
        <PaymentsTable caption={t("admin.payments.title")} rows={loaderData.rows} />
      )}
      <Pager page={loaderData.page} total={loaderData.total} />
    </>
  );
}

function PaymentsTable({ caption, rows }: { caption: string; rows: PaymentRow[] }) {
  const { t } = useTranslation();
  return (
    <ResponsiveTable
      caption={caption}
      rows={rows}
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
            row.refunded ? (
              <Badge tone="neutral">{t("admin.payments.refunded")}</Badge>
            ) : row.refundFailed ? (
              <Badge tone="danger">{t("admin.payments.refundFailedState")}</Badge>
            ) : (
              <span dir="ltr">{row.status}</span>
            ),
        },
        {
          header: t("admin.payments.refund"),
          cell: (row) =>
            row.refunded ? null : (
              <RowAction
                intent="refund"
                id={row.id}
                tone="danger"
                label={t(row.refundFailed ? "admin.payments.retryRefundLabel" : "admin.payments.refundLabel", { id: row.id })}
              >
                {t(row.refundFailed ? "admin.payments.retryRefund" : "admin.payments.refund")}
              </RowAction>
            ),
        },
      ]}
    />
  );
}
