import { Form, Link } from "~/ui/link";
import { Fragment, type ReactNode } from "react";
import { useTranslation } from "~/ui/translation";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button, buttonClass } from "~/ui/form/button";
import { ErrorSummary, type FieldProblem } from "~/ui/form/error-summary";
import { Field } from "~/ui/form/field";
import { errorsFor, submittedValue, type DashboardActionData } from "~/features/business/dashboard/types";
import type { PhoneNumberPage } from "~/features/business/phone-number.server";

const card = "mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6";

/** Numbers and dialling codes read left to right in any page. */
function Ltr({ children, code = false }: { children: ReactNode; code?: boolean }) {
  return code ? (
    <bdi dir="ltr">
      <code className="rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.95em] text-slate-900">{children}</code>
    </bdi>
  ) : (
    <bdi dir="ltr" className="whitespace-nowrap">
      {children}
    </bdi>
  );
}

/** Stand-in for an element in a translated sentence: `t(key, { number: slot("number") })`. */
const slot = (name: string) => `[[${name}]]`;

/** A translated sentence with its [[slots]] filled by elements (the translation keeps the words' order of its language). */
function Sentence({ text, slots }: { text: string; slots: Record<string, ReactNode> }) {
  const parts = text.split(/\[\[(\w+)\]\]/);
  return <>{parts.map((part, i) => (i % 2 === 1 ? <Fragment key={i}>{slots[part] ?? part}</Fragment> : part))}</>;
}

function FormError({ messages }: { messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p role="alert" className="mt-3 rounded-lg border border-rose-300 bg-rose-50 p-3 text-sm font-medium text-rose-900">
      {messages[0]}
    </p>
  );
}

/** The owner's phone page (/dashboard/phone) in each of its states. Plain forms: everything works without JavaScript. */
export function PhoneNumberPanel({ page, actionData }: { page: PhoneNumberPage; actionData?: DashboardActionData }) {
  const { t } = useTranslation();
  if (page.state === "not-configured") {
    return (
      <p id="phone-not-configured" className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
        {t("phoneNumber.notConfigured")}
      </p>
    );
  }
  if (page.state === "choose") return <ChooseNumber numbers={page.numbers} actionData={actionData} />;
  return <ConnectedNumber page={page} actionData={actionData} />;
}

function ChooseNumber({
  numbers,
  actionData,
}: {
  numbers: Extract<PhoneNumberPage, { state: "choose" }>["numbers"];
  actionData?: DashboardActionData;
}) {
  const { t } = useTranslation();
  const intent = "connect-number";
  const errors = errorsFor(actionData, intent, "numberSid");
  const general = errorsFor(actionData, intent, "_");
  return (
    <section aria-labelledby="phone-choose-title" className={card}>
      <h2 id="phone-choose-title" className="text-lg font-semibold text-slate-900">
        {t("phoneNumber.chooseTitle")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">{t("phoneNumber.chooseIntro")}</p>
      <FormError messages={general} />
      {numbers === null ? (
        <p className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">{t("phoneNumber.listFailed")}</p>
      ) : numbers.length === 0 ? (
        <p className="mt-4 rounded-lg border border-slate-300 bg-slate-50 p-3 text-sm text-slate-800">{t("phoneNumber.none")}</p>
      ) : (
        <Form method="post" noValidate className="mt-4">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value={intent} />
          <fieldset aria-describedby={errors ? "phone-number-error" : undefined}>
            <legend className="text-sm font-medium text-slate-800">{t("phoneNumber.numbersLegend")}</legend>
            {errors ? (
              <p id="phone-number-error" className="mt-1 text-sm font-medium text-rose-700">
                {errors[0]}
              </p>
            ) : null}
            <ul className="mt-2 space-y-2">
              {numbers.map((number, i) => (
                <li
                  key={number.sid}
                  className="flex items-start gap-3 rounded-xl border border-slate-200 p-3 has-[:checked]:border-teal-700"
                >
                  <input
                    type="radio"
                    id={i === 0 ? "phone-number-first" : `phone-number-${number.sid}`}
                    name="numberSid"
                    value={number.sid}
                    defaultChecked={numbers.length === 1}
                    aria-describedby={number.routedElsewhere ? `phone-number-${number.sid}-hint` : undefined}
                    className="mt-1 size-5 shrink-0 accent-teal-700"
                  />
                  <div className="min-w-0">
                    <label htmlFor={i === 0 ? "phone-number-first" : `phone-number-${number.sid}`} className="font-medium text-slate-900">
                      <Ltr>{number.phone}</Ltr>
                      {number.friendlyName ? (
                        <span className="ms-2 font-normal text-slate-700">
                          <bdi>{number.friendlyName}</bdi>
                        </span>
                      ) : null}
                    </label>
                    {number.routedElsewhere ? (
                      <p id={`phone-number-${number.sid}-hint`} className="text-sm text-slate-700">
                        {t("phoneNumber.routedElsewhere")}
                      </p>
                    ) : null}
                  </div>
                </li>
              ))}
            </ul>
          </fieldset>
          <Button type="submit" className="mt-4">
            {t("phoneNumber.connect")}
          </Button>
        </Form>
      )}
      <p className="mt-4 text-sm text-slate-700">{t("phoneNumber.forwardLater")}</p>
    </section>
  );
}

function ConnectedNumber({
  page,
  actionData,
}: {
  page: Extract<PhoneNumberPage, { state: "connected" }>;
  actionData?: DashboardActionData;
}) {
  const { t } = useTranslation();
  const { number, limits } = page;
  const intent = "save-number-settings";
  const err = (field: string) => errorsFor(actionData, intent, field);
  const val = (field: string, fallback: string) => submittedValue(actionData, intent, field) ?? fallback;
  const failed = Boolean(actionData && actionData.intent === intent && !actionData.ok);
  const mode = val("receptionistMode", number.receptionistMode);
  const withinHours = failed ? submittedValue(actionData, intent, "transferWithinHours") === "on" : number.transferWithinHours;
  const problems: FieldProblem[] = [
    ["receptionistMode", "phone-mode-off"],
    ["transferNumber", "phone-transfer"],
    ["maxConcurrentCalls", "phone-concurrent"],
    ["maxCallsPerCallerPerDay", "phone-per-caller"],
  ].flatMap(([field, id]) => {
    const message = err(field!)?.[0];
    return message ? [{ id: id!, message }] : [];
  });
  const numberSlot = <Ltr>{number.phone}</Ltr>;
  const modes = [
    ["off", "modeOff", "modeOffHint"],
    ["always", "modeAlways", "modeAlwaysHint"],
    ["outside_hours", "modeOutsideHours", "modeOutsideHoursHint"],
  ] as const;
  return (
    <>
      <section aria-labelledby="phone-connected-title" className={card}>
        <h2 id="phone-connected-title" className="text-lg font-semibold text-slate-900">
          {t("phoneNumber.connectedTitle")}
        </h2>
        <p id="phone-connected" className="mt-2 text-base text-slate-900">
          <Sentence
            text={t("phoneNumber.connected", { number: slot("number"), when: number.connectedAt })}
            slots={{ number: numberSlot }}
          />
        </p>
        <p className="mt-1 text-sm text-slate-700">{t("phoneNumber.connectedHint")}</p>
        {page.voiceMissing ? (
          <p id="phone-voice-missing" className="mt-3 rounded-lg border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
            {t("phoneNumber.voiceNotConfigured")}
          </p>
        ) : null}
      </section>

      {/* The disconnect's confirmation comes alone, so it is in view without scrolling. */}
      {page.confirmDisconnect ? null : (
        <>
          <section aria-labelledby="phone-settings-title" className={card}>
            <h2 id="phone-settings-title" className="text-lg font-semibold text-slate-900">
              {t("phoneNumber.settingsTitle")}
            </h2>
            <Form method="post" noValidate className="mt-4 space-y-5">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value={intent} />
              <ErrorSummary problems={problems} formErrors={err("_") ?? []} />
              <fieldset aria-describedby={err("receptionistMode") ? "phone-mode-error" : undefined}>
                <legend className="text-sm font-medium text-slate-800">{t("phoneNumber.modeLegend")}</legend>
                {err("receptionistMode") ? (
                  <p id="phone-mode-error" className="mt-1 text-sm font-medium text-rose-700">
                    {err("receptionistMode")![0]}
                  </p>
                ) : null}
                <div className="mt-2 space-y-2">
                  {modes.map(([value, label, hint]) => (
                    <div key={value} className="flex items-start gap-3">
                      <input
                        type="radio"
                        id={`phone-mode-${value === "outside_hours" ? "outside" : value}`}
                        name="receptionistMode"
                        value={value}
                        defaultChecked={mode === value}
                        aria-describedby={`phone-mode-${value}-hint`}
                        className="mt-1 size-5 shrink-0 accent-teal-700"
                      />
                      <div>
                        <label
                          htmlFor={`phone-mode-${value === "outside_hours" ? "outside" : value}`}
                          className="font-medium text-slate-900"
                        >
                          {t(`phoneNumber.${label}`)}
                        </label>
                        <p id={`phone-mode-${value}-hint`} className="text-sm text-slate-700">
                          {t(`phoneNumber.${hint}`)}
                        </p>
                      </div>
                    </div>
                  ))}
                </div>
              </fieldset>
              <div className="grid gap-4 sm:grid-cols-2">
                <Field
                  id="phone-transfer"
                  label={t("phoneNumber.transferNumber")}
                  hint={t("phoneNumber.transferNumberHint")}
                  name="transferNumber"
                  type="tel"
                  autoComplete="tel"
                  maxLength={40}
                  defaultValue={val("transferNumber", number.transferNumber)}
                  errors={err("transferNumber")}
                  className="sm:col-span-2"
                />
                <div className="flex items-start gap-3 sm:col-span-2">
                  <input
                    type="checkbox"
                    id="phone-within-hours"
                    name="transferWithinHours"
                    defaultChecked={withinHours}
                    aria-describedby="phone-within-hours-hint"
                    className="mt-1 size-5 shrink-0 accent-teal-700"
                  />
                  <div>
                    <label htmlFor="phone-within-hours" className="font-medium text-slate-900">
                      {t("phoneNumber.transferWithinHours")}
                    </label>
                    <p id="phone-within-hours-hint" className="text-sm text-slate-700">
                      {t("phoneNumber.transferWithinHoursHint")}
                    </p>
                  </div>
                </div>
                <Field
                  id="phone-concurrent"
                  label={t("phoneNumber.concurrent")}
                  hint={t("phoneNumber.concurrentHint", limits.concurrent)}
                  name="maxConcurrentCalls"
                  type="number"
                  inputMode="numeric"
                  min={limits.concurrent.min}
                  max={limits.concurrent.max}
                  required
                  defaultValue={val("maxConcurrentCalls", String(number.maxConcurrentCalls))}
                  errors={err("maxConcurrentCalls")}
                />
                <Field
                  id="phone-per-caller"
                  label={t("phoneNumber.perCaller")}
                  hint={t("phoneNumber.perCallerHint", limits.perCaller)}
                  name="maxCallsPerCallerPerDay"
                  type="number"
                  inputMode="numeric"
                  min={limits.perCaller.min}
                  max={limits.perCaller.max}
                  required
                  defaultValue={val("maxCallsPerCallerPerDay", String(number.maxCallsPerCallerPerDay))}
                  errors={err("maxCallsPerCallerPerDay")}
                />
              </div>
              <Button type="submit">{t("phoneNumber.save")}</Button>
            </Form>
          </section>

          <ForwardingSteps number={number} numberSlot={numberSlot} />
        </>
      )}

      <section aria-labelledby="phone-disconnect-title" className={card}>
        <h2 id="phone-disconnect-title" className="text-lg font-semibold text-slate-900">
          {page.confirmDisconnect ? (
            <Sentence text={t("phoneNumber.confirmTitle", { number: slot("number") })} slots={{ number: numberSlot }} />
          ) : (
            t("phoneNumber.disconnectTitle")
          )}
        </h2>
        <p className="mt-1 text-sm text-slate-700">{t("phoneNumber.disconnectIntro")}</p>
        <FormError messages={errorsFor(actionData, "disconnect-number", "_")} />
        {page.confirmDisconnect ? (
          <div className="mt-4 flex flex-wrap gap-3">
            <Form method="post">
              <AuthenticityTokenInput />
              <input type="hidden" name="intent" value="disconnect-number" />
              <Button type="submit" variant="danger">
                {t("phoneNumber.confirmYes")}
              </Button>
            </Form>
            <Link to="/dashboard/phone" className={buttonClass("secondary")}>
              {t("phoneNumber.confirmNo")}
            </Link>
          </div>
        ) : (
          // The first step asks again (a page of its own, so it needs no JavaScript).
          <Form method="get" className="mt-4">
            <input type="hidden" name="confirm" value="disconnect" />
            <Button type="submit" variant="secondary">
              {t("phoneNumber.disconnect")}
            </Button>
          </Form>
        )}
      </section>
    </>
  );
}

/** How to forward the business's existing line here on no answer: carrier codes, given as examples. */
function ForwardingSteps({
  number,
  numberSlot,
}: {
  number: Extract<PhoneNumberPage, { state: "connected" }>["number"];
  numberSlot: ReactNode;
}) {
  const { t } = useTranslation();
  const gsm = number.forwarding.gsm;
  const slots = {
    number: slot("number"),
    code: slot("code"),
    cancel: slot("cancel"),
    busy: slot("busy"),
    unreachable: slot("unreachable"),
  };
  const raw = (
    key:
      | "phoneNumber.forwardIntro"
      | "phoneNumber.forwardGsm"
      | "phoneNumber.forwardGsmMore"
      | "phoneNumber.forwardVerizon"
      | "phoneNumber.forwardLandline",
  ) => t(key, slots);
  return (
    <section aria-labelledby="phone-forward-title" className={card}>
      <h2 id="phone-forward-title" className="text-lg font-semibold text-slate-900">
        {t("phoneNumber.forwardTitle")}
      </h2>
      <p className="mt-1 text-sm text-slate-700">
        <Sentence text={raw("phoneNumber.forwardIntro")} slots={{ number: numberSlot }} />
      </p>
      <ul className="mt-3 list-disc space-y-2 ps-5 text-sm text-slate-800">
        <li>
          <Sentence text={raw("phoneNumber.forwardGsm")} slots={{ code: <Ltr code>{`**61*${gsm}#`}</Ltr> }} />{" "}
          <Sentence
            text={raw("phoneNumber.forwardGsmMore")}
            slots={{
              busy: <Ltr code>{`**67*${gsm}#`}</Ltr>,
              unreachable: <Ltr code>{`**62*${gsm}#`}</Ltr>,
              cancel: <Ltr code>{"##61#"}</Ltr>,
            }}
          />
        </li>
        {number.forwarding.verizon ? (
          <li>
            <Sentence
              text={raw("phoneNumber.forwardVerizon")}
              slots={{ code: <Ltr code>{`*71${number.forwarding.verizon}`}</Ltr>, cancel: <Ltr code>{"*73"}</Ltr> }}
            />
          </li>
        ) : null}
        <li>
          <Sentence text={raw("phoneNumber.forwardLandline")} slots={{ number: numberSlot }} />
        </li>
      </ul>
      <p className="mt-3 text-sm text-slate-700">{t("phoneNumber.forwardNote")}</p>
    </section>
  );
}
