import { getFormProps, useForm } from "@conform-to/react";
import type { ReactNode } from "react";
import { Form, Link, useNavigation } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "../../routes/+types/book";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { Steps } from "~/ui/steps";
import { Button, buttonClass, linkClass } from "~/ui/button";
import { Field, TextareaField } from "~/ui/field";
import { MonthTables } from "~/features/booking/month-tables";
import { BookingShell } from "~/ui/booking-shell";
import { ErrorSummary, PageTitle, problemsOf } from "~/ui/error-summary";
import { FocusHeading } from "~/ui/focus";
import { Ltr, Money, tIsolated } from "~/ui/bidi";

type Data = Route.ComponentProps["loaderData"];
type PageData = Extract<Data, { kind: "page" }>;
type StepData<S extends PageData["step"]> = Extract<PageData, { step: S }>;

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
    <BookingShell business={data.business} locale={data.locale}>
      {/* The contact step names its own title: it starts with "Error:" while the form has errors. */}
      {data.step === "contact" ? null : <PageTitle title={data.title} />}
      <div className="mx-auto max-w-3xl px-4 py-6 sm:py-8">
        {data.step !== "done" ? <Steps steps={steps} current={current} /> : null}
        {service && data.step !== "done" && data.step !== "service" ? (
          <p className="mt-4 text-sm text-slate-700">
            {tIsolated(t, "book.chosenService", { name: service.name, minutes: service.durationMinutes })}{" "}
            <Link to={`/book/${data.business.link}`} className={linkClass}>
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
          <p className="mt-4 text-sm text-slate-600">{tIsolated(t, "book.zoneNote", { zone: data.business.timeZone })}</p>
        ) : null}
      </div>
    </BookingShell>
  );
}

function ServiceStep({ data }: { data: StepData<"service"> }) {
  const { t, i18n } = useTranslation();
  return (
    <div>
      <FocusHeading key="service" className="text-xl font-semibold text-slate-900">
        {t("book.chooseService")}
      </FocusHeading>
      {data.services.length === 0 ? <p className="mt-3 text-slate-700">{t("book.noServices")}</p> : null}
      <Form method="get" preventScrollReset>
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
    <div>
      <FocusHeading key="date" className="text-xl font-semibold text-slate-900">
        {t("book.chooseDate")}
      </FocusHeading>
      {data.dateError ? (
        <p role="alert" className="mt-3 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
          {data.dateError}
        </p>
      ) : null}
      {anyFree ? null : <p className="mt-3 text-slate-700">{t("book.noDates")}</p>}
      <Form method="get" preventScrollReset className="mt-4">
        <input type="hidden" name="service" value={data.serviceId} />
        <MonthTables days={data.days} />
      </Form>
    </div>
  );
}

/** "09:00" on a date, as the page's language writes times ("9:00 AM", "09:00", "9:00 ص"). */
function useTimeLabel() {
  const { i18n } = useTranslation();
  return (time: string) => {
    const [hours, minutes] = time.split(":").map(Number);
    if (hours === undefined || minutes === undefined || Number.isNaN(hours) || Number.isNaN(minutes)) return time;
    return new Date(Date.UTC(2024, 0, 1, hours, minutes)).toLocaleTimeString(i18n.language, {
      hour: "numeric",
      minute: "2-digit",
      timeZone: "UTC",
    });
  };
}

function TimeStep({ data }: { data: StepData<"time"> }) {
  const { t, i18n } = useTranslation();
  const timeLabel = useTimeLabel();
  const dayName = new Date(`${data.date}T12:00:00Z`).toLocaleDateString(i18n.language, {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  });
  const free = data.slots.filter((slot) => slot.available);
  return (
    <div>
      <FocusHeading key={`time-${data.date}`} id="time-step-title" className="text-xl font-semibold text-slate-900">
        {t("book.timesOn", { day: dayName })}
      </FocusHeading>
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
        <fieldset aria-labelledby="time-step-title">
          {free.length === 0 ? <p className="mt-3 text-slate-700">{t("book.noTimes")}</p> : null}
          <div className="mt-4 grid grid-cols-3 gap-2 sm:grid-cols-5">
            {data.slots.map((slot) => (
              <label
                key={slot.time}
                className={`flex items-center justify-center gap-2 rounded-lg border px-2 py-2 text-sm ${
                  slot.available
                    ? "cursor-pointer border-slate-300 has-[:checked]:border-teal-700 has-[:checked]:bg-teal-50"
                    : "border-slate-200 text-slate-500 line-through"
                }`}
              >
                <input type="radio" name="time" value={slot.time} disabled={!slot.available} required className="accent-teal-700" />
                <bdi>{timeLabel(slot.time)}</bdi>
                {slot.available ? null : <span className="sr-only">{t("book.unavailable")}</span>}
              </label>
            ))}
          </div>
        </fieldset>
        <div className="mt-6 flex flex-wrap items-center gap-4">
          <Button type="submit" disabled={free.length === 0}>
            {t("book.next")}
          </Button>
          <Link to={`/book/${data.business.link}?service=${data.serviceId}`} className={linkClass}>
            {t("book.otherDate")}
          </Link>
        </div>
      </Form>
    </div>
  );
}

/** A local date and time of the business, written by `Intl` in the page's language as one phrase. */
function useWhen(date: string, time: string) {
  const { i18n } = useTranslation();
  const instant = new Date(`${date}T${time}:00Z`);
  if (Number.isNaN(instant.getTime())) return `${date} ${time}`;
  return instant.toLocaleString(i18n.language, { dateStyle: "full", timeStyle: "short", timeZone: "UTC" });
}

function ContactStep({ data, actionData }: { data: StepData<"contact">; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const when = useWhen(data.date, data.time);
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
      <ErrorSummary problems={problems} formErrors={[formError]} />
      <FocusHeading key="contact" className="text-xl font-semibold text-slate-900">
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
        hint={t("book.phoneHint")}
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
        <Link to={`/book/${data.business.link}?service=${data.serviceId}&date=${data.date}`} className={linkClass}>
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
  const service = data.services.find((s) => s.id === data.serviceId)!;
  const when = useWhen(data.date, data.time);
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
        <bdi>{when}</bdi> (<bdi>{data.business.timeZone}</bdi>)
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
      <ErrorSummary problems={[]} formErrors={[actionData && "formError" in actionData ? actionData.formError : null]} />
      <FocusHeading key="confirm" className="text-xl font-semibold text-slate-900">
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
        <Link to={`/book/${data.business.link}?service=${data.serviceId}&date=${data.date}&time=${data.time}`} className={linkClass}>
          {t("book.editDetails")}
        </Link>
      </div>
    </Form>
  );
}

function DoneStep({ data }: { data: StepData<"done"> }) {
  const { t, i18n } = useTranslation();
  const booking = data.booking;
  if (!booking) {
    // A hand-made, shared or expired address: nothing about any booking.
    return (
      <div className="space-y-3">
        <FocusHeading key="done-nothing" className="text-xl font-semibold text-slate-900">
          {t("flows.doneNothingTitle")}
        </FocusHeading>
        <p className="text-slate-700">{t("flows.doneNothingBody")}</p>
        <Link to={`/book/${data.business.link}`} className={`${buttonClass("secondary")} mt-2`}>
          {t("book.title")}
        </Link>
      </div>
    );
  }
  const when = new Date(booking.start).toLocaleString(i18n.language, {
    timeZone: data.business.timeZone,
    dateStyle: "full",
    timeStyle: "short",
  });
  return (
    <div className="space-y-4">
      <FocusHeading key="done" className="text-2xl font-semibold text-emerald-900">
        {t("book.sentTitle")}
      </FocusHeading>
      <p className="text-slate-700" data-call-promise>
        {data.callPromise}
      </p>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        <dt className="font-medium text-slate-600">{t("book.summaryService")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.serviceName}</bdi>
        </dd>
        <dt className="font-medium text-slate-600">{t("book.summaryWhen")}</dt>
        <dd className="text-slate-900">
          <bdi>{when}</bdi> (<bdi>{data.business.timeZone}</bdi>)
        </dd>
        <dt className="font-medium text-slate-600">{t("book.name")}</dt>
        <dd className="text-slate-900">
          <bdi>{booking.customerName}</bdi>
        </dd>
      </dl>
      {booking.emailed ? <p className="text-sm text-slate-700">{t("flows.doneEmailed")}</p> : null}
      <div className="flex flex-wrap items-center gap-3 pt-1">
        <a href={booking.calendarUrl} download="booking.ics" className={buttonClass()}>
          {t("flows.addToCalendar")}
        </a>
        {booking.manageUrl ? (
          <Link to={booking.manageUrl} className={buttonClass("secondary")}>
            {t("flows.manageBooking")}
          </Link>
        ) : null}
      </div>
      <p>
        <Link to={`/book/${data.business.link}`} className={linkClass}>
          {t("book.another")}
        </Link>
      </p>
    </div>
  );
}
