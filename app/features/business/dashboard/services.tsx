import { Form } from "~/ui/link";
import { useTranslation } from "~/ui/translation";
import { currencies, centsToInput } from "~/lib/money";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { isolateNumbers } from "~/ui/bidi";
import { Field, SelectField, TextareaField } from "~/ui/form/field";
import { errorsFor, submittedValue, type DashboardActionData, type ServiceRow } from "~/features/business/dashboard/types";

type Service = ServiceRow;

export function ServicesSection({ services, actionData }: { services: Service[]; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  return (
    <div className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      {services.length === 0 ? (
        <p className="rounded-lg bg-slate-50 p-4 text-slate-700">{t("services.empty")}</p>
      ) : (
        <ul className="divide-y divide-slate-200">
          {services.map((service) => (
            <li key={service.id} className="py-4">
              <div className="flex flex-wrap items-start justify-between gap-3">
                <div>
                  <h2 className="font-medium text-slate-900">
                    <bdi>{service.name}</bdi>{" "}
                    {!service.active ? (
                      <span className="ms-2 rounded-full bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-700">
                        {t("services.inactive")}
                      </span>
                    ) : null}
                  </h2>
                  <p className="text-sm text-slate-700">{isolateNumbers(service.summary)}</p>
                  {service.description ? (
                    <p dir="auto" className="mt-1 text-sm text-slate-600">
                      {service.description}
                    </p>
                  ) : null}
                </div>
                <Form method="post" noValidate>
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="toggle-service" />
                  <input type="hidden" name="serviceId" value={service.id} />
                  <input type="hidden" name="active" value={String(!service.active)} />
                  <Button type="submit" variant="secondary">
                    {service.active ? t("services.deactivate") : t("services.activate")}
                    <span className="sr-only">: {service.name}</span>
                  </Button>
                </Form>
              </div>
              <details
                className="mt-3"
                open={
                  actionData?.intent === "edit-service" &&
                  !actionData.ok &&
                  submittedValue(actionData, "edit-service", "serviceId") === String(service.id)
                }
              >
                <summary className="cursor-pointer text-sm font-medium text-teal-800">
                  {t("services.edit")}
                  <span className="sr-only">: {service.name}</span>
                </summary>
                <ServiceForm intent="edit-service" service={service} actionData={actionData} />
              </details>
            </li>
          ))}
        </ul>
      )}
      <div className="mt-6 border-t border-slate-200 pt-6">
        <h2 className="text-lg font-semibold text-slate-900">{services.length === 0 ? t("services.addFirst") : t("services.add")}</h2>
        <ServiceForm intent="add-service" actionData={actionData} />
      </div>
    </div>
  );
}

function ServiceForm({
  intent,
  service,
  actionData,
}: {
  intent: "add-service" | "edit-service";
  service?: Service;
  actionData?: DashboardActionData;
}) {
  const { t } = useTranslation();
  const isThisForm =
    actionData?.intent === intent && (intent === "add-service" || submittedValue(actionData, intent, "serviceId") === String(service?.id));
  const errors = (field: string) => (isThisForm ? errorsFor(actionData, intent, field) : undefined);
  const value = (field: string, fallback: string) => (isThisForm ? (submittedValue(actionData, intent, field) ?? fallback) : fallback);
  const idPrefix = service ? `service-${service.id}` : "service-new";
  return (
    <Form method="post" noValidate className="mt-3 grid gap-4 sm:grid-cols-2" key={isThisForm ? "failed" : "fresh"}>
      <AuthenticityTokenInput />
      <input type="hidden" name="intent" value={intent} />
      {service ? <input type="hidden" name="serviceId" value={service.id} /> : null}
      <Field
        id={`${idPrefix}-name`}
        label={t("services.name")}
        name="name"
        required
        maxLength={120}
        defaultValue={value("name", service?.name ?? "")}
        errors={errors("name")}
        className="sm:col-span-2"
      />
      <TextareaField
        id={`${idPrefix}-description`}
        label={t("services.description")}
        name="description"
        rows={2}
        maxLength={500}
        defaultValue={value("description", service?.description ?? "")}
        errors={errors("description")}
        className="sm:col-span-2"
      />
      <Field
        id={`${idPrefix}-price`}
        label={t("services.price")}
        name="price"
        inputMode="decimal"
        required
        defaultValue={value("price", service ? centsToInput(service.priceCents) : "")}
        errors={errors("price")}
        hint={isolateNumbers(t("services.priceHint"))}
      />
      <SelectField
        id={`${idPrefix}-currency`}
        label={t("services.currency")}
        name="currency"
        defaultValue={value("currency", service?.currency ?? "USD")}
        errors={errors("currency")}
      >
        {currencies.map((currency) => (
          <option key={currency} value={currency}>
            {currency}
          </option>
        ))}
      </SelectField>
      <Field
        id={`${idPrefix}-duration`}
        label={t("services.duration")}
        name="durationMinutes"
        type="number"
        inputMode="numeric"
        min={5}
        max={720}
        step={5}
        required
        defaultValue={value("durationMinutes", String(service?.durationMinutes ?? 30))}
        errors={errors("durationMinutes")}
        hint={isolateNumbers(t("services.durationHint"))}
      />
      <div className="flex items-end">
        <Button type="submit">{intent === "add-service" ? t("services.addButton") : t("services.save")}</Button>
      </div>
    </Form>
  );
}
