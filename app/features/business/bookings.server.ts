import { data } from "react-router";
import { announceBusinessChange } from "#models/analytics";
import type { TFunction } from "i18next";
import { formatBookingReference } from "#models/booking-reference";
import {
  CALL_STATES_IN_PROGRESS,
  findBusinessBooking,
  listBusyIntervals,
  readOwnerBookings,
  markBusinessBookingNoShow,
  setBookingCallStateIf,
  type Booking,
  type ListedBooking,
  type OwnerBookingFilter,
} from "#models/bookings";
import type { Business } from "#models/businesses";
import { cancelQueuedBookingCalls, latestCallsOfBookings, SHOWN_CALL_PURPOSES, type LatestCall } from "#models/calls";
import { getWeeklySchedule, listDaysOff } from "#models/opening-hours";
import { changeBooking, confirmationPromise } from "~/features/booking/index.server";
import { computeSlots, slotsForLocalDate, windowLocalDates, type SlotRules } from "~/features/booking/index";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { formatLocalDate, formatSeconds, formatWhen, zoneName } from "~/lib/when";
import type { Owner } from "~/features/business/owner.server";
import { isolatedText } from "~/lib/isolate";
import { formatPhone } from "~/platform/phone.server";
import { formatTimeOfDay, isCalendarDate, parseTimeOfDay } from "~/lib/time";
import { parseDbId } from "~/lib/ids";
import { pageCount, pageOf } from "~/ui/pager";
import type { AppServices } from "~/platform/services.server";
import { planCallsCountedSince, planNoticeGiven, planRefusalText } from "~/features/business/plan.server";
import { PLAN_PAUSED_STATE } from "#models/businesses";

export const bookingFilters = ["upcoming", "attention", "cancelled", "past"] as const satisfies readonly OwnerBookingFilter[];

export function parseFilter(value: string | null): OwnerBookingFilter {
  return (bookingFilters as readonly string[]).includes(value ?? "") ? (value as OwnerBookingFilter) : "upcoming";
}

type CallRow = LatestCall;

/** One booking as the owner's list and its own page show it: every text ready to print. */
function bookingView(
  owner: Owner,
  booking: ListedBooking,
  serviceName: string,
  call: CallRow | undefined,
  reminder: CallRow | undefined,
  now = Date.now(),
) {
  const { t, locale, business } = owner;
  const live = booking.endsAt.getTime() > now && booking.status !== "cancelled" && booking.status !== "no_show";
  const outcome = booking.callOutcome ?? call?.outcome ?? (booking.callState.startsWith("done:") ? booking.callState.slice(5) : null);
  const preferred = outcome?.startsWith("reschedule requested: ") ? outcome.slice("reschedule requested: ".length) : null;
  return {
    id: booking.id,
    when: formatWhen(booking.startsAt, business.timeZone, locale),
    serviceName,
    /** What the customer quotes on the phone, grouped as it is read out ("K7M-Q4P"). */
    reference: formatBookingReference(booking.reference),
    customerName: booking.customerName,
    phone: formatPhone(booking.customerPhone),
    phoneHref: `tel:${booking.customerPhone}`,
    email: booking.customerEmail,
    notes: booking.notes,
    status: booking.status,
    statusLabel: t(`bookingStatus.${booking.status}`),
    /** Who made the last change of time or status: "Cancelled by the customer", "Moved by you". */
    changeMark:
      booking.lastChange && (booking.lastChangeBy === "customer" || booking.lastChangeBy === "owner")
        ? t(`bookingChanges.mark.${booking.lastChangeBy}.${booking.lastChange as "moved"}`, { defaultValue: "" }) || null
        : null,
    notCalled: booking.notCalledReason
      ? t("notCalled.message", {
          reason:
            planRefusalText(t, booking.notCalledReason) ??
            t(`notCalled.reason.${booking.notCalledReason as "invalid"}`, { defaultValue: booking.notCalledReason }),
        })
      : null,
    callLabel: outcome ? outcomeLabel(t, outcome) : callStateLabel(t, booking.callState),
    /** What the customer asked for on the phone, in their own words. */
    preferredTime: preferred,
    call: call
      ? {
          summary: t("owner.bookings.callSummary", {
            when: formatWhen(call.createdAt, business.timeZone, locale),
            attempt: call.attempt,
            status: t(`owner.callStatus.${call.status}`),
          }),
          duration: call.durationSeconds !== null ? formatSeconds(call.durationSeconds, locale) : null,
          transcript: call.transcript.map((line) => ({ role: line.role, text: line.text })),
          /** What the agent wrote for the owner before its goodbye (redacted), in the agent's words. */
          agentSummary: call.summary,
        }
      : null,
    /** The AI reminder call, when one was made or is waiting: when, and what came of it. */
    reminderCall: reminder
      ? t("owner.bookings.reminderCall", {
          when: formatWhen(reminder.createdAt, business.timeZone, locale),
          result: reminderResult(t, reminder),
        })
      : null,
    canConfirm: live && booking.status !== "confirmed",
    canCancel: live,
    canReschedule: live,
    /** Its time has come (started, over or not) and nobody marked it yet; offered on the booking's page. */
    canMarkNoShow: booking.startsAt.getTime() <= now && booking.status !== "cancelled" && booking.status !== "no_show",
  };
}

export type BookingView = ReturnType<typeof bookingView>;

function outcomeLabel(t: TFunction, outcome: string) {
  if (outcome.startsWith("reschedule requested")) return t("owner.outcome.reschedule");
  const known = {
    confirmed: "confirmed",
    cancelled: "cancelled",
    "do not call": "doNotCall",
    voicemail: "voicemail",
    unreachable: "unreachable",
  };
  const key = known[outcome as keyof typeof known];
  return key ? t(`owner.outcome.${key as "confirmed"}`) : outcome;
}

/** What came of a reminder call, in a few words: what the customer said, or how the call went. */
function reminderResult(t: TFunction, call: CallRow) {
  if (call.outcome) return outcomeLabel(t, call.outcome);
  if (call.status === "failed" && call.durationSeconds === null && !call.answeredAt) return t("owner.bookings.reminderSkipped");
  return t(`owner.callStatus.${call.status}`);
}

function callStateLabel(t: TFunction, state: string) {
  if (state === "by_owner") return t("owner.bookings.byOwner");
  if (state === "not_called") return t("owner.bookings.notCalledShort");
  if (state === PLAN_PAUSED_STATE) return t("plan.paused");
  return t(`callState.${state as "queued"}`, { defaultValue: state });
}

/** The rows' views, with their latest calls (read with them, or else now). */
async function viewsOf(owner: Owner, rows: { booking: ListedBooking; serviceName: string }[], calls?: LatestCall[]) {
  const latest =
    calls ??
    (await latestCallsOfBookings(
      owner.services.db,
      rows.map((r) => r.booking.id),
      SHOWN_CALL_PURPOSES,
    ));
  const byBooking = new Map(latest.filter((c) => c.purpose === "booking_confirmation").map((c) => [c.bookingId, c]));
  const reminderOf = new Map(latest.filter((c) => c.purpose === "booking_reminder").map((c) => [c.bookingId, c]));
  return rows.map((r) => bookingView(owner, r.booking, r.serviceName, byBooking.get(r.booking.id), reminderOf.get(r.booking.id)));
}

/** Bookings on one page of the owner's lists: a busy day's worth, quick to read and to render. */
export const BOOKINGS_PAGE_SIZE = 25;

/** The bookings page: one filter's list, how many need attention, and what is missing before customers can book. */
export async function loadBookingsPage(owner: Owner, url: URL) {
  const { services, business } = owner;
  const filter = parseFilter(url.searchParams.get("filter"));
  const now = new Date();
  const read = (page: number) =>
    readOwnerBookings(
      services.db,
      business.id,
      filter,
      { limit: BOOKINGS_PAGE_SIZE, offset: (page - 1) * BOOKINGS_PAGE_SIZE },
      { now, planCallsSince: planCallsCountedSince(business) },
    );
  const asked = pageOf(url);
  // Asked together: on PostgreSQL they go out on several connections at once.
  const [askedPage, message, promise] = await Promise.all([
    read(asked),
    bookingMessage(owner, url),
    // What the page says of calls is what the booking page and the e-mails promise.
    confirmationPromise(services, business, now),
  ]);
  const { total, attention } = askedPage;
  const { planCalls, ...setup } = askedPage.setup;
  const planNotice = planNoticeGiven(owner.t, business, planCalls, now);
  // A page past the end (an old link, bookings since gone) shows the last one.
  const page = Math.min(asked, pageCount(total, BOOKINGS_PAGE_SIZE));
  const { rows, calls } = page === asked ? askedPage : await read(page);
  return {
    filter,
    page,
    total,
    pageSize: BOOKINGS_PAGE_SIZE,
    timeZone: business.timeZone,
    zoneName: zoneName(business.timeZone, owner.locale),
    /** Whether new bookings get a confirmation call at all, for the page's introduction. */
    callsPlaced: promise.kind !== "no_call",
    bookings: await viewsOf(owner, rows, calls),
    attentionCount: attention,
    setup,
    message,
    /** Calls paused (past due) or stopped by the plan: said on the dashboard's first page. */
    planNotice,
  };
}

/** The confirmation shown at the top of the page after an action (post, redirect, get). */
async function bookingMessage(owner: Owner, url: URL) {
  const done = url.searchParams.get("done");
  const id = parseDbId(url.searchParams.get("booking"));
  if (!done || !id || !["confirmed", "cancelled", "moved", "no_show"].includes(done)) return null;
  const found = await findBusinessBooking(owner.services.db, owner.business.id, id);
  if (!found) return null;
  const name = isolatedText(found.booking.customerName, owner.locale);
  // Nobody is told of a no-show: the owner's record only.
  if (done === "no_show") return owner.t("owner.booking.noShowDone", { name });
  const text = owner.t(`owner.bookings.done.${done as "confirmed"}`, { name });
  const mailed = found.booking.customerEmail ? owner.t("owner.bookings.done.emailed") : owner.t("owner.bookings.done.noEmail");
  return `${text} ${mailed}`;
}

/** One booking with its reschedule choices: the dates with free times, and one date's times. */
export async function loadBookingPage(owner: Owner, bookingId: number | null, url: URL) {
  const found = bookingId ? await findBusinessBooking(owner.services.db, owner.business.id, bookingId) : null;
  if (!found) throw data(null, { status: 404 });
  const [view] = await viewsOf(owner, [found]);
  let reschedule: null | { dates: { date: string; label: string }[]; date: string | null; times: { value: string; label: string }[] } =
    null;
  if (view!.canReschedule) {
    const availability = await ownerAvailability(owner.services, owner.business, found.booking);
    const dates = availability.datesWithFreeTimes();
    const asked = url.searchParams.get("date");
    const date = asked && dates.includes(asked) ? asked : null;
    reschedule = {
      dates: dates.map((d) => ({ date: d, label: formatLocalDate(d, owner.locale) })),
      date,
      times: date
        ? availability.freeOn(date).map((start) => ({
            value: timeValue(start, owner.business.timeZone),
            label: formatWhen(start, owner.business.timeZone, owner.locale, "time"),
          }))
        : [],
    };
  }
  return { booking: view!, reschedule, windowDays: owner.business.bookingWindowDays, message: await bookingMessage(owner, url) };
}

/** The form's value for a start: its wall time in the business's zone, "HH:MM". */
function timeValue(start: number, timeZone: string) {
  return formatTimeOfDay(utcToZoned(start, timeZone).minuteOfDay);
}

/**
 * Where the owner can move a booking: the slot engine with the business's opening hours, days off
 * and other bookings (this one left out), for the booking's own length, over the booking window.
 * The owner is not held to the minimum notice customers are.
 */
async function ownerAvailability(services: AppServices, business: Business, booking: Booking, now = Date.now()) {
  const [weekly, closures, busy] = await Promise.all([
    getWeeklySchedule(services.db, business.id),
    listDaysOff(services.db, business.id),
    listBusyIntervals(
      services.db,
      business.id,
      new Date(now - 86_400_000),
      new Date(now + (business.bookingWindowDays + 1) * 86_400_000),
      booking.id,
    ),
  ]);
  const rules: SlotRules = {
    timeZone: business.timeZone,
    weekly,
    daysOff: new Set(closures.map((d) => d.date)),
    serviceMinutes: Math.round((booking.endsAt.getTime() - booking.startsAt.getTime()) / 60_000),
    minimumNoticeMinutes: 0,
    windowDays: business.bookingWindowDays,
  };
  const free = computeSlots(rules, busy, now);
  return {
    isFree: (start: number) => free.includes(start),
    datesWithFreeTimes: () => windowLocalDates(rules, now).filter((d) => slotsForLocalDate(rules, busy, now, d).some((s) => s.available)),
    freeOn: (date: string) =>
      slotsForLocalDate(rules, busy, now, date)
        .filter((s) => s.available)
        .map((s) => s.start),
  };
}

export type BookingActionResult =
  | { ok: true; bookingId: number; done: "confirmed" | "cancelled" | "moved" | "no_show" }
  | { ok: false; intent: string; formError?: string; errors?: Record<string, string[]> };

export const bookingIntents = ["confirm-booking", "cancel-booking", "reschedule-booking", "no-show-booking"] as const;

/**
 * Confirm, cancel or move one booking by hand, or record that the customer did not come. Only a
 * booking of the owner's own business is found (any other id is 404). Each is idempotent: doing it
 * again changes nothing and sends no second e-mail. Each change but a no-show e-mails the customer
 * in the language they booked in, and a call the booking no longer needs is taken off the queue
 * before it dials.
 */
export async function handleBookingAction(owner: Owner, form: FormData): Promise<BookingActionResult> {
  const { services, business, t } = owner;
  const intent = String(form.get("intent") ?? "");
  const bookingId = parseDbId(form.get("bookingId"));
  const found = bookingId ? await findBusinessBooking(services.db, business.id, bookingId) : null;
  if (!found) throw data(null, { status: 404 });
  const { booking } = found;
  if (intent === "confirm-booking") {
    const result = await changeBooking(services, { booking, business, by: "owner" }, { kind: "confirmed" });
    if (result.kind !== "changed" && booking.status !== "confirmed")
      return { ok: false, intent, formError: t("owner.bookings.cannotChange") };
    return { ok: true, bookingId: booking.id, done: "confirmed" };
  }
  if (intent === "cancel-booking") {
    const result = await changeBooking(services, { booking, business, by: "owner" }, { kind: "cancelled" });
    if (result.kind !== "changed" && booking.status !== "cancelled")
      return { ok: false, intent, formError: t("owner.bookings.cannotChange") };
    return { ok: true, bookingId: booking.id, done: "cancelled" };
  }
  if (intent === "reschedule-booking") return reschedule(owner, booking, form);
  if (intent === "no-show-booking") return markNoShow(owner, booking);
  return { ok: false, intent, formError: t("common.genericError") };
}

async function reschedule(owner: Owner, booking: Booking, form: FormData): Promise<BookingActionResult> {
  const { services, business, t } = owner;
  const intent = "reschedule-booking";
  const date = String(form.get("date") ?? "");
  const minute = parseTimeOfDay(String(form.get("time") ?? ""));
  if (!isCalendarDate(date)) return { ok: false, intent, errors: { date: [t("owner.reschedule.dateInvalid")] } };
  if (minute === null || minute >= 1440) return { ok: false, intent, errors: { time: [t("owner.reschedule.timeRequired")] } };
  const start = zonedTimeToUtc(date, minute, business.timeZone);
  // Sent twice, the same move is done once.
  if (booking.startsAt.getTime() === start && booking.status !== "cancelled") return { ok: true, bookingId: booking.id, done: "moved" };
  const availability = await ownerAvailability(services, business, booking);
  if (!availability.isFree(start)) return { ok: false, intent, errors: { time: [t("owner.reschedule.taken")] } };
  const length = booking.endsAt.getTime() - booking.startsAt.getTime();
  // The new time, the old time's calls dropped, the new time's confirmation call and the e-mails, together.
  const moved = await changeBooking(
    services,
    { booking, business, by: "owner" },
    { kind: "moved", start: new Date(start), end: new Date(start + length) },
  );
  if (moved.kind === "taken") return { ok: false, intent, errors: { time: [t("owner.reschedule.taken")] } };
  if (moved.kind === "unchanged") return { ok: false, intent, formError: t("owner.bookings.cannotChange") };
  return { ok: true, bookingId: booking.id, done: "moved" };
}

/**
 * The customer did not come: only once the appointment's time has come, and never for a cancelled
 * booking. Nobody is e-mailed; a confirmation call still queued for it has nothing left to confirm.
 */
async function markNoShow(owner: Owner, booking: Booking, now = new Date()): Promise<BookingActionResult> {
  const { services, business, t } = owner;
  const intent = "no-show-booking";
  if (booking.startsAt.getTime() > now.getTime()) return { ok: false, intent, formError: t("owner.booking.noShowTooEarly") };
  const marked = await markBusinessBookingNoShow(services.db, business.id, booking.id, now);
  if (marked) {
    await announceBusinessChange(services.db, business.id);
    await settleCalls(services, booking.id);
  } else if (booking.status !== "no_show") {
    return { ok: false, intent, formError: t("owner.bookings.cannotChange") };
  }
  // Sent twice, it is marked once.
  return { ok: true, bookingId: booking.id, done: "no_show" };
}

/**
 * The owner settled the booking: no confirmation call is needed any more. A reminder call waiting
 * for a confirmed booking still goes; a cancelled or no-show one's is dropped too.
 */
async function settleCalls(services: AppServices, bookingId: number, { keepReminder = false } = {}) {
  await cancelQueuedBookingCalls(services.db, bookingId, keepReminder ? ["booking_confirmation"] : undefined);
  await setBookingCallStateIf(services.db, bookingId, "by_owner", CALL_STATES_IN_PROGRESS);
}
