import { parseWithZod } from "@conform-to/zod/v4";
import type { TFunction } from "i18next";
import { z } from "zod";
import { addService, updateService } from "#models/business-services";
import { updateBusinessProfile } from "#models/businesses";
import { addDayOff, removeDayOff, replaceWeeklySchedule } from "#models/opening-hours";
import { supportedLanguages } from "~/i18n";
import { confirmationVoices, timeZones } from "~/lib/business";
import { currencies, parseAmountToCents } from "~/lib/money";
import { businessPhoneField } from "~/lib/business-schemas";
import type { WeeklySchedule } from "~/lib/slots";
import { parseTimeOfDay } from "~/lib/time";
import type { AppServices } from "./services.server";

export const noticeOptions = [0, 15, 30, 60, 120, 240, 720, 1440] as const;

export function serviceSchema(t: TFunction) {
  return z.object({
    serviceId: z.coerce.number().int().positive().optional(),
    name: z.string(t("services.nameRequired")).trim().min(1, t("services.nameRequired")).max(120, t("form.tooLong", { max: 120 })),
    description: z.string().trim().max(500, t("form.tooLong", { max: 500 })).optional(),
    price: z
      .string(t("services.priceRequired"))
      .transform((value, ctx) => {
        const cents = parseAmountToCents(value);
        if (cents === null || cents > 10_000_000) {
          ctx.addIssue({ code: "custom", message: t("services.priceInvalid") });
          return z.NEVER;
        }
        return cents;
      }),
    currency: z.enum(currencies, t("services.currencyInvalid")).default("USD"),
    durationMinutes: z.coerce
      .number(t("services.durationInvalid"))
      .int(t("services.durationInvalid"))
      .min(5, t("services.durationInvalid"))
      .max(720, t("services.durationInvalid")),
  });
}

export function settingsSchema(t: TFunction) {
  return z.object({
    phone: businessPhoneField(t),
    address: z.string().trim().max(200, t("form.tooLong", { max: 200 })).optional(),
    description: z.string().trim().max(500, t("form.tooLong", { max: 500 })).optional(),
    timeZone: z.enum(timeZones, t("settings.timeZoneInvalid")),
    minimumNoticeMinutes: z.coerce.number().refine((v) => (noticeOptions as readonly number[]).includes(v), t("settings.noticeInvalid")),
    defaultLanguage: z.enum(supportedLanguages, t("language.invalid")),
    confirmationLanguage: z.enum(supportedLanguages, t("language.invalid")),
    confirmationVoice: z.enum(confirmationVoices, t("settings.voiceInvalid")),
  });
}

export function dayOffSchema(t: TFunction) {
  return z.object({
    date: z.string(t("hours.dateInvalid")).regex(/^\d{4}-\d{2}-\d{2}$/, t("hours.dateInvalid")),
    note: z.string().trim().max(120, t("form.tooLong", { max: 120 })).optional(),
  });
}

/**
 * The week form: for each weekday, closed, or one or two intervals (the gap between them is a
 * break). Errors are keyed by field name, e.g. "d1_close1".
 */
export function parseWeek(t: TFunction, form: FormData): { schedule: WeeklySchedule } | { errors: Record<string, string[]> } {
  const schedule: WeeklySchedule = { 0: [], 1: [], 2: [], 3: [], 4: [], 5: [], 6: [] };
  const errors: Record<string, string[]> = {};
  for (const day of [0, 1, 2, 3, 4, 5, 6] as const) {
    if (form.get(`d${day}_open`) !== "on") continue;
    let previousEnd = -1;
    for (const n of [1, 2]) {
      const startRaw = String(form.get(`d${day}_start${n}`) ?? "");
      const endRaw = String(form.get(`d${day}_end${n}`) ?? "");
      if (n === 2 && !startRaw && !endRaw) continue;
      const start = parseTimeOfDay(startRaw);
      const end = parseTimeOfDay(endRaw);
      if (start === null) errors[`d${day}_start${n}`] = [t("hours.timeInvalid")];
      if (end === null) errors[`d${day}_end${n}`] = [t("hours.timeInvalid")];
      if (start === null || end === null) continue;
      if (end <= start) {
        errors[`d${day}_end${n}`] = [t("hours.endBeforeStart")];
        continue;
      }
      if (start < previousEnd) {
        errors[`d${day}_start${n}`] = [t("hours.overlap")];
        continue;
      }
      schedule[day].push({ startMinute: start, endMinute: end });
      previousEnd = end;
    }
    if (schedule[day].length === 0 && !Object.keys(errors).some((k) => k.startsWith(`d${day}_`))) {
      errors[`d${day}_start1`] = [t("hours.timeInvalid")];
    }
  }
  return Object.keys(errors).length > 0 ? { errors } : { schedule };
}

export type DashboardResult =
  | { intent: string; ok: true; message: string }
  | { intent: string; ok: false; reply?: unknown; errors?: Record<string, string[]> };

/** Every change an owner makes on the dashboard; each is scoped to the owner's own business. */
export async function handleDashboardAction(
  services: AppServices,
  t: TFunction,
  businessId: number,
  form: FormData,
): Promise<DashboardResult> {
  const intent = String(form.get("intent") ?? "");
  switch (intent) {
    case "add-service":
    case "edit-service": {
      const submission = parseWithZod(form, { schema: serviceSchema(t) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      const { serviceId, price, description, ...rest } = submission.value;
      const fields = { ...rest, priceCents: price, description: description || null };
      if (intent === "add-service") {
        await addService(services.db, businessId, fields);
        return { intent, ok: true, message: t("services.added", { name: fields.name }) };
      }
      const updated = serviceId ? await updateService(services.db, businessId, serviceId, fields) : null;
      if (!updated) return { intent, ok: false, errors: { _: [t("services.notFound")] } };
      return { intent, ok: true, message: t("services.saved", { name: fields.name }) };
    }
    case "toggle-service": {
      const serviceId = Number(form.get("serviceId"));
      const active = form.get("active") === "true";
      const updated = Number.isInteger(serviceId) ? await updateService(services.db, businessId, serviceId, { active }) : null;
      if (!updated) return { intent, ok: false, errors: { _: [t("services.notFound")] } };
      return { intent, ok: true, message: active ? t("services.activated", { name: updated.name }) : t("services.deactivated", { name: updated.name }) };
    }
    case "save-hours": {
      const week = parseWeek(t, form);
      if ("errors" in week) return { intent, ok: false, errors: week.errors };
      await replaceWeeklySchedule(services.db, businessId, week.schedule);
      return { intent, ok: true, message: t("hours.saved") };
    }
    case "add-day-off": {
      const submission = parseWithZod(form, { schema: dayOffSchema(t) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      await addDayOff(services.db, businessId, submission.value.date, submission.value.note || null);
      return { intent, ok: true, message: t("hours.dayOffAdded") };
    }
    case "remove-day-off": {
      await removeDayOff(services.db, businessId, Number(form.get("dayOffId")));
      return { intent, ok: true, message: t("hours.dayOffRemoved") };
    }
    case "save-settings": {
      const submission = parseWithZod(form, { schema: settingsSchema(t) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      const { address, description, ...rest } = submission.value;
      await updateBusinessProfile(services.db, businessId, { ...rest, address: address || null, description: description || null });
      return { intent, ok: true, message: t("settings.saved") };
    }
    default:
      return { intent, ok: false, errors: { _: [t("common.genericError")] } };
  }
}
