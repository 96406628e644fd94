import { data, Form, Link, redirect } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "./+types/booking.manage";
import { announceBusinessChange } from "#models/analytics";
import { cancelBooking, findBookingByManageToken, rescheduleBooking } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { MonthTables } from "~/features/booking/month-tables";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { Button, linkClass } from "~/ui/button";
import { utcToZoned, zonedTimeToUtc } from "~/features/booking/slots";
import { parseTimeOfDay } from "~/lib/time";
import { availabilityFor, bookingConfirmationCallJob, formatWhen } from "~/features/booking/booking.server";
import { appOrigin } from "~/features/business/onboarding.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import { BookingShell } from "~/ui/booking-shell";
import { isolatedText } from "~/ui/bidi";
import { FocusHeading } from "~/ui/focus";
import { PageTitle } from "~/ui/error-summary";
import type { ShellHandle } from "~/ui/shell";
import { redirectWithToast } from "~/platform/toast.server";
import type { AppServices } from "~/platform/services.server";

async function load(services: AppServices, token: string) {
  const booking = await findBookingByManageToken(services.db, token);
  if (!booking) return null;
  const business = await findBusinessById(services.db, booking.businessId);
  const service = business ? await findService(services.db, business.id, booking.serviceId) : null;
  return business && service ? { booking, business, service } : null;
}

/** The customer's own page for one booking, reached by the secret link in their e-mail. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t, language } = getI18n(context);
  const found = await load(services, params.token);
  if (!found) throw data(null, { status: 404 });
  const { booking, business, service } = found;
  const url = new URL(request.url);
  const live = booking.status !== "cancelled" && booking.startsAt.getTime() > Date.now();
  let reschedule: null | { days: { date: string; count: number }[]; date: string | null; slots: { time: string; available: boolean }[] } =
    null;
  if (live && url.searchParams.has("reschedule")) {
    const availability = await availabilityFor(services, business, service);
    const date = url.searchParams.get("date");
    const counts = availability.countsByDate();
    const windowDates = availability.windowDates();
    reschedule = {
      days: windowDates.map((d) => ({ date: d, count: counts.get(d) ?? 0 })),
      date: date && windowDates.includes(date) ? date : null,
      slots: date && windowDates.includes(date) ? availability.day(date).map(({ time, available }) => ({ time, available })) : [],
    };
  }
  return {
    title: `${t("manage.title")} · ${isolatedText(business.name)}`,
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
    when: formatWhen(booking.startsAt, business.timeZone, language),
    status: booking.status,
    live,
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
    if (await cancelBooking(services.db, booking.id)) await announceBusinessChange(services.db, business.id);
    return redirectWithToast(services, here, { type: "success", title: t("manage.cancelled") });
  }
  const date = String(form.get("date") ?? "");
  const minute = parseTimeOfDay(String(form.get("time") ?? ""));
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date) || minute === null) return redirect(`${here}?reschedule=1`);
  const start = zonedTimeToUtc(date, minute, business.timeZone);
  const availability = await availabilityFor(services, business, service);
  const free = availability.freeStarts();
  // The booking's own current time counts as busy; moving onto it is no move at all.
  if (!free.includes(start)) return redirect(`${here}?reschedule=1&date=${date}&taken=1`);
  const moved = await rescheduleBooking(services.db, booking.id, new Date(start), new Date(start + service.durationMinutes * 60_000));
  if (moved.kind === "taken") return redirect(`${here}?reschedule=1&date=${utcToZoned(start, business.timeZone).date}&taken=1`);
  if (moved.kind === "moved") {
    await announceBusinessChange(services.db, business.id);
    await services.jobs.enqueue(bookingConfirmationCallJob, { bookingId: booking.id, origin: appOrigin(services) });
  }
  return redirectWithToast(services, here, { type: "success", title: t("manage.moved") });
}

export default function ManageBooking({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation();
  const data = loaderData;
  return (
    <BookingShell business={data.business} locale={data.locale}>
      <PageTitle title={data.title} />
      <div className="mx-auto max-w-2xl px-4 py-8 sm:py-10">
        <FocusHeading className="text-2xl font-semibold tracking-tight text-slate-900">{t("manage.title")}</FocusHeading>
        <div className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
          <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
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
          {data.live ? (
            <div className="mt-6 flex flex-wrap gap-3">
              <Form method="post" noValidate>
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="cancel" />
                <Button type="submit" variant="secondary">
                  {t("manage.cancel")}
                </Button>
              </Form>
              {data.reschedule ? null : (
                <Link to="?reschedule=1" className={`${linkClass} self-center`}>
                  {t("manage.reschedule")}
                </Link>
              )}
            </div>
          ) : null}
        </div>
        {data.reschedule ? (
          <section aria-labelledby="reschedule-title" className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
            <h2 id="reschedule-title" className="text-xl font-semibold text-slate-900">
              {t("manage.reschedule")}
            </h2>
            {data.taken ? (
              <p role="alert" className="mt-3 rounded-lg bg-amber-50 p-3 font-medium text-amber-900">
                {t("book.justTaken")}
              </p>
            ) : null}
            {data.reschedule.date ? (
              <Form method="post" noValidate className="mt-4">
                <AuthenticityTokenInput />
                <input type="hidden" name="intent" value="reschedule" />
                <input type="hidden" name="date" value={data.reschedule.date} />
                <fieldset>
                  <legend className="font-semibold text-slate-900">
                    {t("book.timesOn", {
                      day: new Date(`${data.reschedule.date}T12:00:00Z`).toLocaleDateString(i18n.language, {
                        weekday: "long",
                        day: "numeric",
                        month: "long",
                        timeZone: "UTC",
                      }),
                    })}
                  </legend>
                  <div className="mt-3 grid grid-cols-3 gap-2 sm:grid-cols-5">
                    {data.reschedule.slots.map((slot) => (
                      <label
                        key={slot.time}
                        className={`flex items-center justify-center gap-2 rounded-lg border px-2 py-2 text-sm ${slot.available ? "border-slate-300" : "border-slate-200 text-slate-500 line-through"}`}
                      >
                        <input type="radio" name="time" value={slot.time} disabled={!slot.available} required className="accent-teal-700" />
                        <bdi dir="ltr">{slot.time}</bdi>
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
                </div>
              </Form>
            ) : (
              <Form method="get" className="mt-4">
                <input type="hidden" name="reschedule" value="1" />
                <MonthTables days={data.reschedule.days} />
              </Form>
            )}
          </section>
        ) : null}
      </div>
    </BookingShell>
  );
}
