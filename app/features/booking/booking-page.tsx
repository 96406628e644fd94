import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { Form, Link, useNavigation } from "react-router";
import { useTranslation } from "react-i18next";
import type { Route } from "../../routes/+types/book";
import { contactSchema } from "~/features/booking/schemas";
import { formatMoney } from "~/lib/money";
import { AuthenticityTokenInput } from "~/ui/csrf";
import { Steps } from "~/ui/steps";
import { Button, buttonClass, linkClass } from "~/ui/button";
import { Field, TextareaField } from "~/ui/field";
import { MonthTables } from "~/features/booking/month-tables";

type Data = Route.ComponentProps["loaderData"];
type PageData = Extract<Data, { kind: "page" }>;
type StepData<S extends PageData["step"]> = Extract<PageData, { step: S }>;

export function BookingPage({ data, actionData }: { data: Data; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  if (data.kind === "invalid") {
    return (
      <div className="mx-auto max-w-lg px-4 py-16 text-center">
        <h1 className="text-2xl font-semibold text-slate-900">{t("book.invalidTitle")}</h1>
        <p className="mt-3 text-slate-700">{t("book.invalidBody")}</p>
        <Link to="/" className={`${buttonClass("secondary")} mt-6`}>
          {t("common.backToHome")}
        </Link>
      </div>
    );
  }
  const steps = [t("book.stepService"), t("book.stepDateTime"), t("book.stepContact"), t("book.stepConfirm")];
  const current = { service: 0, date: 1, time: 1, contact: 2, confirm: 3, done: 4 }[data.step];
  const service = "serviceId" in data ? data.services.find((s) => s.id === data.serviceId) : undefined;
  return (
    <div className="mx-auto max-w-3xl px-4 py-8 sm:py-12">
      <header className="rounded-2xl border border-slate-200 bg-white p-5 shadow-sm">
        <h1 className="text-2xl font-semibold tracking-tight text-slate-900 sm:text-3xl">{data.business.name}</h1>
        <p className="mt-1 text-slate-700">
          <a href={`tel:${data.business.phone.replace(/\s/g, "")}`} className={linkClass} dir="ltr">
            {data.business.phone}
          </a>
          {data.business.address ? <span> · {data.business.address}</span> : null}
        </p>
        {data.business.description ? <p className="mt-2 text-slate-700">{data.business.description}</p> : null}
      </header>
      {data.step !== "done" ? (
        <div className="mt-6">
          <Steps steps={steps} current={current} />
        </div>
      ) : null}
      {service && data.step !== "done" && data.step !== "service" ? (
        <p className="mt-4 text-sm text-slate-700">
          {t("book.chosenService", { name: service.name, minutes: service.durationMinutes })}{" "}
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
        {data.step === "done" ? <DoneStep data={data} /> : null}
      </section>
      {data.step !== "service" && data.step !== "done" ? (
        <p className="mt-4 text-sm text-slate-600">{t("book.zoneNote", { zone: data.business.timeZone })}</p>
      ) : null}
    </div>
  );
}

function ServiceStep({ data }: { data: StepData<"service"> }) {
  const { t, i18n } = useTranslation();
  if (data.services.length === 0) return <p className="text-slate-700">{t("book.noServices")}</p>;
  return (
    <Form method="get" preventScrollReset>
      <fieldset>
        <legend className="text-xl font-semibold text-slate-900">{t("book.chooseService")}</legend>
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
                  <span className="font-semibold text-slate-900">{service.name}</span>
                  <span className="text-slate-700">
                    {t("services.summary", {
                      minutes: service.durationMinutes,
                      price: formatMoney(service.priceCents, service.currency, i18n.language),
                    })}
                  </span>
                </span>
                {service.description ? <span className="mt-1 block text-sm text-slate-600">{service.description}</span> : null}
              </button>
            </li>
          ))}
        </ul>
      </fieldset>
    </Form>
  );
}

function DateStep({ data }: { data: StepData<"date"> }) {
  const { t } = useTranslation();
  const anyFree = data.days.some((d) => d.count > 0);
  return (
    <div>
      <h2 className="text-xl font-semibold text-slate-900">{t("book.chooseDate")}</h2>
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

function TimeStep({ data }: { data: StepData<"time"> }) {
  const { t, i18n } = useTranslation();
  const dayName = new Date(`${data.date}T12:00:00Z`).toLocaleDateString(i18n.language, {
    weekday: "long",
    day: "numeric",
    month: "long",
    timeZone: "UTC",
  });
  const free = data.slots.filter((slot) => slot.available);
  return (
    <div>
      {data.taken ? (
        <p role="alert" className="mb-4 rounded-lg bg-amber-50 p-3 font-medium text-amber-900">
          {t("book.justTaken")}
        </p>
      ) : null}
      {data.timeError ? (
        <p role="alert" className="mb-4 rounded-lg bg-amber-50 p-3 text-sm text-amber-900">
          {data.timeError}
        </p>
      ) : null}
      <Form method="get" preventScrollReset>
        <input type="hidden" name="service" value={data.serviceId} />
        <input type="hidden" name="date" value={data.date} />
        <fieldset>
          <legend className="text-xl font-semibold text-slate-900">{t("book.timesOn", { day: dayName })}</legend>
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
                <span dir="ltr">{slot.time}</span>
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

function useWhen(date: string, time: string) {
  const { i18n } = useTranslation();
  const day = new Date(`${date}T12:00:00Z`).toLocaleDateString(i18n.language, {
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    timeZone: "UTC",
  });
  return `${day}, ${time}`;
}

function ContactStep({ data, actionData }: { data: StepData<"contact">; actionData: Route.ComponentProps["actionData"] }) {
  const { t } = useTranslation();
  const navigation = useNavigation();
  const when = useWhen(data.date, data.time);
  const [form, fields] = useForm({
    id: "booking-contact",
    lastResult: navigation.state === "idle" && actionData && "reply" in actionData ? (actionData.reply as never) : null,
    defaultValue: data.draft ?? undefined,
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: contactSchema(t) }),
  });
  return (
    <Form method="post" {...getFormProps(form)} className="space-y-5">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="contact" />
      <input type="hidden" name="service" value={data.serviceId} />
      <input type="hidden" name="date" value={data.date} />
      <input type="hidden" name="time" value={data.time} />
      <h2 className="text-xl font-semibold text-slate-900">{t("book.yourDetails")}</h2>
      <p className="text-slate-700">{t("book.forTime", { when })}</p>
      {actionData && "formError" in actionData ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm font-medium text-rose-800">
          {actionData.formError}
        </p>
      ) : null}
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
      <p className="rounded-lg bg-teal-50 p-3 text-sm text-teal-950">{t("book.callConsent", { business: data.business.name })}</p>
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
  const rows: [string, string][] = [
    [
      t("book.summaryService"),
      `${service.name} (${t("services.summary", { minutes: service.durationMinutes, price: formatMoney(service.priceCents, service.currency, i18n.language) })})`,
    ],
    [t("book.summaryWhen"), `${when} (${data.business.timeZone})`],
    [t("book.name"), data.draft.name],
    [t("book.phone"), data.draft.phone],
    ...(data.draft.email ? [[t("book.email"), data.draft.email] as [string, string]] : []),
    ...(data.draft.notes ? [[t("book.notes"), data.draft.notes] as [string, string]] : []),
  ];
  return (
    <Form method="post" className="space-y-5">
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value="confirm" />
      <input type="hidden" name="service" value={data.serviceId} />
      <input type="hidden" name="date" value={data.date} />
      <input type="hidden" name="time" value={data.time} />
      <input type="hidden" name="idempotencyKey" value={data.idempotencyKey} />
      <h2 className="text-xl font-semibold text-slate-900">{t("book.confirmTitle")}</h2>
      {actionData && "formError" in actionData ? (
        <p role="alert" className="rounded-lg bg-rose-50 p-3 text-sm font-medium text-rose-800">
          {t("book.errorTitle")}: {actionData.formError}
        </p>
      ) : null}
      <dl className="grid grid-cols-1 gap-x-4 gap-y-2 sm:grid-cols-[auto_1fr]">
        {rows.map(([label, value]) => (
          <div key={label} className="contents">
            <dt className="font-medium text-slate-600">{label}</dt>
            <dd className="text-slate-900">{value}</dd>
          </div>
        ))}
      </dl>
      <p className="rounded-lg bg-teal-50 p-3 text-sm text-teal-950">{t("book.callConsent", { business: data.business.name })}</p>
      <div className="flex flex-wrap items-center gap-4">
        <Button type="submit" disabled={busy}>
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
  const { t } = useTranslation();
  const when = useWhen(data.date, data.time);
  return (
    <div role="status" className="space-y-3">
      <h2 className="text-2xl font-semibold text-emerald-900">{t("book.sentTitle")}</h2>
      <p className="text-slate-700">{t("book.sentBody")}</p>
      {data.date && data.time ? <p className="font-medium text-slate-900">{when}</p> : null}
      <Link to={`/book/${data.business.link}`} className={`${buttonClass("secondary")} mt-2`}>
        {t("book.another")}
      </Link>
    </div>
  );
}
