import { bookingWindowOptions, noticeOptions } from "~/features/business/booking-rules";
import { parseWithZod } from "@conform-to/zod/v4";
import type { TFunction } from "i18next";
import { z } from "zod";
import { addService, findService, listServices, updateService } from "#models/business-services";
import { updateBusinessProfile } from "#models/businesses";
import { addDayOff, getWeeklySchedule, listDaysOff, removeDayOff, replaceWeeklySchedule } from "#models/opening-hours";
import { supportedLanguages } from "~/i18n";
import { confirmationVoices, timeZones } from "~/features/business/signup/industries";
import { currencies, formatPrice, parseAmountToCents } from "~/lib/money";
import { formatPhone } from "~/platform/phone.server";
import type { Owner } from "~/features/business/owner.server";
import { formatLocalDate, zoneLabel, zoneName } from "~/lib/when";
import { utcToZoned } from "~/lib/zoned-time";
import { businessPhoneField } from "~/features/business/schemas.server";
import type { WeeklySchedule } from "~/features/booking/index";
import { parseTimeOfDay } from "~/lib/time";
import type { AppServices } from "~/platform/services.server";
import { dbId, parseDbId } from "~/lib/ids";
import { calendarFeedLinks, rotateCalendarFeed } from "~/features/business/calendar-feed.server";
import { isCalendarDate } from "~/lib/validation";
import { callsUnavailable } from "~/calls/readiness.server";
import { calendarConnectionStatus, connectCalendar, disconnectCalendar, REMINDER_CALL_HOURS } from "~/features/booking/index.server";
import { formatWhenWithZone } from "~/lib/when";

export function serviceSchema(t: TFunction) {
  return z.object({
    serviceId: dbId(t("services.notFound")).optional(),
    name: z
      .string(t("services.nameRequired"))
      .trim()
      .min(1, t("services.nameRequired"))
      .max(120, t("form.tooLong", { max: 120 })),
    description: z
      .string()
      .trim()
      .max(500, t("form.tooLong", { max: 500 }))
      .optional(),
    price: z.string(t("services.priceRequired")).transform((value, ctx) => {
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

/**
 * The countries the business's confirmation calls may go to: comma-separated ISO codes among those
 * the deployment calls (CALL_COUNTRIES); empty means all of those. Stored as a list, or null.
 */
function callCountriesField(t: TFunction, deployment: readonly string[]) {
  return z
    .string()
    .max(400, t("form.tooLong", { max: 400 }))
    .optional()
    .transform((value) =>
      (value ?? "")
        .toUpperCase()
        .split(/[\s,;]+/)
        .filter(Boolean),
    )
    .refine(
      (codes) => codes.every((code) => deployment.includes(code)),
      t("settings.callCountriesInvalid", { allowed: deployment.join(", ") }),
    )
    .transform((codes) => (codes.length > 0 ? [...new Set(codes)] : null));
}

export function settingsSchema(t: TFunction, deploymentCountries: readonly string[]) {
  return z.object({
    callCountries: callCountriesField(t, deploymentCountries),
    phone: businessPhoneField(t),
    address: z
      .string()
      .trim()
      .max(200, t("form.tooLong", { max: 200 }))
      .optional(),
    description: z
      .string()
      .trim()
      .max(500, t("form.tooLong", { max: 500 }))
      .optional(),
    timeZone: z.enum(timeZones, t("settings.timeZoneInvalid")),
    minimumNoticeMinutes: z.coerce.number().refine((v) => (noticeOptions as readonly number[]).includes(v), t("settings.noticeInvalid")),
    bookingWindowDays: z.coerce
      .number()
      .refine((v) => (bookingWindowOptions as readonly number[]).includes(v), t("settings.bookingWindowInvalid"))
      .default(60),
    defaultLanguage: z.enum(supportedLanguages, t("language.invalid")),
    confirmationLanguage: z.enum(supportedLanguages, t("language.invalid")),
    // Chosen in the voice settings now; an older form (or API caller) that still sends it is checked.
    confirmationVoice: z.enum(confirmationVoices, t("settings.voiceInvalid")).optional(),
  });
}

export function dayOffSchema(t: TFunction) {
  return z.object({
    date: z.string(t("hours.dateInvalid")).refine(isCalendarDate, t("hours.dateInvalid")),
    note: z
      .string()
      .trim()
      .max(120, t("form.tooLong", { max: 120 }))
      .optional(),
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

/** What a saved change says at the top of its page (a code in the redirect, never free text). */
const doneMessages = {
  "service-added": "services.added",
  "service-saved": "services.saved",
  "service-activated": "services.activated",
  "service-deactivated": "services.deactivated",
  "hours-saved": "hours.saved",
  "day-off-added": "hours.dayOffAdded",
  "day-off-removed": "hours.dayOffRemoved",
  "settings-saved": "settings.saved",
  "reminders-saved": "settings.remindersSaved",
  "texts-saved": "settings.textsSaved",
  "calendar-feed-rotated": "calendarFeed.rotated",
  "calendar-connected": "caldav.savedConnected",
  "calendar-disconnected": "caldav.savedDisconnected",
} as const;
type Done = keyof typeof doneMessages;

export type DashboardResult =
  | { intent: string; ok: true; done: Done; section: OwnerSection; serviceId?: number }
  | { intent: string; ok: false; reply?: unknown; errors?: Record<string, string[]> };

export type OwnerSection = "services" | "hours" | "settings";

/** The intents of the services, hours and settings pages, and the page each belongs to. */
export const sectionIntents: Record<string, OwnerSection> = {
  "add-service": "services",
  "edit-service": "services",
  "toggle-service": "services",
  "save-hours": "hours",
  "add-day-off": "hours",
  "remove-day-off": "hours",
  "save-settings": "settings",
  "save-reminders": "settings",
  "save-texts": "settings",
  "rotate-calendar-feed": "settings",
  "connect-calendar": "settings",
  "disconnect-calendar": "settings",
};

/** The page to show after a saved change, with its confirmation. */
export function afterChange(result: Extract<DashboardResult, { ok: true }>) {
  const query = new URLSearchParams({ done: result.done });
  if (result.serviceId) query.set("service", String(result.serviceId));
  return `/dashboard/${result.section}?${query}`;
}

/** The confirmation for `?done=`, naming the service from the database (never from the URL). */
export async function doneMessage(services: AppServices, t: TFunction, businessId: number, url: URL) {
  const done = url.searchParams.get("done") as Done | null;
  if (!done || !(done in doneMessages)) return null;
  const serviceId = parseDbId(url.searchParams.get("service"));
  const service = serviceId ? await findService(services.db, businessId, serviceId) : null;
  if (done.startsWith("service-") && !service) return null;
  return t(doneMessages[done], { name: service?.name ?? "" });
}

/** Every change an owner makes to services, hours and settings; each is scoped to the owner's own business. */
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
        const added = await addService(services.db, businessId, fields);
        return { intent, ok: true, done: "service-added", section: "services", serviceId: added.id };
      }
      const updated = serviceId ? await updateService(services.db, businessId, serviceId, fields) : null;
      if (!updated) return { intent, ok: false, errors: { _: [t("services.notFound")] } };
      return { intent, ok: true, done: "service-saved", section: "services", serviceId: updated.id };
    }
    case "toggle-service": {
      const serviceId = parseDbId(form.get("serviceId"));
      const active = form.get("active") === "true";
      const updated = serviceId ? await updateService(services.db, businessId, serviceId, { active }) : null;
      if (!updated) return { intent, ok: false, errors: { _: [t("services.notFound")] } };
      return { intent, ok: true, done: active ? "service-activated" : "service-deactivated", section: "services", serviceId: updated.id };
    }
    case "save-hours": {
      const week = parseWeek(t, form);
      if ("errors" in week) return { intent, ok: false, errors: week.errors };
      await replaceWeeklySchedule(services.db, businessId, week.schedule);
      return { intent, ok: true, done: "hours-saved", section: "hours" };
    }
    case "add-day-off": {
      const submission = parseWithZod(form, { schema: dayOffSchema(t) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      await addDayOff(services.db, businessId, submission.value.date, submission.value.note || null);
      return { intent, ok: true, done: "day-off-added", section: "hours" };
    }
    case "remove-day-off": {
      const dayOffId = parseDbId(form.get("dayOffId"));
      if (dayOffId) await removeDayOff(services.db, businessId, dayOffId);
      return { intent, ok: true, done: "day-off-removed", section: "hours" };
    }
    case "save-settings": {
      const submission = parseWithZod(form, { schema: settingsSchema(t, services.env.CALL_COUNTRIES.split(",").filter(Boolean)) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      const { address, description, ...rest } = submission.value;
      await updateBusinessProfile(services.db, businessId, { ...rest, address: address || null, description: description || null });
      return { intent, ok: true, done: "settings-saved", section: "settings" };
    }
    case "save-reminders": {
      const call = parseReminderCall(services, t, form.get("reminderCallHours"));
      if ("error" in call) return { intent, ok: false, errors: { reminderCallHours: [call.error] } };
      await updateBusinessProfile(services.db, businessId, {
        // A checkbox: sent when ticked, absent when not.
        reminderEmail: form.get("reminderEmail") === "on",
        ...(call.hours === undefined ? {} : { reminderCallHours: call.hours }),
      });
      return { intent, ok: true, done: "reminders-saved", section: "settings" };
    }
    case "save-texts": {
      // A checkbox: sent when ticked. Turned on only where this server can send texts.
      const on = form.get("textsEnabled") === "on";
      if (on && !services.messaging.configured) return { intent, ok: false, errors: { textsEnabled: [t("settings.textsUnavailable")] } };
      await updateBusinessProfile(services.db, businessId, { textsEnabled: on });
      return { intent, ok: true, done: "texts-saved", section: "settings" };
    }
    case "rotate-calendar-feed": {
      await rotateCalendarFeed(services, businessId);
      return { intent, ok: true, done: "calendar-feed-rotated", section: "settings" };
    }
    case "connect-calendar":
      return connectCalendarFromForm(services, t, businessId, form);
    case "disconnect-calendar": {
      await disconnectCalendar(services, businessId);
      return { intent, ok: true, done: "calendar-disconnected", section: "settings" };
    }
    default:
      return { intent, ok: false, errors: { _: [t("common.genericError")] } };
  }
}

/**
 * The owner's CalDAV calendar, connected once a PROPFIND found it with these credentials; each
 * refusal is told beside its field (the password is never sent back to the page).
 */
async function connectCalendarFromForm(services: AppServices, t: TFunction, businessId: number, form: FormData): Promise<DashboardResult> {
  const intent = "connect-calendar";
  const calendarUrl = String(form.get("calendarUrl") ?? "").trim();
  const calendarUsername = String(form.get("calendarUsername") ?? "").trim();
  const password = String(form.get("calendarPassword") ?? "");
  const reply = { initialValue: { calendarUrl, calendarUsername } };
  const errors: Record<string, string[]> = {};
  let parsed: URL | null = null;
  try {
    parsed = calendarUrl.length <= 500 ? new URL(calendarUrl) : null;
  } catch {
    parsed = null;
  }
  if (!parsed || (parsed.protocol !== "https:" && parsed.protocol !== "http:") || parsed.username || parsed.password) {
    errors.calendarUrl = [t("caldav.urlInvalid")];
  }
  if (!calendarUsername || calendarUsername.length > 200) errors.calendarUsername = [t("caldav.usernameRequired")];
  if (!password || password.length > 500) errors.calendarPassword = [t("caldav.passwordRequired")];
  if (Object.keys(errors).length > 0) return { intent, ok: false, errors, reply };
  const connected = await connectCalendar(services, businessId, { url: calendarUrl, username: calendarUsername, password });
  if (connected.ok) return { intent, ok: true, done: "calendar-connected", section: "settings" };
  if (connected.problem === "credentials")
    return { intent, ok: false, errors: { calendarPassword: [t("caldav.errorCredentials")] }, reply };
  if (connected.problem === "not_calendar") return { intent, ok: false, errors: { calendarUrl: [t("caldav.errorNotCalendar")] }, reply };
  if (connected.problem === "private_address")
    return { intent, ok: false, errors: { calendarUrl: [t("caldav.errorPrivateAddress")] }, reply };
  return { intent, ok: false, errors: { calendarUrl: [t("caldav.errorUnreachable")] }, reply };
}

/** What the settings page says of the owner's CalDAV calendar: where, as whom, the last sync and the last failure. */
async function calendarPanel(owner: Owner) {
  const status = await calendarConnectionStatus(owner.services, owner.business.id);
  if (!status) return null;
  const when = (at: Date) => formatWhenWithZone(at, owner.business.timeZone, owner.locale);
  const problems = {
    credentials: "caldav.problemCredentials",
    not_calendar: "caldav.problemNotCalendar",
    unreachable: "caldav.problemUnreachable",
    private_address: "caldav.problemPrivateAddress",
    sealed: "caldav.problemSealed",
  } as const;
  return {
    calendarUrl: status.calendarUrl,
    username: status.username,
    lastSync: status.lastSyncAt ? when(status.lastSyncAt) : null,
    failure: status.lastErrorAt && status.problem ? { when: when(status.lastErrorAt), problem: owner.t(problems[status.problem]) } : null,
    waitingWrites: status.waitingWrites,
  };
}

/**
 * The reminder call's setting: "off" (or nothing, where the select is not offered) or one of the
 * offered hours; on only where this server can place calls. `hours` undefined: left as it is.
 */
function parseReminderCall(
  services: AppServices,
  t: TFunction,
  value: FormDataEntryValue | null,
): { hours: number | null | undefined } | { error: string } {
  const offered = !callsUnavailable(services);
  if (value === null) return { hours: offered ? null : undefined };
  if (value === "off") return { hours: null };
  const hours = REMINDER_CALL_HOURS.find((h) => String(h) === value);
  if (!hours) return { error: t("settings.reminderCallInvalid") };
  if (!offered) return { error: t("settings.reminderCallUnavailable") };
  return { hours };
}

/** The services page. */
export async function loadServicesPage(owner: Owner, url: URL) {
  const rows = await listServices(owner.services.db, owner.business.id);
  return {
    message: await doneMessage(owner.services, owner.t, owner.business.id, url),
    services: rows.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description ?? "",
      priceCents: s.priceCents,
      currency: s.currency,
      durationMinutes: s.durationMinutes,
      active: s.active,
      summary: owner.t("services.summary", {
        minutes: s.durationMinutes,
        price: formatPrice(s.priceCents, s.currency, owner.locale, owner.t("common.free")),
      }),
    })),
  };
}

/** The opening hours page: the week, and the days off from today on. */
export async function loadHoursPage(owner: Owner, url: URL) {
  const { services, business, locale } = owner;
  const today = utcToZoned(Date.now(), business.timeZone).date;
  const [schedule, closures] = await Promise.all([
    getWeeklySchedule(services.db, business.id),
    listDaysOff(services.db, business.id, today),
  ]);
  return {
    message: await doneMessage(services, owner.t, business.id, url),
    timeZone: business.timeZone,
    zoneName: zoneName(business.timeZone, locale),
    schedule,
    daysOff: closures.map((d) => ({ id: d.id, date: d.date, label: formatLocalDate(d.date, locale), note: d.note ?? "" })),
  };
}

/**
 * The settings page's list of zones. Zones that read the same (Paris and Berlin are both "Central
 * European Time") are told apart by the city their id names.
 */
function zoneChoices(locale: string) {
  const labels = timeZones.map((zone) => zoneLabel(zone, locale));
  return timeZones.map((zone, i) => {
    const label = labels[i]!;
    const shared = labels.filter((other) => other === label).length > 1;
    return { value: zone, label: shared ? `${label} · ${zone.split("/").at(-1)!.replaceAll("_", " ")}` : label };
  });
}

/** The settings page: the business's profile, plan and call settings. */
export async function loadSettingsPage(owner: Owner, url: URL) {
  const { business, locale } = owner;
  return {
    message: await doneMessage(owner.services, owner.t, business.id, url),
    calendarFeed: await calendarFeedLinks(owner.services, business.id),
    calendar: await calendarPanel(owner),
    business: {
      name: business.name,
      ownerName: business.ownerName,
      phone: formatPhone(business.phone),
      address: business.address ?? "",
      description: business.description ?? "",
      timeZone: business.timeZone,
      // The zones in words ("Eastern Time (GMT-5)"); the value stays the zone's id.
      zoneOptions: zoneChoices(locale),
      minimumNoticeMinutes: business.minimumNoticeMinutes,
      bookingWindowDays: business.bookingWindowDays,
      defaultLanguage: business.defaultLanguage,
      confirmationLanguage: business.confirmationLanguage,
      confirmationVoice: business.confirmationVoice,
      callCountries: business.callCountries?.join(", ") ?? "",
      reminderEmail: business.reminderEmail,
      reminderCallHours: business.reminderCallHours,
      /** The reminder call is offered only where this server can place calls. */
      reminderCallOffered: !callsUnavailable(owner.services),
      reminderCallChoices: [...REMINDER_CALL_HOURS],
      textsEnabled: business.textsEnabled,
      /** Texts are offered only where this server can send them (Twilio with TWILIO_SMS_FROM). */
      textsOffered: owner.services.messaging.configured,
    },
  };
}
