import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { BookingView } from "~/features/business/bookings.server";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass, linkClass } from "~/ui/form/button";

const statusTone: Record<string, string> = {
  pending: "bg-amber-100 text-amber-950",
  confirmed: "bg-emerald-100 text-emerald-950",
  cancelled: "bg-slate-200 text-slate-800",
  reschedule_requested: "bg-sky-100 text-sky-950",
  unreachable: "bg-rose-100 text-rose-950",
  no_show: "bg-orange-100 text-orange-950",
};

export function StatusBadge({ status, label }: { status: string; label: string }) {
  return <span className={`inline-block rounded-full px-2.5 py-0.5 text-xs font-semibold ${statusTone[status] ?? ""}`}>{label}</span>;
}

export const bookingFilterIds = ["upcoming", "attention", "cancelled", "past"] as const;

/** The three lists as links (`?filter=`), so they work without JavaScript. */
export function BookingFilters({ current, attentionCount }: { current: string; attentionCount: number }) {
  const { t } = useTranslation();
  return (
    <nav aria-label={t("owner.bookings.filters")} className="mt-4">
      <ul className="flex flex-wrap gap-2">
        {bookingFilterIds.map((id) => {
          const active = id === current;
          return (
            <li key={id}>
              <Link
                to={id === "upcoming" ? "/dashboard" : `/dashboard?filter=${id}`}
                aria-current={active ? "true" : undefined}
                className={`inline-flex items-center gap-2 rounded-full border px-3.5 py-1.5 text-sm font-medium ${
                  active ? "border-teal-700 bg-teal-700 text-white" : "border-slate-300 bg-white text-slate-800 hover:bg-slate-100"
                }`}
              >
                {t(`owner.bookings.filter.${id}`)}
                {id === "attention" && attentionCount > 0 ? (
                  <span className={`rounded-full px-1.5 text-xs ${active ? "bg-white text-teal-900" : "bg-amber-200 text-amber-950"}`}>
                    {attentionCount}
                  </span>
                ) : null}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

const compactAction = {
  primary: "bg-teal-700 text-white hover:bg-teal-800",
  secondary: "border border-sand-300 bg-white text-teal-900 hover:border-teal-700 hover:bg-teal-50",
};
/** A row's action: smaller than the page's buttons (a list of many rows), still a 36 px target. */
const compactActionClass = (variant: keyof typeof compactAction) =>
  `inline-flex min-h-9 items-center justify-center rounded-lg px-3 py-1.5 text-sm font-semibold no-underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-teal-700 ${compactAction[variant]}`;

/**
 * The owner's list: one compact row per booking (on a wide screen one line: when, who and what,
 * status and call, actions; on a phone the same stacked), the rest on the booking's own page.
 * Plain forms and a disclosure for the cancel, so it works without JavaScript.
 */
export function BookingRows({ bookings, returnTo }: { bookings: BookingView[]; returnTo: string }) {
  return (
    <ul className="mt-4 divide-y divide-slate-200 rounded-2xl border border-slate-200 bg-white shadow-sm" data-booking-rows>
      {bookings.map((booking) => (
        <li key={booking.id}>
          <BookingRow booking={booking} returnTo={returnTo} />
        </li>
      ))}
    </ul>
  );
}

function BookingRow({ booking, returnTo }: { booking: BookingView; returnTo: string }) {
  const { t } = useTranslation();
  const who = `${booking.customerName}, ${booking.when}`;
  const call = booking.notCalled ? t("owner.bookings.notCalledShort") : booking.callLabel;
  return (
    <article
      aria-labelledby={`booking-${booking.id}-title`}
      className="grid gap-x-4 gap-y-1.5 px-4 py-3 md:grid-cols-[minmax(11rem,14rem)_minmax(0,1fr)_minmax(9rem,13rem)_auto] md:items-center"
      data-booking-row
    >
      <div className="min-w-0">
        <h2 id={`booking-${booking.id}-title`} className="text-sm font-semibold text-slate-900">
          <Link to={`/dashboard/bookings/${booking.id}`} className="hover:underline">
            {booking.when}
          </Link>
        </h2>
        <p className="text-xs text-slate-600">
          <span className="sr-only">{t("bookingEmail.reference")}: </span>
          <span dir="ltr" className="font-mono font-semibold tracking-wider" data-booking-reference>
            {booking.reference}
          </span>
        </p>
      </div>
      <div className="min-w-0 text-sm">
        <p className="font-medium break-words text-slate-900">
          <bdi>{booking.customerName}</bdi>
        </p>
        <p className="text-xs text-slate-700">
          <bdi>{booking.serviceName}</bdi>
          {" · "}
          <a href={booking.phoneHref} dir="ltr" className={linkClass}>
            {booking.phone}
          </a>
        </p>
      </div>
      <div className="flex min-w-0 flex-wrap items-center gap-x-2 gap-y-0.5 md:block">
        <StatusBadge status={booking.status} label={booking.statusLabel} />
        <p className="text-xs text-slate-700 md:mt-0.5">
          {booking.changeMark ? (
            <span className="font-medium" data-change-mark>
              {booking.changeMark}
              {" · "}
            </span>
          ) : null}
          <span className={booking.notCalled ? "font-medium text-amber-900" : undefined}>{call}</span>
        </p>
      </div>
      {booking.canConfirm || booking.canCancel || booking.canReschedule ? (
        <div className="flex flex-wrap items-start gap-2 md:justify-end">
          {booking.canConfirm ? (
            <Form method="post" noValidate action={returnTo}>
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="confirm-booking" />
              <input type="hidden" name="bookingId" value={booking.id} />
              <button type="submit" className={compactActionClass("primary")}>
                {t("owner.bookings.confirm")}
                <span className="sr-only">: {who}</span>
              </button>
            </Form>
          ) : null}
          {booking.canReschedule ? (
            <Link to={`/dashboard/bookings/${booking.id}#reschedule`} className={compactActionClass("secondary")}>
              {t("owner.bookings.reschedule")}
              <span className="sr-only">: {who}</span>
            </Link>
          ) : null}
          {booking.canCancel ? (
            <CancelBooking bookingId={booking.id} hasEmail={Boolean(booking.email)} who={who} returnTo={returnTo} compact />
          ) : null}
        </div>
      ) : null}
    </article>
  );
}

/**
 * One booking as a card, on its own page (cards at every width: nothing to clip on a phone).
 * Everything the owner needs to act: who, when, how to reach them, what they wrote, what the call achieved.
 */
export function BookingCard({
  booking,
  returnTo,
}: {
  booking: BookingView;
  /** The page to come back to after an action. */
  returnTo: string;
}) {
  const { t } = useTranslation();
  const who = `${booking.customerName}, ${booking.when}`;
  return (
    <article aria-labelledby={`booking-${booking.id}-title`} className="rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-5">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 id={`booking-${booking.id}-title`} className="text-base font-semibold text-slate-900">
            {booking.when}
          </h2>
          <p className="text-sm text-slate-700">
            <bdi>{booking.serviceName}</bdi>
          </p>
        </div>
        <div className="flex flex-col items-end gap-1">
          <StatusBadge status={booking.status} label={booking.statusLabel} />
          {booking.changeMark ? (
            <span className="text-xs font-medium text-slate-700" data-change-mark>
              {booking.changeMark}
            </span>
          ) : null}
        </div>
      </div>
      <dl className="mt-3 grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="font-medium text-slate-600">{t("bookingEmail.reference")}</dt>
        <dd className="text-slate-900">
          <span dir="ltr" className="font-mono font-semibold tracking-wider" data-booking-reference>
            {booking.reference}
          </span>
        </dd>
        <dt className="font-medium text-slate-600">{t("bookings.customer")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.customerName}</bdi>
        </dd>
        <dt className="font-medium text-slate-600">{t("owner.bookings.phone")}</dt>
        <dd>
          <a href={booking.phoneHref} dir="ltr" className={linkClass}>
            {booking.phone}
          </a>
        </dd>
        {booking.email ? (
          <>
            <dt className="font-medium text-slate-600">{t("owner.bookings.email")}</dt>
            <dd className="break-all">
              <a href={`mailto:${booking.email}`} dir="ltr" className={linkClass}>
                {booking.email}
              </a>
            </dd>
          </>
        ) : null}
        {booking.notes ? (
          <>
            <dt className="font-medium text-slate-600">{t("bookingEmail.notes")}</dt>
            <dd className="text-slate-900">
              <span dir="auto" className="whitespace-pre-line">
                {booking.notes}
              </span>
            </dd>
          </>
        ) : null}
        <dt className="font-medium text-slate-600">{t("bookings.call")}</dt>
        <dd className="text-slate-900">
          {booking.notCalled ? (
            <span className="font-medium text-amber-900">{booking.notCalled}</span>
          ) : (
            <>
              {booking.callLabel}
              {booking.preferredTime ? (
                <span className="block text-slate-700">
                  {t("owner.bookings.askedFor")}{" "}
                  <q dir="auto" className="font-medium">
                    {booking.preferredTime}
                  </q>
                </span>
              ) : null}
            </>
          )}
          {booking.call ? (
            <span className="block text-slate-600">
              {booking.call.summary}
              {booking.call.duration ? ` · ${booking.call.duration}` : ""}
            </span>
          ) : null}
        </dd>
        {booking.reminderCall ? (
          <>
            <dt className="font-medium text-slate-600">{t("owner.bookings.reminderCallLabel")}</dt>
            <dd className="text-slate-900" data-reminder-call>
              {booking.reminderCall}
            </dd>
          </>
        ) : null}
        {booking.call?.agentSummary ? (
          <>
            <dt className="font-medium text-slate-600">{t("owner.bookings.agentSummary")}</dt>
            <dd className="text-slate-900">
              <p dir="auto" data-call-summary>
                {booking.call.agentSummary}
              </p>
            </dd>
          </>
        ) : null}
      </dl>
      {booking.call && booking.call.transcript.length > 0 ? (
        <details className="mt-3 rounded-lg bg-slate-50 p-3 text-sm">
          <summary className="cursor-pointer font-medium text-teal-900">
            {t("owner.bookings.transcript")}
            <span className="sr-only">: {who}</span>
          </summary>
          <ol className="mt-2 space-y-1">
            {booking.call.transcript.map((line, index) => (
              <li key={index}>
                <span className="font-medium text-slate-700">
                  {line.role === "agent" ? t("owner.bookings.agent") : t("owner.bookings.caller")}:
                </span>{" "}
                <span dir="auto">{line.text}</span>
              </li>
            ))}
          </ol>
        </details>
      ) : null}
      {booking.canConfirm || booking.canCancel ? (
        <div className="mt-4 flex flex-wrap items-start gap-2 border-t border-slate-100 pt-3">
          {booking.canConfirm ? (
            <Form method="post" noValidate action={returnTo}>
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="confirm-booking" />
              <input type="hidden" name="bookingId" value={booking.id} />
              <Button type="submit">
                {t("owner.bookings.confirm")}
                <span className="sr-only">: {who}</span>
              </Button>
            </Form>
          ) : null}
          {booking.canCancel ? (
            <CancelBooking bookingId={booking.id} hasEmail={Boolean(booking.email)} who={who} returnTo={returnTo} />
          ) : null}
        </div>
      ) : null}
      {booking.canMarkNoShow ? (
        <Form method="post" noValidate action={returnTo} className="mt-4 border-t border-slate-100 pt-3">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="no-show-booking" />
          <input type="hidden" name="bookingId" value={booking.id} />
          <p id={`booking-${booking.id}-no-show`} className="text-sm text-slate-700">
            {t("owner.booking.noShowIntro")}
          </p>
          <Button type="submit" variant="secondary" className="mt-2" aria-describedby={`booking-${booking.id}-no-show`}>
            {t("owner.booking.noShow")}
            <span className="sr-only">: {who}</span>
          </Button>
        </Form>
      ) : null}
    </article>
  );
}

/** Cancel, behind a step that says whether the customer is e-mailed (works without JavaScript): in a row of the list, or on the booking's page. */
function CancelBooking(props: { bookingId: number; hasEmail: boolean; who: string; returnTo: string; compact?: boolean }) {
  const { t } = useTranslation();
  return (
    <details className="group">
      <summary className={`${props.compact ? compactActionClass("secondary") : buttonClass("secondary")} cursor-pointer list-none`}>
        {t("owner.bookings.cancel")}
        <span className="sr-only">: {props.who}</span>
      </summary>
      <Form
        method="post"
        noValidate
        action={props.returnTo}
        className={`mt-2 rounded-lg border border-rose-200 bg-rose-50 p-3${props.compact ? " max-w-xs" : ""}`}
      >
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="cancel-booking" />
        <input type="hidden" name="bookingId" value={props.bookingId} />
        <p className="text-sm text-rose-950">
          {props.hasEmail ? t("owner.bookings.cancelWarning") : t("owner.bookings.cancelWarningNoEmail")}
        </p>
        <button
          type="submit"
          className="mt-2 rounded-lg bg-rose-700 px-4 py-2 text-sm font-medium text-white hover:bg-rose-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-rose-700"
        >
          {t("owner.bookings.cancelConfirm")}
          <span className="sr-only">: {props.who}</span>
        </button>
      </Form>
    </details>
  );
}
