import { getFormProps, useForm } from "@conform-to/react";
import type { ReactNode } from "react";
import { useNavigation } from "react-router";
import { Form, Link } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import type { Route } from "../../routes/business/+types/book";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Steps } from "~/ui/form/steps";
import { Button, buttonClass, linkClass } from "~/ui/form/button";
import { Field, TextareaField } from "~/ui/form/field";
import { KeepInputs, ViewChoice } from "~/ui/form/view-choice";
import { MonthTables } from "~/features/booking/month-tables";
import { BookingShell } from "~/ui/shell/booking-shell";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/form/error-summary";
import { FocusHeading } from "~/ui/form/focus";
import { Ltr, Money, tIsolated } from "~/ui/bidi";
import { zoneOptions } from "~/lib/when";

type Data = Route.ComponentProps["loaderData"];
type PageData = Extract<Data, { kind: "page" }>;
type StepData<S extends PageData["step"]> = Extract<PageData, { step: S }>;

/** An address of the flow: the visitor's chosen time zone and clock go along with every step. */
function bookHref(data: PageData, params: Record<string, string | number | undefined>) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...params, ...data.zone.keep })) {
    if (value !== undefined && value !== "") search.set(key, String(value));
  }
  const query = search.toString();
  return `/book/${data.business.link}${query ? `?${query}` : ""}`;
}

/** The chosen time zone and clock, in a form of the flow. */
function ZoneInput({ data }: { data: PageData }) {
  return <KeepInputs keep={data.zone.keep} />;
}

/**
 * A step's heading. Without JavaScript each step is a new page: the heading takes the focus by
 * `autofocus` unless it is the first page of the visit (read from the top). With JavaScript,
 * app/ui/enhance.js moves the focus to it after each step.
 */
function StepHeading({
  data,
  step,
  children,
  ...props
}: {
  data: PageData;
  step: string;
  children: ReactNode;
  id?: string;
  className?: string;
}) {
  return (
    <FocusHeading key={step} arrived={data.arrived} className="text-xl font-semibold text-slate-900" {...props}>
      {children}
    </FocusHeading>
  );
}

export function BookingPage({ data, actionData }: { data: Data; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  if (data.kind === "invalid") {
    return (
      <BookingShell business={null} locale={data.locale}>
        <PageTitle title={data.title} />
        <div className="mx-auto max-w-lg px-4 py-16 text-center">
          <FocusHeading level={1} className="text-2xl font-semibold text-slate-900">
            {data.suspendedName ? tIsolated(t, "admin.suspendedPage.title", { name: data.suspendedName }) : t("book.invalidTitle")}
          </FocusHeading>
          <p role={data.suspendedName ? "status" : undefined} className="mt-3 text-slate-700">
            {data.suspendedName ? t("admin.suspendedPage.body") : t("book.invalidBody")}
          </p>
          <Link to="/" className={`${buttonClass("secondary")} mt-6`}>
            {t("common.backToHome")}
          </Link>
        </div>
      </BookingShell>
    );
  }
  const steps = [t("book.stepService"), t("book.stepDateTime"), t("book.stepContact"), t("book.stepConfirm")];
  const current = { service: 0, date: 1, time: 1, contact: 2, confirm: 3, done: 4 }[data.step];
  const service = "serviceId" in data ? data.services.find((s) => s.id === data.serviceId) : undefined;
  return (
    <BookingShell business={data.business} locale={data.locale} wide={data.step === "date" || data.step === "time"}>
      {/* The contact step names its own title: it starts with "Error:" while the form has errors. */}
      {data.step === "contact" ? null : <PageTitle title={data.title} />}
      <div
        className={`mx-auto px-4 py-6 sm:py-8 ${data.step === "date" || data.step === "time" ? "max-w-3xl lg:max-w-5xl" : "max-w-3xl"}`}
        data-zone-default={data.zone.business}
      >
        {data.step !== "done" ? <Steps steps={steps} current={current} /> : null}
        {service && data.step !== "done" && data.step !== "service" ? (
          <p className="mt-4 text-sm text-slate-700">
            {tIsolated(t, "book.chosenService", { name: service.name, minutes: service.durationMinutes })}{" "}
            <Link to={bookHref(data, { step: "service" })} className={linkClass}>
              {t("book.changeService")}
            </Link>
          </p>
        ) : null}
        <section className="mt-6 rounded-2xl border border-slate-200 bg-white p-5 shadow-sm sm:p-6">
          {data.step === "service" ? <ServiceStep data={data} /> : null}
          {data.step === "date" ? <DateStep data={data} /> : null}
          {data.step === "time" ? <TimeStep data={data} /> : null}
          {data.step === "contact" ? <ContactStep data={data} actionData={actionData} /> : null}
          {data.step === "confirm" ? <ConfirmStep data={data} actionData={actionData} /> : null}
          {/* On the page from the first step, empty until the booking is made: a screen reader
              announces what is put into a live region that already existed. */}
          <div role="status" aria-live="polite" id="booking-status">
            {data.step === "done" ? <DoneStep data={data} /> : null}
          </div>
        </section>
        {data.step !== "service" && data.step !== "done" ? (
          <p className="mt-4 text-sm text-slate-600">{tIsolated(t, "book.zoneNote", { zone: data.zone.name })}</p>
        ) : null}
      </div>
    </BookingShell>
  );
}

function ServiceStep({ data }: { data: StepData<"service"> }) {
  const { t, i18n } = useTranslation();
  return (
    <div>
      <StepHeading data={data} step="service">
        {t("book.chooseService")}
      </StepHeading>
      {data.services.length === 0 ? <p className="mt-3 text-slate-700">{t("book.noServices")}</p> : null}
      <Form method="get" preventScrollReset>
        <ZoneInput data={data} />
        <ul className="mt-4 space-y-3">
          {data.services.map((service) => (
            <li key={service.id}>
              <button
                type="submit"
                name="service"
                value={service.id}
                className="w-full rounded-xl border border-slate-300 p-4 text-start hover:border-teal-700 hover:bg-teal-50"
              >
                <span className="flex flex-wrap items-baseline justify-between gap-2">
                  <span className="font-semibold text-slate-900">
                    <bdi>{service.name}</bdi>
                  </span>
                  <span className="text-slate-700">
                    {tIsolated(t, "services.summary", {
                      minutes: service.durationMinutes,
                      price: (
                        <Money cents={service.priceCents} currency={service.currency} locale={i18n.language} free={t("common.free")} />
                      ),
                    })}
                  </span>
                </span>
                {service.description ? (
                  <span dir="auto" className="mt-1 block text-sm text-slate-600">
                    {service.description}
                  </span>
                ) : null}
              </button>
            </li>
          ))}
        </ul>
      </Form>
    </div>
  );
}

function DateStep({ data }: { data: StepData<"date"> }) {
  const { t } = useTranslation();
  const anyFree = data.days.some((d) => d.count > 0);
  return (
    // On a wide screen laid out as the time step: the month at the start, where it stays once a
    // day is chosen, the step's heading at the end, where that day's times will be. The heading
    // comes first in the page's order, so it is read (and focused) before the days.
    <div className="lg:grid lg:grid-cols-2 lg:gap-8">
      <div className="lg:col-start-2 lg:row-start-1">
        <StepHeading data={data} step="date">
          {t("book.chooseDate")}
        </StepHeading>
        {data.dateError ? (
          <p role="alert" className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
            {data.dateError}
          </p>
        ) : null}
        {anyFree ? (
          <p className="mt-3 hidden text-slate-600 lg:block">{t("book.timesBeside")}</p>
        ) : (
          <p className="mt-3 text-slate-700">{t("book.noDates", { days: data.business.windowDays })}</p>
        )}
      </div>
      <Form method="get" preventScrollReset className="mt-4 lg:col-start-1 lg:row-start-1 lg:mt-0" data-month>
        <input type="hidden" name="service" value={data.serviceId} />
        <ZoneInput data={data} />
        <MonthTables
          days={data.days}
          stackedFrom="lg"
          month={data.month}
          monthHref={(month) => bookHref(data, { service: data.serviceId, month })}
        />
      </Form>
    </div>
  );
}

function TimeStep({ data }: { data: StepData<"time"> }) {
  const { t } = useTranslation();
  const free = data.slots.filter((slot) => slot.available);
  return (
    // On a wide screen the month and the day's times side by side (the times at the end, mirrored
    // in Arabic by the grid itself); on a phone, the times alone, the month a step back.
    <div className="lg:grid lg:grid-cols-2 lg:gap-8">
      <Form method="get" preventScrollReset className="hidden lg:block" data-month>
        <input type="hidden" name="service" value={data.serviceId} />
        <ZoneInput data={data} />
        <MonthTables
          days={data.days}
          selected={data.date}
          stacked
          month={data.month}
          monthHref={(month) => bookHref(data, { service: data.serviceId, date: data.date, month })}
        />
      </Form>
      <div data-times>
        <StepHeading data={data} step={`time-${data.date}`} id="time-step-title">
          {t("book.timesOn", { day: data.day })}
        </StepHeading>
        {data.taken ? (
          <p role="alert" className="mt-4 rounded-lg bg-amber-50 p-3 font-medium text-amber-900">
            {t("book.justTaken")}
          </p>
        ) : null}
        {data.timeError ? (
          <p role="alert" className="mt-4 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
            {data.timeError}
          </p>
        ) : null}
        <Form method="get" preventScrollReset>
          <input type="hidden" name="service" value={data.serviceId} />
          <input type="hidden" name="date" value={data.date} />
          <ZoneInput data={data} />
          <fieldset aria-labelledby="time-step-title">
            {free.length === 0 ? <p className="mt-3 text-slate-700">{t("book.noTimes")}</p> : null}
            <div className="mt-4 grid grid-cols-[repeat(auto-fill,minmax(6rem,1fr))] gap-2">
              {data.slots.map((slot) => (
                <label
                  key={slot.time}
                  className={`flex items-center justify-center gap-1.5 rounded-lg border px-1.5 py-2 text-sm ${
                    slot.available
                      ? "cursor-pointer border-slate-300 has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50"
                      : "border-slate-200 text-slate-500 line-through"
                  }`}
                >
                  <input type="radio" name="time" value={slot.time} disabled={!slot.available} required className="accent-teal-700" />
                  <bdi className="whitespace-nowrap">{slot.label}</bdi>
                  {slot.available ? null : <span className="sr-only">{t("book.unavailable")}</span>}
                </label>
              ))}
            </div>
          </fieldset>
          <div className="mt-6 flex flex-wrap items-center gap-4">
            <Button type="submit" disabled={free.length === 0}>
              {t("book.next")}
            </Button>
            <Link to={bookHref(data, { service: data.serviceId })} className={`${linkClass} lg:hidden`}>
              {t("book.otherDate")}
            </Link>
          </div>
        </Form>
        <ZoneChoice data={data} />
      </div>
    </div>
  );
}

/**
 * The visitor's time zone, named in words, and their clock (the manage page's choice); without
 * JavaScript a GET form, with it the zone preset from the browser (app/ui/enhance.js adds the
 * browser's zone to the first step's address). The booking page loads no React: about 150 zones,
 * written once per language as HTML. The list is made here rather than by the loader: React Router
 * serializes a loader's data for the browser on every render, which a page without React never
 * reads, and the list was most of the time step's (a tenth of its CPU in a profile).
 */
function ZoneChoice({ data }: { data: StepData<"time"> }) {
  const { t } = useTranslation();
  return (
    <ViewChoice
      idPrefix="booking"
      zoneLabel={t("book.zoneLabel")}
      zone={data.zone.value}
      clock={data.zone.clock}
      zoneOptions={zoneOptions(data.locale, [data.zone.business, data.zone.value])}
      optionsAsHtml
      hidden={{ service: data.serviceId, date: data.date }}
      className="mt-6 border-t border-slate-200 pt-4"
    />
  );
}

function ContactStep({ data, actionData }: { data: StepData<"contact">; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const when = data.when;
  // Checked by the action only, with and without JavaScript: the rules (zod, and the phone
  // numbers' metadata) stay out of a public page's JavaScript. The errors come back as its reply.
  const [form, fields] = useForm({
    id: "booking-contact",
    lastResult: navigation.state === "idle" && actionData && "reply" in actionData ? (actionData.reply as never) : null,
    defaultValue: data.draft ?? undefined,
    shouldValidate: "onSubmit",
  });
  const problems = problemsOf([fields.name, fields.phone, fields.email, fields.notes]);
  const formError = actionData && "formError" in actionData ? actionData.formError : null;
  return (
    <Form method="post" {...getFormProps(form)} noValidate className="space-y-5">
      <PageTitle title={data.title} error={problems.length > 0 || Boolean(formError)} />
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="contact" />
      <input type="hidden" name="service" value={data.serviceId} />
      <input type="hidden" name="date" value={data.date} />
      <input type="hidden" name="time" value={data.time} />
      <ZoneInput data={data} />
      <ErrorSummary problems={problems} formErrors={[formError]} />
      <FocusHeading
        key="contact"
        arrived={data.arrived && problems.length === 0 && !formError}
        className="text-xl font-semibold text-slate-900"
      >
        {t("book.yourDetails")}
      </FocusHeading>
      <p className="text-slate-700">{tIsolated(t, "book.forTime", { when })}</p>
      <Field
        label={t("book.name")}
        id={fields.name.id}
        name={fields.name.name}
        required
        autoComplete="name"
        defaultValue={fields.name.initialValue}
        errors={fields.name.errors}
      />
      <Field
        label={t("book.phone")}
        id={fields.phone.id}
        name={fields.phone.name}
        type="tel"
        required
        autoComplete="tel"
        defaultValue={fields.phone.initialValue}
        errors={fields.phone.errors}
        hint={data.phoneHint}
      />
      <Field
        label={t("book.email")}
        id={fields.email.id}
        name={fields.email.name}
        type="email"
        autoComplete="email"
        defaultValue={fields.email.initialValue}
        errors={fields.email.errors}
        hint={t("book.emailHint")}
      />
      <TextareaField
        label={t("book.notes")}
        id={fields.notes.id}
        name={fields.notes.name}
        rows={3}
        defaultValue={fields.notes.initialValue}
        errors={fields.notes.errors}
      />
      <p className="rounded-lg bg-teal-50 p-3 text-sm text-teal-950" data-call-promise>
        {data.callPromise}
      </p>
      <div className="flex flex-wrap items-center gap-4">
        <Button type="submit">{t("book.review")}</Button>
        <Link to={bookHref(data, { service: data.serviceId, date: data.date })} className={linkClass}>
          {t("book.back")}
        </Link>
      </div>
    </Form>
  );
}

function ConfirmStep({ data, actionData }: { data: StepData<"confirm">; actionData: Route.ComponentProps["actionData"] }) {
  const { t, i18n } = useTranslation();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const formError = actionData && "formError" in actionData ? actionData.formError : null;
  const service = data.services.find((s) => s.id === data.serviceId)!;
  const when = data.when;
  const rows: [string, ReactNode][] = [
    [
      t("book.summaryService"),
      <>
        <bdi>{service.name}</bdi> (
        {tIsolated(t, "services.summary", {
          minutes: service.durationMinutes,
          price: <Money cents={service.priceCents} currency={service.currency} locale={i18n.language} free={t("common.free")} />,
        })}
        )
      </>,
    ],
    [
      t("book.summaryWhen"),
      <>
        <bdi>{when}</bdi> (<bdi>{data.zone.name}</bdi>)
      </>,
    ],
    [t("book.name"), <bdi key="name">{data.draft.name}</bdi>],
    [t("book.phone"), <Ltr key="phone">{data.draft.phone}</Ltr>],
    ...(data.draft.email ? [[t("book.email"), <Ltr key="email">{data.draft.email}</Ltr>] as [string, ReactNode]] : []),
    ...(data.draft.notes
      ? [
          [
            t("book.notes"),
            <span key="notes" dir="auto" className="whitespace-pre-line">
              {data.draft.notes}
            </span>,
          ] as [string, ReactNode],
        ]
      : []),
  ];
  return (
    <Form method="post" noValidate className="space-y-5">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="confirm" />
      <input type="hidden" name="service" value={data.serviceId} />
      <input type="hidden" name="date" value={data.date} />
      <input type="hidden" name="time" value={data.time} />
      <input type="hidden" name="idempotencyKey" value={data.idempotencyKey} />
      <ZoneInput data={data} />
      <ErrorSummary problems={[]} formErrors={[formError]} />
      <FocusHeading key="confirm" arrived={data.arrived && !formError} className="text-xl font-semibold text-slate-900">
        {t("book.confirmTitle")}
      </FocusHeading>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="font-medium text-slate-600">{label}</dt>
            <dd className="text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>
      <p className="rounded-lg bg-teal-50 p-3 text-sm text-teal-950" data-call-promise>
        {data.callPromise}
      </p>
      <div className="flex flex-wrap items-center gap-4">
        <Button type="submit" disabled={busy} data-busy-label={t("common.sending")}>
          {busy ? t("common.sending") : t("book.confirm")}
        </Button>
        <Link to={bookHref(data, { service: data.serviceId, date: data.date, time: data.time })} className={linkClass}>
          {t("book.editDetails")}
        </Link>
      </div>
    </Form>
  );
}

function DoneStep({ data }: { data: StepData<"done"> }) {
  const { t } = useTranslation();
  const booking = data.booking;
  if (!booking) {
    // A hand-made, shared or expired address: nothing about any booking.
    return (
      <div className="space-y-3">
        <StepHeading data={data} step="done-nothing">
          {t("flows.doneNothingTitle")}
        </StepHeading>
        <p className="text-slate-700">{t("flows.doneNothingBody")}</p>
        <Link to={bookHref(data, {})} className={`${buttonClass("secondary")} mt-2`}>
          {t("book.title")}
        </Link>
      </div>
    );
  }
  return (
    <div className="space-y-4">
      <FocusHeading key="done" arrived={data.arrived} className="text-2xl font-semibold text-emerald-900">
        {t("book.sentTitle")}
      </FocusHeading>
      <p className="text-slate-700" data-call-promise>
        {data.callPromise}
      </p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        <dt className="font-medium text-slate-600">{t("bookingEmail.reference")}</dt>
        <dd className="text-slate-900">
          <span dir="ltr" className="font-mono text-lg font-semibold tracking-wider" data-booking-reference>
            {booking.reference}
          </span>
        </dd>
        <dt className="font-medium text-slate-600">{t("book.summaryService")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.serviceName}</bdi>
        </dd>
        <dt className="font-medium text-slate-600">{t("book.summaryWhen")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.when}</bdi> (<bdi>{data.zone.name}</bdi>)
        </dd>
        <dt className="font-medium text-slate-600">{t("book.name")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.customerName}</bdi>
        </dd>
      </dl>
      <p className="text-sm text-slate-700">{t("bookingEmail.referenceHint")}</p>
      {booking.emailed ? <p className="text-sm text-slate-700">{t("flows.doneEmailed")}</p> : null}
      <div className="flex flex-wrap items-center gap-3 pt-1">
        {booking.manageUrl ? (
          <Link to={booking.manageUrl} className={buttonClass()}>
            {t("flows.manageBooking")}
          </Link>
        ) : null}
      </div>
      {/* From the manage link, so they work after this browser's booking session too. */}
      <section aria-labelledby="done-calendar" className="space-y-2">
        <h3 id="done-calendar" className="font-semibold text-slate-900">
          {t("flows.addToCalendar")}
        </h3>
        <ul className="flex flex-wrap gap-3">
          <li>
            <a href={booking.calendar.ics} download="booking.ics" className={buttonClass("secondary")}>
              {t("manageLink.icsFile")}
            </a>
          </li>
          {booking.calendar.google ? (
            <li>
              <a href={booking.calendar.google} target="_blank" rel="noopener noreferrer" className={buttonClass("secondary")}>
                {t("manageLink.google")}
              </a>
            </li>
          ) : null}
          {booking.calendar.outlook ? (
            <li>
              <a href={booking.calendar.outlook} target="_blank" rel="noopener noreferrer" className={buttonClass("secondary")}>
                {t("manageLink.outlook")}
              </a>
            </li>
          ) : null}
        </ul>
      </section>
      <p>
        <Link to={bookHref(data, {})} className={linkClass}>
          {t("book.another")}
        </Link>
      </p>
    </div>
  );
}
