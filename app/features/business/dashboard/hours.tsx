import { Form } from "~/ui/link";
import { useMemo } from "react";
import { useTranslation } from "~/ui/translation";
import type { WeeklySchedule } from "~/features/booking/index";
import { formatTimeOfDay } from "~/lib/time";
import { AuthenticityTokenInput } from "~/ui/form/csrf";
import { Button } from "~/ui/form/button";
import { Field, SelectField } from "~/ui/form/field";
import { errorsFor, type DashboardActionData } from "~/features/business/dashboard/types";

// Monday first, as most business weeks are written.
const WEEK = [1, 2, 3, 4, 5, 6, 0] as const;

/** The times the week form offers: every quarter of an hour, "00:00" to "23:45". */
const QUARTER_HOURS = Array.from({ length: 96 }, (_, index) => formatTimeOfDay(index * 15));

/**
 * "13:30" → "1:30 PM" in English, "13:30" in German: as the booking page writes its times, with one
 * formatter for the whole form (a formatter per label costs the server seconds for the week's lists).
 */
function useTimeLabel() {
  const { i18n } = useTranslation();
  return useMemo(() => {
    const format = new Intl.DateTimeFormat(i18n.language, { hour: "numeric", minute: "2-digit", timeZone: "UTC" });
    const label = (time: string) => {
      const [hours, minutes] = time.split(":").map(Number);
      if (hours === undefined || minutes === undefined || Number.isNaN(hours) || Number.isNaN(minutes)) return time;
      return format.format(new Date(Date.UTC(2024, 0, 1, hours, minutes)));
    };
    const grid = new Map(QUARTER_HOURS.map((time) => [time, label(time)]));
    return (time: string) => grid.get(time) ?? label(time);
  }, [i18n.language]);
}

/**
 * A time of the week form, chosen from a list rather than typed: a time input shows the browser's
 * 12- or 24-hour clock, this list the page language's. The values stay "HH:MM" for the action; a
 * saved time off the quarter-hour grid (or "24:00") is offered too, so saving again keeps it.
 */
function TimeField({
  day,
  field,
  label,
  value,
  timeLabel,
  optional = false,
  errors,
}: {
  day: number;
  field: "start1" | "end1" | "start2" | "end2";
  label: string;
  value: string;
  timeLabel: (time: string) => string;
  optional?: boolean;
  errors?: string[] | null;
}) {
  const { t } = useTranslation();
  const times = value && !QUARTER_HOURS.includes(value) ? [...QUARTER_HOURS, value].sort() : QUARTER_HOURS;
  return (
    <SelectField id={`d${day}_${field}`} label={label} name={`d${day}_${field}`} defaultValue={value} errors={errors} className="sm:w-36">
      {optional ? <option value="">{t("hours.notSet")}</option> : null}
      {times.map((time) => (
        <option key={time} value={time}>
          {timeLabel(time)}
        </option>
      ))}
    </SelectField>
  );
}

export function HoursSection({
  schedule,
  daysOff,
  actionData,
}: {
  schedule: WeeklySchedule;
  daysOff: { id: number; date: string; label: string; note: string }[];
  actionData?: DashboardActionData;
}) {
  const { t, i18n } = useTranslation();
  const weekdayName = (day: number) =>
    new Date(Date.UTC(2024, 0, 7 + day)).toLocaleDateString(i18n.language, { weekday: "long", timeZone: "UTC" });
  const err = (field: string) => errorsFor(actionData, "save-hours", field);
  const timeLabel = useTimeLabel();
  return (
    <div className="mt-4 rounded-2xl border border-slate-200 bg-white p-4 shadow-sm sm:p-6">
      <h2 className="text-lg font-semibold text-slate-900">{t("owner.hours.week")}</h2>
      {actionData?.intent === "save-hours" && !actionData.ok ? (
        <p role="alert" className="mt-3 rounded-lg bg-rose-50 p-3 text-sm font-medium text-rose-800">
          {t("hours.fixErrors")}
        </p>
      ) : null}
      <Form method="post" noValidate className="mt-4 space-y-3">
        <AuthenticityTokenInput />
        <input type="hidden" name="intent" value="save-hours" />
        {WEEK.map((day) => {
          const intervals = schedule[day];
          const [first, second] = intervals;
          return (
            <fieldset key={day} className="rounded-xl border border-slate-200 p-3">
              <legend className="px-1 font-medium text-slate-900">{weekdayName(day)}</legend>
              <div className="grid grid-cols-2 items-end gap-3 sm:flex sm:flex-wrap">
                <label className="col-span-2 flex items-center gap-2 pb-2 text-sm text-slate-800">
                  <input type="checkbox" name={`d${day}_open`} defaultChecked={intervals.length > 0} className="h-4 w-4 accent-teal-700" />
                  {t("hours.open")}
                </label>
                <TimeField
                  day={day}
                  field="start1"
                  timeLabel={timeLabel}
                  label={t("hours.opens")}
                  value={first ? formatTimeOfDay(first.startMinute) : "09:00"}
                  errors={err(`d${day}_start1`)}
                />
                <TimeField
                  day={day}
                  field="end1"
                  timeLabel={timeLabel}
                  label={t("hours.closes")}
                  value={first ? formatTimeOfDay(first.endMinute) : "17:00"}
                  errors={err(`d${day}_end1`)}
                />
                <TimeField
                  day={day}
                  field="start2"
                  timeLabel={timeLabel}
                  label={t("hours.reopens")}
                  value={second ? formatTimeOfDay(second.startMinute) : ""}
                  optional
                  errors={err(`d${day}_start2`)}
                />
                <TimeField
                  day={day}
                  field="end2"
                  timeLabel={timeLabel}
                  label={t("hours.closesAgain")}
                  value={second ? formatTimeOfDay(second.endMinute) : ""}
                  optional
                  errors={err(`d${day}_end2`)}
                />
              </div>
            </fieldset>
          );
        })}
        <p className="text-sm text-slate-600">{t("hours.breakHint")}</p>
        <Button type="submit">{t("hours.save")}</Button>
      </Form>

      <div className="mt-8 border-t border-slate-200 pt-6">
        <h2 className="text-lg font-semibold text-slate-900">{t("hours.daysOffTitle")}</h2>
        {daysOff.length === 0 ? (
          <p className="mt-2 text-sm text-slate-700">{t("hours.noDaysOff")}</p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-200">
            {daysOff.map((day) => (
              <li key={day.id} className="flex flex-wrap items-center justify-between gap-3 py-2">
                <span className="text-slate-900">
                  {day.label}
                  {day.note ? (
                    <span className="text-slate-600">
                      {" · "}
                      <bdi>{day.note}</bdi>
                    </span>
                  ) : null}
                </span>
                <Form method="post" noValidate>
                  <AuthenticityTokenInput />
                  <input type="hidden" name="intent" value="remove-day-off" />
                  <input type="hidden" name="dayOffId" value={day.id} />
                  <Button type="submit" variant="secondary">
                    {t("hours.removeDayOff")}
                    <span className="sr-only">: {day.label}</span>
                  </Button>
                </Form>
              </li>
            ))}
          </ul>
        )}
        <Form method="post" noValidate className="mt-4 flex flex-wrap items-end gap-3">
          <AuthenticityTokenInput />
          <input type="hidden" name="intent" value="add-day-off" />
          <Field
            id="day-off-date"
            label={t("hours.dayOffDate")}
            name="date"
            type="date"
            required
            errors={errorsFor(actionData, "add-day-off", "date")}
          />
          <Field
            id="day-off-note"
            label={t("hours.dayOffNote")}
            name="note"
            maxLength={120}
            errors={errorsFor(actionData, "add-day-off", "note")}
          />
          <Button type="submit" variant="secondary">
            {t("hours.addDayOff")}
          </Button>
        </Form>
      </div>
    </div>
  );
}
