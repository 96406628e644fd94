import { data, Form, Link, redirect } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/booking.manage";
import { announceBusinessChange } from "#models/analytics";
import { formatBookingReference } from "#models/booking-reference";
import { cancelBooking, findBookingByManageToken, rescheduleBooking } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { MonthTables } from "~/features/booking/month-tables";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { parseTimeOfDay } from "~/lib/time";
import { availabilityFor, queueConfirmationCall } from "~/features/booking/booking.server";
import { queueCalendarWrite } from "~/features/booking/index.server";
import { formatLocalDate, formatWhen as formatInstant, formatWhenWithZone, zoneName } from "~/lib/when";
import { confirmationPromise, describeConfirmationPromise } from "~/features/booking/confirmation-promise.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import { BookingShell } from "~/ui/shell/booking-shell";
import { isolatedText, tIsolated } from "~/ui/bidi";
import { FocusHeading } from "~/ui/form/focus";
import { PageTitle } from "~/ui/form/error-summary";
import type { ShellHandle } from "~/ui/shell/shell";
import { redirectWithToast } from "~/platform/http/toast.server";
import type { AppServices } from "~/platform/services.server";

async function load(services: AppServices, token: string) {
  const booking = await findBookingByManageToken(services.db, token);
  if (!booking) return null;
  const business = await findBusinessById(services.db, booking.businessId);
  const service = business ? await findService(services.db, business.id, booking.serviceId) : null;
  return business && service ? { booking, business, service } : null;
}

/**
 * The customer's own page for one booking, reached by the secret link in their e-mail. Each of
 * its steps is an address, as on the booking page: `?cancel=1` asks to confirm the cancel,
 * `?reschedule=1[&date=]` picks a new time, `?cancelled=1` is where a cancel ends.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t, language } = getI18n(context);
  const found = await load(services, params.token);
  if (!found) throw data(null, { status: 404 });
  const { booking, business, service } = found;
  const live = booking.status !== "cancelled" && booking.startsAt.getTime() > Date.now();
  let reschedule: null | {
    zone: string;
    days: { date: string; count: number }[];
    date: string | null;
    day: string | null;
    slots: { time: string; available: boolean; label: string }[];
  } = null;
  if (live && url.searchParams.has("reschedule")) {
    const availability = await availabilityFor(services, business, service);
    const date = url.searchParams.get("date");
    const counts = availability.countsByDate();
    const windowDates = availability.windowDates();
    const chosen = date && windowDates.includes(date) ? date : null;
    reschedule = {
      // The times below are the business's; said in words, as the booking page says its zone.
      zone: zoneName(business.timeZone, language),
      days: windowDates.map((d) => ({ date: d, count: counts.get(d) ?? 0 })),
      date: chosen,
      day: chosen ? formatLocalDate(chosen, language, "day") : null,
      // Written as the booking page writes them (12- or 24-hour as the language does).
      slots: chosen
        ? availability.day(chosen).map(({ time, available }) => ({
            time,
            available,
            label: formatInstant(zonedTimeToUtc(chosen, parseTimeOfDay(time) ?? 0, business.timeZone), business.timeZone, language, "time"),
          }))
        : [],
    };
  }
  return {
    title: `${t("manage.title")} · ${isolatedText(business.name, language)}`,
    locale: getLocale(context),
    business: {
      name: business.name,
      industry: business.industry,
      phone: formatPhone(business.phone),
      address: business.address,
      description: null,
    },
    businessName: business.name,
    serviceName: service.name,
    reference: formatBookingReference(booking.reference),
    when: formatWhenWithZone(booking.startsAt, business.timeZone, language),
    status: booking.status,
    live,
    bookingLink: `/book/${business.bookingLink}`,
    confirmCancel: live && url.searchParams.has("cancel"),
    // A step reached from another one gives its heading the focus (see app/features/booking/booking-page.tsx).
    arrived: [...url.searchParams.keys()].some((key) => key !== "lng"),
    taken: url.searchParams.get("taken") === "1",
    reschedule,
  };
}

export const handle = { shell: "booking" } satisfies ShellHandle;

export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t } = getI18n(context);
  const found = await load(services, params.token);
  if (!found) throw data(null, { status: 404 });
  const { booking, business, service } = found;
  const form = await request.formData();
  const here = `/booking/${params.token}`;
  if (form.get("intent") === "cancel") {
    const cancelled = await services.db.transaction(async (tx) => {
      const row = await cancelBooking(tx, booking.id);
      if (row) await queueCalendarWrite(services, tx, row);
      return row;
    });
    if (cancelled) await announceBusinessChange(services.db, business.id);
    return redirect(`${here}?cancelled=1`);
  }
  const date = String(form.get("date") ?? "");
  const minute = parseTimeOfDay(String(form.get("time") ?? ""));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || minute === null) return redirect(`${here}?reschedule=1`);
  const start = zonedTimeToUtc(date, minute, business.timeZone);
  const availability = await availabilityFor(services, business, service);
  const free = availability.freeStarts();
  // The booking's own current time counts as busy; moving onto it is no move at all.
  if (!free.includes(start)) return redirect(`${here}?reschedule=1&date=${date}&taken=1`);
  // The new time and its confirmation call's job commit together (a crash between them would leave it uncalled).
  const moved = await services.db.transaction(async (tx) => {
    const result = await rescheduleBooking(tx, booking.id, new Date(start), new Date(start + service.durationMinutes * 60_000));
    if (result.kind === "moved") {
      await queueConfirmationCall(services, tx, result.booking, services.publicOrigin());
      await queueCalendarWrite(services, tx, result.booking);
    }
    return result;
  });
  if (moved.kind === "taken") return redirect(`${here}?reschedule=1&date=${utcToZoned(start, business.timeZone).date}&taken=1`);
  if (moved.kind === "moved") await announceBusinessChange(services.db, business.id);
  // What the new time's confirmation call will really be (now, at a stated time, or none), as the booking page says it.
  const promise = await confirmationPromise(services, business);
  return redirectWithToast(services, here, {
    type: "success",
    title: t("manage.moved"),
    description: describeConfirmationPromise(t, getLocale(context), business, promise, { emailed: Boolean(booking.customerEmail) }),
  });
}

export default function ManageBooking({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation();
  const data = loaderData;
  const cancelled = data.status === "cancelled";
  return (
    <BookingShell business={data.business} locale={data.locale}>
      <PageTitle title={data.title} />
      <div className="mx-auto max-w-3xl px-4 py-8 sm:py-10">
        {cancelled ? (
          <FocusHeading key="cancelled" level={1} arrived={data.arrived} className="text-2xl font-semibold tracking-tight text-slate-900">
            {t("manage.cancelledTitle")}
          </FocusHeading>
        ) : (
          <FocusHeading key="booking" level={1} className="text-2xl font-semibold tracking-tight text-slate-900">
            {t("manage.title")}
          </FocusHeading>
        )}
        {cancelled ? <p className="mt-3 text-slate-700">{t("manage.cancelledBody")}</p> : null}
        <div className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
            <dt className="font-medium text-slate-600">{t("bookingEmail.reference")}</dt>
            <dd className="text-slate-900">
              <span dir="ltr" className="font-mono font-semibold tracking-wider" data-booking-reference>
                {data.reference}
              </span>
            </dd>
            <dt className="font-medium text-slate-600">{t("manage.business")}</dt>
            <dd className="text-slate-900">
              <bdi>{data.businessName}</bdi>
            </dd>
            <dt className="font-medium text-slate-600">{t("book.summaryService")}</dt>
            <dd className="text-slate-900">
              <bdi>{data.serviceName}</bdi>
            </dd>
            <dt className="font-medium text-slate-600">{t("book.summaryWhen")}</dt>
            <dd className="text-slate-900">
              <bdi>{data.when}</bdi>
            </dd>
            <dt className="font-medium text-slate-600">{t("manage.status")}</dt>
            <dd className="text-slate-900">{t(`bookingStatus.${data.status}`)}</dd>
          </dl>
          {/* While a new time is picked the cancel is not offered: one decision at a time. */}
          {data.live && !data.reschedule && !data.confirmCancel ? (
            <div className="mt-6 flex flex-wrap gap-3">
              <Link to="?reschedule=1" className={buttonClass()}>
                {t("manage.reschedule")}
              </Link>
              <Link to="?cancel=1" className={buttonClass("secondary")}>
                {t("manage.cancel")}
              </Link>
            </div>
          ) : null}
          {cancelled ? (
            <p className="mt-6">
              <Link to={data.bookingLink} className={buttonClass()}>
                {t("manage.bookAgain")}
              </Link>
            </p>
          ) : null}
        </div>
        {data.confirmCancel ? (
          <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
            <FocusHeading key="cancel" arrived={data.arrived} className="text-xl font-semibold text-slate-900">
              {t("manage.cancelConfirmTitle")}
            </FocusHeading>
            <p className="mt-3 text-slate-700">{tIsolated(t, "manage.cancelConfirmBody", { business: data.businessName })}</p>
            <Form method="post" noValidate className="mt-4 flex flex-wrap items-center gap-4">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="cancel" />
              <Button type="submit" variant="danger">
                {t("manage.cancelYes")}
              </Button>
              <Link to="." className={linkClass}>
                {t("manage.keep")}
              </Link>
            </Form>
          </section>
        ) : null}
        {data.reschedule ? (
          <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
            {data.taken ? (
              <p role="alert" className="mb-3 rounded-lg bg-amber-50 p-3 font-medium text-amber-900">
                {t("book.justTaken")}
              </p>
            ) : null}
            {data.reschedule.date ? (
              <Form method="post" noValidate>
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="reschedule" />
                <input type="hidden" name="date" value={data.reschedule.date} />
                <FocusHeading
                  key={`time-${data.reschedule.date}`}
                  id="reschedule-title"
                  arrived={data.arrived && !data.taken}
                  className="text-xl font-semibold text-slate-900"
                >
                  {t("book.timesOn", { day: data.reschedule.day })}
                </FocusHeading>
                <fieldset aria-labelledby="reschedule-title">
                  <div className="mt-3 grid grid-cols-[repeat(auto-fill,minmax(6rem,1fr))] gap-2">
                    {data.reschedule.slots.map((slot) => (
                      <label
                        key={slot.time}
                        className={`flex items-center justify-center gap-1.5 rounded-lg border px-1.5 py-2 text-sm ${slot.available ? "cursor-pointer border-slate-300 has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50" : "border-slate-200 text-slate-500 line-through"}`}
                      >
                        <input type="radio" name="time" value={slot.time} disabled={!slot.available} required className="accent-teal-700" />
                        <bdi className="whitespace-nowrap">{slot.label}</bdi>
                        {slot.available ? null : <span className="sr-only">{t("book.unavailable")}</span>}
                      </label>
                    ))}
                  </div>
                </fieldset>
                <div className="mt-4 flex flex-wrap items-center gap-4">
                  <Button type="submit">{t("manage.moveHere")}</Button>
                  <Link to="?reschedule=1" className={linkClass}>
                    {t("book.otherDate")}
                  </Link>
                  <Link to="." className={linkClass}>
                    {t("manage.keep")}
                  </Link>
                </div>
              </Form>
            ) : (
              <Form method="get">
                <FocusHeading
                  key="reschedule"
                  id="reschedule-title"
                  arrived={data.arrived}
                  className="text-xl font-semibold text-slate-900"
                >
                  {t("manage.chooseDate")}
                </FocusHeading>
                <input type="hidden" name="reschedule" value="1" />
                <div className="mt-4">
                  <MonthTables days={data.reschedule.days} />
                </div>
                <p className="mt-4">
                  <Link to="." className={linkClass}>
                    {t("manage.keep")}
                  </Link>
                </p>
              </Form>
            )}
            <p className="mt-4 text-sm text-slate-600">{tIsolated(t, "book.zoneNote", { zone: data.reschedule.zone })}</p>
          </section>
        ) : null}
      </div>
    </BookingShell>
  );
}
