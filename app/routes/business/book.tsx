import { bookingCalendar } from "~/features/booking/manage-link.server";
import { randomUUID } from "node:crypto";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import type { Route } from "./+types/book";
import { formatBookingReference } from "#models/booking-reference";
import { findService } from "#models/business-services";
import { BookingPage } from "~/features/booking/booking-page";
import { contactSchema } from "~/features/booking/schemas";
import { formatPhone } from "~/platform/phone.server";
import { zonedTimeToUtc } from "~/lib/zoned-time";
import { formatLocalDate, formatWhen, viewChoiceOf, zoneName } from "~/lib/when";
import { parseTimeOfDay } from "~/lib/time";
import {
  bookableBusiness,
  bookingPageReads,
  normalizeCustomerPhone,
  pageAvailability,
  placeBooking,
} from "~/features/booking/booking.server";
import { confirmationPromise, describeConfirmationPromise } from "~/features/booking/confirmation-promise.server";
import { localeCookie } from "~/platform/http/cookies.server";
import { servicesContext } from "~/platform/context";
import { getT, getLocale } from "~/platform/i18n.server";
import { clientIp, firstExceededRule, phoneLimitSubject } from "~/platform/security/rate-limit.server";
import { draftCookie, placedBooking, placedCookie, readDraft, type BookingDraft } from "~/features/booking/booking-cookie.server";
import { isolatedText } from "~/ui/bidi";
import type { ShellHandle } from "~/ui/shell/shell";
import { isLanguage } from "~/i18n";
import { parseDbId } from "~/lib/ids";
import { visitorOrigin } from "~/calls/gate.server";

function stepUrl(link: string, params: Record<string, string | number | undefined>) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value !== undefined && value !== "") search.set(key, String(value));
  const query = search.toString();
  return `/book/${link}${query ? `?${query}` : ""}`;
}

type Step = "service" | "date" | "time" | "contact" | "confirm" | "done";

/**
 * /book/{bookingLink}: service → date and time → contact → confirm → done. Every choice lives in
 * the URL (contact details in a signed cookie, not the URL), so each step works without
 * JavaScript and Back and reload are safe. The done page shows the booking only to the browser
 * that made it (the cookie names it); its address alone shows nothing private.
 */
export async function loader({ request, url, params, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const reads = await bookingPageReads(services, params.bookingLink);
  const { business, inputs } = reads;
  if (!business || !inputs) {
    // A suspended business's page says it is not taking bookings (for now), not that it does not exist.
    const suspended = business?.status === "suspended" ? business : null;
    return data(
      {
        kind: "invalid" as const,
        title: `${suspended ? t("admin.suspendedPage.title", { name: suspended.name }) : t("book.invalidTitle")} · Sakina`,
        suspendedName: suspended?.name ?? null,
        locale: getLocale(context),
      },
      { status: suspended ? 503 : 404 },
    );
  }
  // The business's language is the page's default, until the visitor chooses one.
  const chosen = url.searchParams.get("lng") ?? (await localeCookie.parse(request.headers.get("Cookie")));
  if (!isLanguage(chosen) && business.defaultLanguage !== getLocale(context)) {
    const inLanguage = new URL(url);
    inLanguage.searchParams.set("lng", business.defaultLanguage);
    throw redirect(`${inLanguage.pathname}${inLanguage.search}`);
  }

  const locale = getLocale(context);
  // The visitor's time zone, when they chose one (or their browser did), and their clock: slots
  // stay the business's, but the days and times shown are the visitor's own, so `date` and `time`
  // in the address are a date and wall time in `zone`. A zone Intl does not know is ignored.
  const view = viewChoiceOf(url.searchParams, business.timeZone, locale);
  const zone = view.zone;
  // A page reached from another step (not the first one landed on) gives its heading the focus.
  const arrived = [...url.searchParams.keys()].some((key) => !["lng", "tz", "clock"].includes(key));
  const title = (step: Step) => `${t(`book.stepTitles.${step}`)} – ${isolatedText(business.name, locale)}`;
  /** The visitor's date and wall time, as the visitor reads it. */
  const shown = (date: string, time: string) =>
    formatWhen(zonedTimeToUtc(date, parseTimeOfDay(time) ?? 0, zone), zone, view.locale, "full");
  const serviceList = reads.services;
  const header = {
    name: business.name,
    industry: business.industry,
    phone: formatPhone(business.phone),
    address: business.address,
    description: business.description,
    timeZone: business.timeZone,
    link: business.bookingLink,
    /** How many days ahead the calendar reaches. */
    windowDays: business.bookingWindowDays,
  };
  const base = {
    kind: "page" as const,
    locale,
    arrived,
    business: header,
    zone: {
      value: zone,
      name: zoneName(zone, locale),
      business: business.timeZone,
      clock: view.clock,
      /** The zone and clock chosen, kept in every address and form of the flow. */
      keep: view.keep,
    },
    services: serviceList.map((s) => ({
      id: s.id,
      name: s.name,
      description: s.description,
      priceCents: s.priceCents,
      currency: s.currency,
      durationMinutes: s.durationMinutes,
    })),
    taken: url.searchParams.get("taken") === "1",
  };

  // What the confirmation call will really be (now, at a stated time, or none), for the steps that say it.
  const callPromise = async (emailed: boolean) =>
    describeConfirmationPromise(t, getLocale(context), business, await confirmationPromise(services, business), { emailed });

  if (url.searchParams.get("step") === "done") {
    const placed = await placedBooking(services, request, business);
    const booking = placed
      ? {
          serviceName: placed.service.name,
          reference: formatBookingReference(placed.booking.reference),
          when: formatWhen(placed.booking.startsAt, zone, view.locale, "full"),
          customerName: placed.booking.customerName,
          manageUrl: placed.manageToken ? `/booking/${placed.manageToken}` : null,
          // From the manage link (the session's file when it is not known).
          calendar: placed.manageToken
            ? bookingCalendar(
                services,
                placed.booking,
                business,
                placed.service.name,
                placed.manageToken,
                t("flows.calendarDescription", { business: business.name }),
              ).links
            : { ics: `/book/${business.bookingLink}/calendar.ics`, google: null, outlook: null },
          emailed: Boolean(placed.booking.customerEmail),
        }
      : null;
    return {
      ...base,
      title: title("done"),
      step: "done" as const,
      booking,
      callPromise: booking ? await callPromise(booking.emailed) : null,
    };
  }

  const serviceId = parseDbId(url.searchParams.get("service"));
  const service = serviceList.find((s) => s.id === serviceId);
  if (!service) return { ...base, title: title("service"), step: "service" as const };

  const availability = pageAvailability(business, service, inputs);
  const date = url.searchParams.get("date") ?? "";
  // The first month the calendar shows (month navigation), when it is one of the window's.
  const monthParam = url.searchParams.get("month");
  const month = monthParam && /^\d{4}-\d{2}$/.test(monthParam) ? monthParam : null;
  const windowDates = availability.windowDates(zone);
  if (!windowDates.includes(date)) {
    const counts = availability.countsByDate(zone);
    return {
      ...base,
      title: title("date"),
      step: "date" as const,
      serviceId: service.id,
      month,
      days: windowDates.map((d) => ({ date: d, count: counts.get(d) ?? 0 })),
      dateError: date ? t("book.dateUnavailable") : null,
    };
  }

  const time = url.searchParams.get("time") ?? "";
  const slots = availability
    .day(date, zone)
    .map(({ time, available, start }) => ({ time, available, label: formatWhen(start, zone, view.locale, "time") }));
  const chosenSlot = slots.find((slot) => slot.time === time && slot.available);
  if (!chosenSlot) {
    // Back from the done page lands on the time this browser has just booked: it is taken by
    // that booking, not lost, so the visitor sees the booking made instead of a refusal.
    if (time) {
      const placed = await placedBooking(services, request, business);
      const minute = parseTimeOfDay(time);
      if (
        placed &&
        minute !== null &&
        placed.booking.serviceId === service.id &&
        placed.booking.status !== "cancelled" &&
        placed.booking.startsAt.getTime() === zonedTimeToUtc(date, minute, zone)
      ) {
        throw redirect(stepUrl(business.bookingLink, { step: "done", ...view.keep }));
      }
    }
    const counts = availability.countsByDate(zone);
    return {
      ...base,
      title: title("time"),
      step: "time" as const,
      serviceId: service.id,
      date,
      month,
      day: formatLocalDate(date, locale, "day"),
      // The month beside the times on a wide screen.
      days: windowDates.map((d) => ({ date: d, count: counts.get(d) ?? 0 })),
      slots,
      timeError: time ? t("book.timeUnavailable") : null,
    };
  }

  const draft = await readDraft(services, request, business.bookingLink);
  if (url.searchParams.get("step") === "confirm" && draft) {
    return {
      ...base,
      title: title("confirm"),
      step: "confirm" as const,
      serviceId: service.id,
      date,
      time,
      when: shown(date, time),
      draft: { name: draft.name, phone: formatPhone(draft.phone), email: draft.email, notes: draft.notes },
      idempotencyKey: randomUUID(),
      callPromise: await callPromise(Boolean(draft.email)),
    };
  }
  const promise = await confirmationPromise(services, business);
  return {
    ...base,
    title: title("contact"),
    step: "contact" as const,
    serviceId: service.id,
    date,
    time,
    when: shown(date, time),
    draft: draft ? { ...draft, phone: formatPhone(draft.phone) } : null,
    callPromise: describeConfirmationPromise(t, locale, business, promise, { emailed: false }),
    // The phone's hint and the promise below it say the same: no call is promised when none will ring.
    phoneHint: promise.kind === "no_call" ? t("book.phoneHintNoCall") : t("book.phoneHint"),
  };
}

// Plain links and forms: no React on a customer's phone, only app/ui/enhance.js (ADR 0016).
export const handle = { shell: "booking", hydrate: false } satisfies ShellHandle;

/** Search engines and link previews read the business's own words, else the page's title. */
export const meta: Route.MetaFunction = ({ loaderData: data }) => {
  if (!data || data.kind !== "page") return [];
  return [{ name: "description", content: data.business.description || data.title }];
};

export async function action({ request, params, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const t = getT(context);
  const business = await bookableBusiness(services, params.bookingLink);
  if (!business) throw data(null, { status: 404 });
  const form = await request.formData();
  const serviceId = parseDbId(form.get("service"));
  const date = String(form.get("date") ?? "");
  const time = String(form.get("time") ?? "");
  const service = serviceId ? await findService(services.db, business.id, serviceId) : null;
  const minute = parseTimeOfDay(time);
  if (!service || !service.active || !/^\d{4}-\d{2}-\d{2}$/.test(date) || minute === null) {
    return data({ formError: t("book.missingInfo") }, { status: 400 });
  }
  const link = business.bookingLink;
  // The date and time are the visitor's, in the zone they chose (the business's by default).
  const { zone, chosenZone, keep } = viewChoiceOf(form, business.timeZone, getLocale(context));

  if (form.get("intent") === "contact") {
    const submission = parseWithZod(form, { schema: contactSchema(t) });
    // The number is read even when another field is wrong: every error comes in one answer.
    const typedPhone = String(form.get("phone") ?? "").trim();
    const phoneRefused = submission.status === "error" && Boolean(submission.error?.phone);
    const phone = phoneRefused || !typedPhone ? null : normalizeCustomerPhone(typedPhone, business);
    const phoneErrors = phone && !phone.ok ? { fieldErrors: { phone: [t("book.phoneInvalid")] } } : {};
    if (submission.status !== "success" || !phone?.ok) return data({ reply: submission.reply(phoneErrors) }, { status: 400 });
    const draft: BookingDraft = {
      link,
      name: submission.value.name,
      phone: phone.e164,
      email: submission.value.email ?? "",
      notes: submission.value.notes ?? "",
    };
    return redirect(stepUrl(link, { service: service.id, date, time, step: "confirm", ...keep }), {
      headers: { "Set-Cookie": await draftCookie(services, draft) },
    });
  }

  // intent=confirm
  const draft = await readDraft(services, request, link);
  if (!draft) return redirect(stepUrl(link, { service: service.id, date, time, ...keep }));
  const exceeded = await firstExceededRule(context, [
    { name: "booking:ip", subject: clientIp(context), limit: 20, windowSeconds: 3600 },
    { name: "booking:phone", subject: phoneLimitSubject(draft.phone), limit: 5, windowSeconds: 3600 },
  ]);
  if (exceeded) {
    return data({ formError: t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }) }, { status: 429 });
  }
  const confirmKey = String(form.get("idempotencyKey") ?? "").slice(0, 100);
  const result = await placeBooking(services, {
    business,
    service,
    start: zonedTimeToUtc(date, minute, zone),
    customer: { name: draft.name, phone: draft.phone, email: draft.email || null, notes: draft.notes || null },
    language: getLocale(context),
    customerTimeZone: chosenZone,
    idempotency: confirmKey ? { client: "form", key: confirmKey } : null,
    origin: services.publicOrigin(),
    callOrigin: visitorOrigin(services, clientIp(context)),
  });
  // The form's key was sent before with other details: say so, and show nothing of that booking.
  if (result.kind === "key_reused") return data({ formError: t("book.requestKeyReused") }, { status: 409 });
  if (result.kind !== "booked") {
    // Lost the race (or the time no longer exists): the time step again, with fresh slots.
    return redirect(stepUrl(link, { service: service.id, date, taken: "1", ...keep }));
  }
  // The done page's address names no booking: the cookie tells this browser (and only it) which one.
  return redirect(stepUrl(link, { step: "done", ...keep }), {
    headers: { "Set-Cookie": await placedCookie(services, link, result.booking.id, result.manageToken) },
  });
}

export default function Book({ loaderData, actionData }: Route.ComponentProps) {
  return <BookingPage data={loaderData} actionData={actionData} />;
}
