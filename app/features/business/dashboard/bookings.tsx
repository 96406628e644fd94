import { useTranslation } from "react-i18next";
import { formatPhone } from "~/lib/phone";
import type { DashboardData } from "~/features/business/dashboard/types";

type Row = DashboardData["bookings"]["upcoming"][number];

const statusTone: Record<string, string> = {
  pending: "bg-amber-100 text-amber-900",
  confirmed: "bg-emerald-100 text-emerald-900",
  cancelled: "bg-slate-200 text-slate-800",
  reschedule_requested: "bg-sky-100 text-sky-900",
  unreachable: "bg-rose-100 text-rose-900",
};

export function BookingsSection({ bookings, timeZone }: { bookings: DashboardData["bookings"]; timeZone: string }) {
  const { t } = useTranslation();
  return (
    <section id="bookings" aria-labelledby="bookings-title" className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
      <h2 id="bookings-title" className="text-xl font-semibold text-slate-900">
        {t("bookings.title")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t("bookings.intro", { zone: timeZone })}</p>
      <h3 className="mt-5 font-semibold text-slate-900">{t("bookings.upcoming")}</h3>
      <BookingTable rows={bookings.upcoming} timeZone={timeZone} empty={t("bookings.noneUpcoming")} caption={t("bookings.upcoming")} />
      {bookings.past.length > 0 ? (
        <details className="mt-5">
          <summary className="cursor-pointer font-semibold text-slate-900">{t("bookings.past")}</summary>
          <BookingTable rows={bookings.past} timeZone={timeZone} empty="" caption={t("bookings.past")} />
        </details>
      ) : null}
    </section>
  );
}

function BookingTable({ rows, timeZone, empty, caption }: { rows: Row[]; timeZone: string; empty: string; caption: string }) {
  const { t, i18n } = useTranslation();
  if (rows.length === 0) return <p className="mt-2 text-slate-700">{empty}</p>;
  return (
    <div className="mt-2 overflow-x-auto">
      <table className="w-full min-w-[36rem] text-start text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr className="border-b border-slate-300 text-slate-600">
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t("bookings.when")}
            </th>
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t("book.summaryService")}
            </th>
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t("bookings.customer")}
            </th>
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t("manage.status")}
            </th>
            <th scope="col" className="py-2 text-start font-medium">
              {t("bookings.call")}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} className="border-b border-slate-200 align-top">
              <td className="py-2 pe-3 text-slate-900">
                {new Date(row.startsAt).toLocaleString(i18n.language, { timeZone, dateStyle: "medium", timeStyle: "short" })}
              </td>
              <td className="py-2 pe-3 text-slate-900">{row.serviceName}</td>
              <td className="py-2 pe-3 text-slate-900">
                {row.customerName}
                <span className="block text-slate-600" dir="ltr">
                  {formatPhone(row.customerPhone)}
                </span>
              </td>
              <td className="py-2 pe-3">
                <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${statusTone[row.status] ?? ""}`}>
                  {t(`bookingStatus.${row.status}`)}
                </span>
              </td>
              <td className="py-2 text-slate-700">
                {row.notCalledReason
                  ? t("notCalled.message", {
                      reason: t(`notCalled.reason.${row.notCalledReason as "invalid"}`, { defaultValue: row.notCalledReason }),
                    })
                  : (row.callOutcome ?? t(`callState.${row.callState as "queued"}`, { defaultValue: row.callState }))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
