import { data, redirect } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/booking.manage";
import { formatBookingReference } from "#models/booking-reference";
import { findBookingByManageToken, findBookingOfReplacedLink } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById, type Business } from "#models/businesses";
import { MonthTables } from "~/features/booking/month-tables";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { isCalendarDate, parseTimeOfDay } from "~/lib/time";
import { availabilityFor } from "~/features/booking/booking.server";
import { changeBooking, customerZone } from "~/features/booking/booking-change.server";
import { bookingCalendar, replaceManageLink } from "~/features/booking/manage-link.server";
import { formatLocalDate, formatWhen, viewChoiceOf, zoneName, zoneOptions } from "~/lib/when";
import { KeepInputs, ViewChoice } from "~/ui/form/view-choice";
import { confirmationPromise, describeConfirmationPromise } from "~/features/booking/confirmation-promise.server";
import { servicesContext } from "~/platform/context";
import { getI18n, getLocale } from "~/platform/i18n.server";
import { formatPhone } from "~/platform/phone.server";
import { BookingShell } from "~/ui/shell/booking-shell";
import { isolatedText, Ltr, tIsolated } from "~/ui/bidi";
import { FocusHeading } from "~/ui/form/focus";
import { PageTitle } from "~/ui/form/error-summary";
import type { ShellHandle } from "~/ui/shell/shell";
import { redirectWithToast } from "~/platform/http/toast.server";
import { firstExceededRule } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";

async function load(services: AppServices, token: string) {
  const booking = await findBookingByManageToken(services.db, token);
  if (!booking) return null;
  const business = await findBusinessById(services.db, booking.businessId);
  const service = business ? await findService(services.db, business.id, booking.serviceId) : null;
  return business && service ? { booking, business, service } : null;
}

const frameOf = (business: Business) => ({
  name: business.name,
  industry: business.industry,
  phone: formatPhone(business.phone),
  address: business.address,
  description: null,
});

/** A link within the page, keeping the zone and the clock chosen. */
function hrefWith(keep: Record<string, string>, params: Record<string, string> = {}) {
  const search = new URLSearchParams({ ...params, ...keep }).toString();
  return search ? `?${search}` : ".";
}

/**
 * The customer's own page for one booking, reached by the secret link in their e-mail (the same
 * link for as long as the booking lives). Each of its steps is an address, as on the booking page:
 * `?cancel=1` asks to confirm the cancel, `?reschedule=1[&date=]` picks a new time, `?cancelled=1`
 * is where a cancel ends. `tz` and `clock` choose how times are written (the zone the customer
 * booked in by default); days are the viewer's days in that zone. A link the customer replaced
 * answers in the business's frame; an unknown one in a plain frame, saying how to reach the business.
 */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const { t, language } = getI18n(context);
  const locale = getLocale(context);
  const found = await load(services, params.token);
  if (!found) {
    const replaced = await findBookingOfReplacedLink(services.db, params.token);
    const business = replaced ? await findBusinessById(services.db, replaced.businessId) : null;
    return data(
      {
        kind: "gone" as const,
        title: business ? `${t("manageLink.replacedTitle")} · ${isolatedText(business.name, language)}` : t("manageLink.unknownTitle"),
        locale,
        business: business ? frameOf(business) : null,
        bookingLink: business ? `/book/${business.bookingLink}` : null,
      },
      { status: business ? 410 : 404 },
    );
  }
  const { booking, business, service } = found;
  const view = viewChoiceOf(url.searchParams, customerZone(booking, business), language);
  const live = booking.status !== "cancelled" && booking.startsAt.getTime() > Date.now();
  let reschedule: null | {
    days: { date: string; count: number }[];
    date: string | null;
    day: string | null;
    slots: { start: number; label: string }[];
  } = null;
  if (live && url.searchParams.has("reschedule")) {
    const availability = await availabilityFor(services, business, service);
    // The free times grouped by the viewer's own days in the zone shown: a time just after
    // midnight there is under the day it falls on, whatever the business's day is.
    const byDate = new Map<string, number[]>();
    for (const start of availability.freeStarts()) {
      const { date } = utcToZoned(start, view.zone);
      byDate.set(date, [...(byDate.get(date) ?? []), start]);
    }
    const dates = [...new Set(availability.windowDates().concat([...byDate.keys()]))].sort();
    const date = url.searchParams.get("date");
    const chosen = date && byDate.has(date) ? date : null;
    reschedule = {
      days: dates.map((d) => ({ date: d, count: byDate.get(d)?.length ?? 0 })),
      date: chosen,
      day: chosen ? formatLocalDate(chosen, language, "day") : null,
      slots: chosen ? byDate.get(chosen)!.map((start) => ({ start, label: formatWhen(start, view.zone, view.locale, "time") })) : [],
    };
  }
  const calendar = bookingCalendar(
    services,
    booking,
    business,
    service.name,
    params.token,
    t("flows.calendarDescription", { business: business.name }),
  );
  return {
    kind: "booking" as const,
    title: `${t("manage.title")} · ${isolatedText(business.name, language)}`,
    locale,
    business: frameOf(business),
    businessName: business.name,
    serviceName: service.name,
    reference: formatBookingReference(booking.reference),
    when: `${formatWhen(booking.startsAt, view.zone, view.locale, "full")} (${zoneName(view.zone, language)})`,
    status: booking.status,
    live,
    emailed: Boolean(booking.customerEmail),
    bookingLink: `/book/${business.bookingLink}`,
    confirmCancel: live && url.searchParams.has("cancel"),
    // A step reached from another one gives its heading the focus (see app/features/booking/booking-page.tsx).
    arrived: [...url.searchParams.keys()].some((key) => !["lng", "tz", "clock"].includes(key)),
    taken: url.searchParams.get("taken") === "1",
    newLink: url.searchParams.get("new") === "1",
    view: {
      zone: view.zone,
      zoneName: zoneName(view.zone, language),
      clock: view.clock,
      keep: view.keep,
      zoneOptions: zoneOptions(language, [view.zone, customerZone(booking, business), business.timeZone]),
    },
    calendar: booking.status === "cancelled" ? null : calendar.links,
    reschedule,
  };
}

export const handle = { shell: "booking" } satisfies ShellHandle;

export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const { t, language } = getI18n(context);
  const found = await load(services, params.token);
  if (!found) throw data(null, { status: 404 });
  const { booking, business, service } = found;
  const form = await request.formData();
  const { zone, keep } = viewChoiceOf(form, customerZone(booking, business), language);
  const here = (token: string, params: Record<string, string> = {}) => {
    const search = new URLSearchParams({ ...params, ...keep }).toString();
    return `/booking/${token}${search ? `?${search}` : ""}`;
  };
  if (form.get("intent") === "cancel") {
    await changeBooking(services, { booking, business, by: "customer" }, { kind: "cancelled" });
    return redirect(here(params.token, { cancelled: "1" }));
  }
  if (form.get("intent") === "new-link") {
    // A few a day per booking: each one e-mails the customer, so a link's holder cannot flood them.
    const exceeded = await firstExceededRule(context, [
      { name: "manage-link:booking", subject: String(booking.id), limit: 5, windowSeconds: 86_400 },
    ]);
    if (exceeded) {
      return redirectWithToast(services, here(params.token), {
        type: "error",
        title: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
      });
    }
    const token = await replaceManageLink(services, booking, business);
    return redirect(token ? here(token, { new: "1" }) : here(params.token));
  }
  // The chosen instant; a form of an older page sends the business's date and wall time instead.
  const legacyDate = String(form.get("date") ?? "");
  const legacyMinute = parseTimeOfDay(String(form.get("time") ?? ""));
  const start = form.has("start")
    ? Number(form.get("start"))
    : isCalendarDate(legacyDate) && legacyMinute !== null && legacyMinute < 1440
      ? zonedTimeToUtc(legacyDate, legacyMinute, business.timeZone)
      : NaN;
  if (!Number.isSafeInteger(start)) return redirect(here(params.token, { reschedule: "1" }));
  const availability = await availabilityFor(services, business, service);
  // The booking's own current time counts as busy; moving onto it is no move at all.
  if (!availability.freeStarts().includes(start)) {
    return redirect(here(params.token, { reschedule: "1", date: utcToZoned(start, zone).date, taken: "1" }));
  }
  const moved = await changeBooking(
    services,
    { booking, business, by: "customer" },
    { kind: "moved", start: new Date(start), end: new Date(start + service.durationMinutes * 60_000) },
  );
  if (moved.kind === "taken") return redirect(here(params.token, { reschedule: "1", date: utcToZoned(start, zone).date, taken: "1" }));
  // What the new time's confirmation call will really be (now, at a stated time, or none), as the booking page says it.
  const promise = await confirmationPromise(services, business);
  return redirectWithToast(services, here(params.token), {
    type: "success",
    title: t("manage.moved"),
    description: describeConfirmationPromise(t, getLocale(context), business, promise, { emailed: Boolean(booking.customerEmail) }),
  });
}

/** The zone and clock the page's times are written in (the same choice as the booking page's). */
function ManageViewChoice({ data, extra }: { data: BookingData; extra: Record<string, string> }) {
  const { t } = useTranslation();
  return (
    <ViewChoice
      idPrefix="manage"
      zoneLabel={t("manageLink.zone")}
      zone={data.view.zone}
      clock={data.view.clock}
      zoneOptions={data.view.zoneOptions}
      hidden={extra}
      className="mt-4"
    />
  );
}

type LoaderData = Route.ComponentProps["loaderData"];
type BookingData = Extract<LoaderData, { kind: "booking" }>;

function GoneLink({ data }: { data: Extract<LoaderData, { kind: "gone" }> }) {
  const { t } = useTranslation();
  const business = data.business;
  return (
    <BookingShell business={business} locale={data.locale}>
      <PageTitle title={data.title} />
      <div className="mx-auto max-w-3xl px-4 py-8 sm:py-10">
        <FocusHeading level={1} className="text-2xl font-semibold tracking-tight text-slate-900">
          {business ? t("manageLink.replacedTitle") : t("manageLink.unknownTitle")}
        </FocusHeading>
        <p className="mt-3 text-slate-700">{business ? t("manageLink.replacedBody") : t("manageLink.unknownBody")}</p>
        <p className="mt-3 text-slate-700">
          {business?.phone
            ? tIsolated(t, "manageLink.contactBusiness", { business: business.name, phone: <Ltr>{business.phone}</Ltr> })
            : t("manageLink.unknownContact")}
        </p>
        {data.bookingLink ? (
          <p className="mt-6">
            <Link to={data.bookingLink} className={buttonClass("secondary")}>
              {t("manageLink.bookingPage")}
            </Link>
          </p>
        ) : null}
      </div>
    </BookingShell>
  );
}

export default function ManageBooking({ loaderData }: Route.ComponentProps) {
  if (loaderData.kind === "gone") return <GoneLink data={loaderData} />;
  return <BookingView data={loaderData} />;
}

function BookingView({ data }: { data: BookingData }) {
  const { t } = useTranslation();
  const cancelled = data.status === "cancelled";
  const keep = data.view.keep;
  return (
    <BookingShell business={data.business} locale={data.locale}>
      <PageTitle title={data.title} />
      <div className="mx-auto max-w-3xl px-4 py-8 sm:py-10">
        {cancelled ? (
          <FocusHeading key="cancelled" level={1} arrived={data.arrived} className="text-2xl font-semibold tracking-tight text-slate-900">
            {t("manage.cancelledTitle")}
          </FocusHeading>
        ) : (
          <FocusHeading key="booking" level={1} arrived={data.newLink} className="text-2xl font-semibold tracking-tight text-slate-900">
            {t("manage.title")}
          </FocusHeading>
        )}
        {data.newLink ? (
          <p role="status" className="mt-3 rounded-lg bg-teal-50 p-3 font-medium text-teal-900">
            {data.emailed ? t("manageLink.newLinkDoneEmailed") : t("manageLink.newLinkDone")}
          </p>
        ) : null}
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
            <dd className="text-slate-900" data-booking-when>
              <bdi>{data.when}</bdi>
            </dd>
            <dt className="font-medium text-slate-600">{t("manage.status")}</dt>
            <dd className="text-slate-900">{t(`bookingStatus.${data.status}`)}</dd>
          </dl>
          {/* While a new time is picked the cancel is not offered: one decision at a time. */}
          {data.live && !data.reschedule && !data.confirmCancel ? (
            <div className="mt-6 flex flex-wrap gap-3">
              <Link to={hrefWith(keep, { reschedule: "1" })} className={buttonClass()}>
                {t("manage.reschedule")}
              </Link>
              <Link to={hrefWith(keep, { cancel: "1" })} className={buttonClass("secondary")}>
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
          {!data.reschedule ? <ManageViewChoice data={data} extra={{}} /> : null}
        </div>
        {data.confirmCancel ? (
          <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
            <FocusHeading key="cancel" arrived={data.arrived} className="text-xl font-semibold text-slate-900">
              {t("manage.cancelConfirmTitle")}
            </FocusHeading>
            <p className="mt-3 text-slate-700">{tIsolated(t, "manage.cancelConfirmBody", { business: data.businessName })}</p>
            <Form method="post" noValidate className="mt-4 flex flex-wrap items-center gap-4">
              <AuthenticityTokenInput />
              <KeepInputs keep={keep} />
              <input type="hidden" name="intent" value="cancel" />
              <Button type="submit" variant="danger">
                {t("manage.cancelYes")}
              </Button>
              <Link to={hrefWith(keep)} className={linkClass}>
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
                <KeepInputs keep={keep} />
                <input type="hidden" name="intent" value="reschedule" />
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
                        key={slot.start}
                        className="flex cursor-pointer items-center justify-center gap-1.5 rounded-lg border border-slate-300 px-1.5 py-2 text-sm has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50"
                      >
                        <input type="radio" name="start" value={slot.start} required className="accent-teal-700" />
                        <bdi className="whitespace-nowrap">{slot.label}</bdi>
                      </label>
                    ))}
                  </div>
                </fieldset>
                <div className="mt-4 flex flex-wrap items-center gap-4">
                  <Button type="submit">{t("manage.moveHere")}</Button>
                  <Link to={hrefWith(keep, { reschedule: "1" })} className={linkClass}>
                    {t("book.otherDate")}
                  </Link>
                  <Link to={hrefWith(keep)} className={linkClass}>
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
                <KeepInputs keep={keep} />
                <div className="mt-4">
                  <MonthTables days={data.reschedule.days} />
                </div>
                <p className="mt-4">
                  <Link to={hrefWith(keep)} className={linkClass}>
                    {t("manage.keep")}
                  </Link>
                </p>
              </Form>
            )}
            <p className="mt-4 text-sm text-slate-600">{tIsolated(t, "book.zoneNote", { zone: data.view.zoneName })}</p>
            <ManageViewChoice
              data={data}
              extra={data.reschedule.date ? { reschedule: "1", date: data.reschedule.date } : { reschedule: "1" }}
            />
          </section>
        ) : null}
        {data.calendar ? (
          <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby="calendar-title">
            <h2 id="calendar-title" className="text-lg font-semibold text-slate-900">
              {t("manageLink.addToCalendar")}
            </h2>
            <CalendarLinks links={data.calendar} />
          </section>
        ) : null}
        {data.live ? (
          <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm" aria-labelledby="new-link-title">
            <h2 id="new-link-title" className="text-lg font-semibold text-slate-900">
              {t("manageLink.newLinkTitle")}
            </h2>
            <p className="mt-2 text-slate-700">
              {t("manageLink.newLinkBody")} {data.emailed ? t("manageLink.newLinkEmailed") : null}
            </p>
            <Form method="post" noValidate className="mt-3">
              <AuthenticityTokenInput />
              <KeepInputs keep={keep} />
              <input type="hidden" name="intent" value="new-link" />
              <Button type="submit" variant="secondary">
                {t("manageLink.newLinkButton")}
              </Button>
            </Form>
          </section>
        ) : null}
      </div>
    </BookingShell>
  );
}

/** The .ics file and Google's and Outlook's own pages, from the manage link. */
export function CalendarLinks({ links }: { links: { ics: string; google: string; outlook: string } }) {
  const { t } = useTranslation();
  return (
    <ul className="mt-3 flex flex-wrap gap-3">
      <li>
        <a href={links.ics} download="booking.ics" className={buttonClass("secondary")}>
          {t("manageLink.icsFile")}
        </a>
      </li>
      <li>
        <a href={links.google} target="_blank" rel="noopener noreferrer" className={buttonClass("secondary")}>
          {t("manageLink.google")}
        </a>
      </li>
      <li>
        <a href={links.outlook} target="_blank" rel="noopener noreferrer" className={buttonClass("secondary")}>
          {t("manageLink.outlook")}
        </a>
      </li>
    </ul>
  );
}
