import { rememberedValues } from "~/lib/sharing/remembered";
import { bookingsMade } from "~/platform/observability/metrics.server";
import { log } from "~/platform/observability/log.server";
import type { TFunction } from "i18next";
import { formatWhenWithZone as formatWhen } from "~/lib/when";
import { customerBookingEmail, ownerBookingEmail } from "#emails/booking";
import { formatBookingReference } from "#models/booking-reference";
import {
  createBooking,
  findBooking,
  findByIdempotencyKey,
  listBusyIntervals,
  lockBooking,
  markBookingNotCalled,
  setBookingCallState,
  replayOf,
  settledAnswer,
  type Booking,
} from "#models/bookings";
import { bookingRequestHash, storedIdempotencyKey, type Idempotency } from "./idempotency.server";
import { findBusinessWithService, findService, listServices, type BusinessService } from "#models/business-services";
import { findBusinessByBookingLink, findBusinessById, type Business } from "#models/businesses";
import { getWeeklySchedule, listDaysOff } from "#models/opening-hours";
import { announceBusinessChange } from "#models/analytics";
import { normalizePhone } from "~/platform/phone.server";
import { computeSlots, slotsForLocalDate, windowLocalDates, type SlotRules } from "~/features/booking/slots";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { isCalendarDate, parseTimeOfDay } from "~/lib/time";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import { originOfBooking, queueCall, visitorOrigin, type CallOrigin } from "~/calls/gate.server";
import { manageTokenSealer } from "~/features/booking/manage-link.server";
import {
  confirmationPromise,
  describeConfirmationPromise,
  describeConfirmationPromiseToOwner,
  ownerCallStateOf,
} from "~/features/booking/confirmation-promise.server";
import type { AppJob, AppServices } from "~/platform/services.server";
import { parsePhoneNumberFromString, type CountryCode } from "libphonenumber-js/max";
import type { Db } from "#models/db";
import { batchedCalls } from "~/lib/sharing/coalesce";
import { perKey } from "~/lib/sharing/per-key";
import { calendarBusyAt, queueCalendarWrite } from "./calendar-sync.server";
import { queueConfirmationText } from "./texts.server";

/** The public side of a business: only active businesses have a booking page. */
export async function bookableBusiness(services: AppServices, bookingLink: string) {
  const business = await findBusinessByBookingLink(services.db, bookingLink);
  return business && business.status === "active" ? business : null;
}

/**
 * A booking request's business (null unless its page is open: unknown link or suspended) and the
 * service it names (null unless that business offers it now), read together.
 */
export function bookableBusinessWithService(services: AppServices, bookingLink: string, serviceId: number) {
  return lookupsOn(services.db)({ bookingLink, serviceId });
}

type BookableLookup = { business: Business | null; service: BusinessService | null };

/**
 * The lookups asked for in one turn of the event loop, one read per distinct business and service:
 * a burst of customers booking at one business costs one read, not one each.
 */
const lookupsOn = perKey((db: Db) =>
  batchedCalls(async (wanted: { bookingLink: string; serviceId: number }[]) => {
    const found = new Map<string, Promise<BookableLookup>>();
    const read = async (bookingLink: string, serviceId: number): Promise<BookableLookup> => {
      const row = await findBusinessWithService(db, bookingLink, serviceId);
      if (!row || row.business.status !== "active") return { business: null, service: null };
      return { business: row.business, service: row.service?.active ? row.service : null };
    };
    return Promise.all(
      wanted.map(({ bookingLink, serviceId }) => {
        const key = `${bookingLink}\0${serviceId}`;
        if (!found.has(key)) found.set(key, read(bookingLink, serviceId));
        return found.get(key)!;
      }),
    );
  }),
);

export async function bookableServices(services: AppServices, business: Business) {
  return listServices(services.db, business.id, { activeOnly: true });
}

/** What slot computation reads for a business: its week, its days off, and the bookings in `busyWithin`. */
async function readAvailabilityInputs(services: AppServices, businessId: number, busyWithin: { from: number; to: number }) {
  const [weekly, closures, busy] = await Promise.all([
    getWeeklySchedule(services.db, businessId),
    listDaysOff(services.db, businessId),
    listBusyIntervals(services.db, businessId, new Date(busyWithin.from), new Date(busyWithin.to)),
  ]);
  return { weekly, daysOff: closures.map((d) => d.date), busy };
}

type AvailabilityInputs = Awaited<ReturnType<typeof readAvailabilityInputs>>;

/** The instants a business's booking window can touch, a day either side for any offset. */
const windowAround = (now: number, business: Pick<Business, "bookingWindowDays">) => ({
  from: now - 86_400_000,
  to: now + (business.bookingWindowDays + 1) * 86_400_000,
});

/**
 * Everything slot computation needs for one business and service, read once. `busyWithin` narrows
 * the bookings read to what can touch one day (the whole window by default).
 */
export async function availabilityFor(
  services: AppServices,
  business: Business,
  service: BusinessService,
  now = Date.now(),
  busyWithin: { from: number; to: number } = windowAround(now, business),
) {
  return availabilityFrom(business, service, await readAvailabilityInputs(services, business.id, busyWithin), now);
}

function availabilityFrom(business: Business, service: BusinessService, inputs: AvailabilityInputs, now: number) {
  const { busy } = inputs;
  const rules: SlotRules = {
    timeZone: business.timeZone,
    weekly: inputs.weekly,
    daysOff: new Set(inputs.daysOff),
    serviceMinutes: service.durationMinutes,
    minimumNoticeMinutes: business.minimumNoticeMinutes,
    windowDays: business.bookingWindowDays,
  };
  return {
    rules,
    now,
    /** Free starts (epoch ms) across the whole window. */
    freeStarts: () => computeSlots(rules, busy, now),
    // The dates below are the business's unless `zone` names a viewer's: the slots are always
    // the business's, but a viewer elsewhere reads them under their own days (ADR 0038).
    /** Free start count per local date, for the month table. */
    countsByDate(zone = rules.timeZone) {
      const counts = new Map<string, number>();
      for (const start of computeSlots(rules, busy, now)) {
        const { date } = utcToZoned(start, zone);
        counts.set(date, (counts.get(date) ?? 0) + 1);
      }
      return counts;
    },
    windowDates: (zone = rules.timeZone) => windowLocalDates({ timeZone: zone, windowDays: rules.windowDays }, now),
    day: (localDate: string, zone = rules.timeZone) => slotsForLocalDate(rules, busy, now, localDate, zone),
  };
}

/** How far past its reading a booking page's cached window still covers the whole window (the read cache keeps it seconds). */
const PAGE_READ_SLACK_MS = 60_000;

/**
 * What the booking page shows of a business, read through the cache of frequent reads (a few
 * seconds, emptied by any write on any process), as the availability API's days are: every
 * visitor stepping through a page asks for the same business, services, hours and bookings, and
 * reading them was most of a step's time. `business` is null for an unknown link; a suspended
 * business comes back as it is (the page says so). Placing a booking reads afresh, in its own
 * transaction; a slot shown free a moment too long is answered "just taken", never double-booked.
 */
export function bookingPageReads(services: AppServices, bookingLink: string) {
  return services.readCache.get(`booking-page\n${bookingLink.toLowerCase()}`, async () => {
    const business = await findBusinessByBookingLink(services.db, bookingLink);
    if (!business || business.status !== "active") return { business, services: [], inputs: null };
    const now = Date.now();
    const window = windowAround(now, business);
    const [offered, inputs] = await Promise.all([
      bookableServices(services, business),
      readAvailabilityInputs(services, business.id, { from: window.from, to: window.to + PAGE_READ_SLACK_MS }),
    ]);
    return { business, services: offered, inputs };
  });
}

/** The availability of a service from a booking page's cached reads, at `now`. */
export function pageAvailability(business: Business, service: BusinessService, inputs: AvailabilityInputs, now = Date.now()) {
  return availabilityFrom(business, service, inputs, now);
}

export type AvailabilityError = "bad_date" | "outside_window" | "unknown_service";

/** The slot list the availability API and the time step show, or why there is none. */
export async function slotsForDay(services: AppServices, business: Business, serviceId: number, localDate: string) {
  if (!isCalendarDate(localDate)) {
    return { error: "bad_date" as const };
  }
  const service = Number.isInteger(serviceId) ? await findService(services.db, business.id, serviceId) : null;
  if (!service || !service.active) return { error: "unknown_service" as const };
  // Only the bookings that can reach into that local day (a day either side covers any offset).
  const dayStart = zonedTimeToUtc(localDate, 0, business.timeZone);
  const availability = await availabilityFor(services, business, service, Date.now(), {
    from: dayStart - 86_400_000,
    to: dayStart + 2 * 86_400_000,
  });
  if (!availability.windowDates().includes(localDate)) return { error: "outside_window" as const };
  return { service, slots: availability.day(localDate) };
}

export type DayAvailability =
  { error: AvailabilityError | "not_found"; windowDays?: number } | { slots: { time: string; available: boolean }[] };

export const availabilityKey = (bookingLink: string, serviceId: number, localDate: string) =>
  `availability\n${bookingLink}\n${serviceId}\n${localDate}`;

/**
 * The availability API's answer for a booking link, service and local day: read from the cache
 * of frequent reads (a few seconds, emptied by any write here), since a busy booking page asks
 * for the same day many times while its bookings change rarely.
 */
export function dayAvailability(
  services: AppServices,
  bookingLink: string,
  serviceId: number,
  localDate: string,
): Promise<DayAvailability> {
  return services.readCache.get(availabilityKey(bookingLink, serviceId, localDate), async () => {
    const business = await bookableBusiness(services, bookingLink);
    if (!business) return { error: "not_found" as const };
    const result = await slotsForDay(services, business, serviceId, localDate);
    if (!result.slots) return { error: result.error!, windowDays: business.bookingWindowDays };
    return { slots: result.slots.map(({ time, available }) => ({ time, available })) };
  });
}

/**
 * The API's appointmentDate: without an offset it is the business's local wall time (what the
 * slot list shows); with Z or an offset it is that instant.
 */
export function parseAppointmentDate(value: string, timeZone: string): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::00(?:\.0+)?)?(Z|[+-]\d{2}:\d{2})?$/.exec(value.trim());
  if (!match) return null;
  const [, date, time, offset] = match;
  if (!isCalendarDate(date!)) return null;
  if (offset) {
    const instant = Date.parse(`${date}T${time}:00${offset}`);
    return Number.isNaN(instant) ? null : instant;
  }
  const minute = parseTimeOfDay(time!);
  if (minute === null || minute >= 1440 || !isCalendarDate(date!)) return null;
  return zonedTimeToUtc(date!, minute, timeZone);
}

const phoneCountries = rememberedValues<CountryCode>(10_000);

/** Customers type local numbers in the business's country; the business's own number says which (parsed once per number). */
export function normalizeCustomerPhone(input: string, business: Business) {
  const country = phoneCountries(business.phone, () => parsePhoneNumberFromString(business.phone)?.country ?? "US");
  return normalizePhone(input, country);
}

export interface BookingRequest {
  business: Business;
  service: BusinessService;
  start: number;
  customer: { name: string; phone: string; email: string | null; notes: string | null };
  language: string;
  /** The zone the customer saw the times in (the booking page's `tz`); their e-mails and manage page use it. Null: the business's. */
  customerTimeZone?: string | null;
  /** The request's retry key and who sent it: it replays only for that client and this same request. */
  idempotency: Idempotency | null;
  origin: string;
  /**
   * Who books (a visitor at an address, the agent's conversation, a phone call): kept on the
   * booking, so its confirmation calls, after a move too, and its reminder count there.
   */
  callOrigin: CallOrigin;
  /**
   * Booked on a phone call with the business's own receptionist, the caller agreeing to it there:
   * the booking is made confirmed, no confirmation call is queued, and its details and manage link
   * go by text to the caller's number (even with an e-mail), all in the booking's transaction.
   */
  agreedOnCall?: boolean;
}

export type PlaceBookingResult =
  /** `manageToken`: the secret of the customer's own page, known only when the booking was made now. */
  | { kind: "booked"; booking: Booking; duplicate: boolean; manageToken: string | null }
  | { kind: "taken" }
  | { kind: "not_a_slot" }
  /** The key already made a booking for another request (other details, or another time): nothing of it is told. */
  | { kind: "key_reused" };

/** A request's key as stored, and the hash of what it asks, beside it; null without a key. */
interface RequestKey {
  key: string;
  requestHash: string;
}

/**
 * What the request deciding a time settled, for the requests for the same time that came while it
 * ran (see placeBooking): the booking it made, or that the time is taken. Null when it settled
 * nothing they can use (a retried key's booking, a time that is not a slot, a failure).
 */
type SlotDecision = { kind: "booked"; booking: Booking; idempotencyKey: string | null } | { kind: "taken" } | null;
const decisionsOn = perKey((_db: Db) => new Map<string, Promise<SlotDecision>>());

/**
 * Books a free slot: the time must be one the slot list offers (opening hours, notice, window);
 * the database then decides between simultaneous requests. A new booking e-mails the owner and
 * the customer and queues the AI confirmation call.
 *
 * Requests for one time that reach this process while another is deciding it (a burst of
 * customers pressing "Book" at once) wait for that decision instead of each reading the calendar
 * and queueing for the lock: once it booked the time, or found it taken, they are answered
 * "taken" (or, retrying that request's idempotency key or an earlier one, with its booking)
 * without a query of their own. A retry key replays only for its client and the same request
 * content (storedIdempotencyKey, bookingRequestHash, replayOf): any other request with it gets
 * `key_reused`. Only the database decides: the decision they share is one it
 * committed, made after they arrived or a moment before, as a read of their own would have been.
 */
export async function placeBooking(services: AppServices, request: BookingRequest): Promise<PlaceBookingResult> {
  const startsAt = new Date(request.start);
  const endsAt = new Date(request.start + request.service.durationMinutes * 60_000);
  const deciding = decisionsOn(services.db);
  const slot = `${request.business.id} ${startsAt.getTime()} ${endsAt.getTime()}`;
  const key = requestKey(services, request);
  const earlier = deciding.get(slot);
  if (earlier) {
    const answer = await answerFrom(services, request, key, await earlier);
    if (answer) return answer;
  }
  let settle: (decision: SlotDecision) => void = () => {};
  const decision = new Promise<SlotDecision>((resolve) => (settle = resolve));
  const leads = !deciding.has(slot);
  if (leads) deciding.set(slot, decision);
  try {
    const result = await decideBooking(services, request, key, startsAt, endsAt);
    if (result.kind === "created") settle({ kind: "booked", booking: result.booking, idempotencyKey: key?.key ?? null });
    if (result.kind === "taken") settle({ kind: "taken" });
    if (result.kind === "taken" || result.kind === "not_a_slot" || result.kind === "key_reused") return { kind: result.kind };
    if (result.kind === "duplicate") return { kind: "booked", booking: result.booking, duplicate: true, manageToken: null };
    await announceBusinessChange(services.db, request.business.id);
    return { kind: "booked", booking: result.booking, duplicate: false, manageToken: result.manageToken };
  } finally {
    settle(null);
    if (leads) deciding.delete(slot);
  }
}

/** The key a request's booking keeps, keyed to its client, with the hash of the request beside it. */
function requestKey(services: AppServices, request: BookingRequest): RequestKey | null {
  if (!request.idempotency) return null;
  return {
    key: storedIdempotencyKey(services.signingSecret, request.idempotency),
    requestHash: bookingRequestHash({
      businessId: request.business.id,
      serviceId: request.service.id,
      start: request.start,
      phone: request.customer.phone,
      name: request.customer.name,
      email: request.customer.email,
      notes: request.customer.notes,
      language: request.language,
    }),
  };
}

/** What a retry gets from the booking its key made: that booking for the same request only (replayOf). */
function replayAnswer(existing: Booking, key: RequestKey): PlaceBookingResult {
  const replay = replayOf(existing, key.requestHash);
  return replay.kind === "duplicate" ? { kind: "booked", booking: replay.booking, duplicate: true, manageToken: null } : replay;
}

/** A waiting request's answer from the decision it waited for; null when it must decide for itself. */
async function answerFrom(
  services: AppServices,
  request: BookingRequest,
  key: RequestKey | null,
  decision: SlotDecision,
): Promise<PlaceBookingResult | null> {
  if (!decision) return null;
  if (key === null) return { kind: "taken" };
  if (decision.kind === "booked" && decision.idempotencyKey === key.key) return replayAnswer(decision.booking, key);
  const existing = await findByIdempotencyKey(services.db, request.business.id, key.key);
  return existing ? replayAnswer(existing, key) : { kind: "taken" };
}

/** The calendar's answer for one request: from one read when it is already settled, else from the slot grid and the transaction. */
async function decideBooking(services: AppServices, request: BookingRequest, key: RequestKey | null, startsAt: Date, endsAt: Date) {
  // A retry of a booking already made, or a time booked at this very start (most of a burst of
  // requests for one time), is answered from one read, before the slot grid's reads: the losers of
  // a race cost little, so the winner's answer is not queued behind theirs. A time that only
  // overlaps a booking goes by the grid first: one off the grid is "not a slot", not "taken".
  const settled = await settledAnswer(
    services.db,
    {
      businessId: request.business.id,
      idempotencyKey: key?.key ?? null,
      idempotencyRequestHash: key?.requestHash ?? null,
      startsAt,
      endsAt,
    },
    "same start",
  );
  if (settled) return settled;
  // Only the bookings that can reach into the local day of the start (a day either side covers any offset).
  const localDate = utcToZoned(request.start, request.business.timeZone).date;
  const dayStart = zonedTimeToUtc(localDate, 0, request.business.timeZone);
  const availability = await availabilityFor(services, request.business, request.service, Date.now(), {
    from: dayStart - 86_400_000,
    to: dayStart + 2 * 86_400_000,
  });
  // A start the day's list (the availability API's) does not offer was never a slot; one offered
  // but taken a moment ago goes on to the transaction, which answers "taken".
  if (!availability.day(localDate).some((slot) => slot.start === request.start)) return { kind: "not_a_slot" as const };
  // The owner's own calendar asked again about this very time: an event added since its last sync.
  if (await calendarBusyAt(services, request.business.id, request.business.timeZone, request.start, endsAt.getTime()))
    return { kind: "taken" as const };
  // Read before the booking's transaction, which holds the embedded database's one connection.
  const announcement = await prepareAnnouncement(services, request);
  const result = await createBooking(services.db, {
    sealManageToken: manageTokenSealer(services),
    businessId: request.business.id,
    serviceId: request.service.id,
    startsAt,
    endsAt,
    customerName: request.customer.name,
    customerPhone: request.customer.phone,
    customerEmail: request.customer.email,
    notes: request.customer.notes,
    language: request.language,
    customerTimeZone: request.customerTimeZone ?? null,
    idempotencyKey: key?.key ?? null,
    idempotencyRequestHash: key?.requestHash ?? null,
    origin: request.callOrigin,
    // The owner's call column says the promise the customer is given (no "Call queued" without telephony).
    callState: ownerCallStateOf(announcement.promise),
    status: request.agreedOnCall ? "confirmed" : "pending",
    followUp: (tx, booking, manageToken) =>
      announceBooking(services, tx, request, announcement, booking, `${request.origin}/booking/${manageToken}`),
  });
  if (result.kind === "created") {
    bookingsMade.inc({ source: request.callOrigin.kind });
    log.info(
      { bookingId: result.booking.id, businessId: request.business.id, source: request.callOrigin.kind },
      `booking ${result.booking.id} made`,
    );
  }
  return result;
}

/** What a new booking's e-mails say that does not depend on the booking itself: the translators and the call's promise. */
async function prepareAnnouncement(services: AppServices, request: BookingRequest) {
  return {
    ownerT: await translatorFor(request.business.defaultLanguage),
    customerT: await translatorFor(request.language),
    promise: request.agreedOnCall ? ({ kind: "agreed_on_call" } as const) : await confirmationPromise(services, request.business),
  };
}

/**
 * A new booking's e-mails to the owner and the customer and its confirmation call's job, queued in
 * the booking's transaction `tx`: all of them commit with the booking, or none does.
 */
async function announceBooking(
  services: AppServices,
  tx: Db,
  request: BookingRequest,
  { ownerT, customerT, promise }: Awaited<ReturnType<typeof prepareAnnouncement>>,
  booking: Booking,
  manageUrl: string,
) {
  const { business, service } = request;
  const base = {
    bookingId: booking.id,
    businessName: business.name,
    businessAddress: business.address,
    serviceName: service.name,
    start: booking.startsAt,
    end: booking.endsAt,
    customerName: booking.customerName,
    customerPhone: booking.customerPhone,
    customerEmail: booking.customerEmail,
    notes: booking.notes,
    manageUrl,
    dashboardUrl: `${request.origin}/dashboard#bookings`,
    reference: formatBookingReference(booking.reference),
  };
  await services.jobs.enqueue(
    sendEmailJob,
    ownerBookingEmail(ownerT, business.defaultLanguage, business.email, {
      ...base,
      when: formatWhen(booking.startsAt, business.timeZone, business.defaultLanguage),
      callPromise: describeConfirmationPromiseToOwner(ownerT, business.defaultLanguage, business, promise),
    }),
    { tx },
  );
  if (booking.customerEmail) {
    await services.jobs.enqueue(
      sendEmailJob,
      customerBookingEmail(customerT, request.language, booking.customerEmail, {
        ...base,
        when: formatWhen(booking.startsAt, booking.customerTimeZone ?? business.timeZone, request.language),
        callPromise: describeConfirmationPromise(customerT, request.language, business, promise, { emailed: true }),
      }),
      { tx },
    );
  }
  await queueConfirmationText(services, tx, business, service.name, booking, manageUrl, {
    agreedOnCall: promise.kind === "agreed_on_call",
  });
  if (promise.kind !== "agreed_on_call") await queueConfirmationCall(services, tx, booking, request.origin);
  await queueCalendarWrite(services, tx, booking);
}

/**
 * The one way a booking's confirmation call is asked for (a new booking, a move by the customer
 * or the owner, the sweep): its job, inserted in `tx`, the transaction that made or moved the
 * booking, so the booking and the work that must follow it commit together: a crash right after
 * the commit still leaves the job, and a job that cannot be queued rolls the booking back.
 * tests/unit/after-commit-jobs.test.ts checks that no path queues the job another way.
 */
export async function queueConfirmationCall(
  services: AppServices,
  tx: Db,
  booking: Pick<Booking, "id" | "confirmationRound">,
  origin: string,
) {
  await services.jobs.enqueue(
    bookingConfirmationCallJob,
    { bookingId: booking.id, origin },
    { tx, singletonKey: `confirm-${booking.id}-${booking.confirmationRound}` },
  );
}

/**
 * Places the AI confirmation call for a new (or moved) booking, in the customer's language with
 * the business's chosen voice, through the call gate with the booking's origin: a move, whoever
 * makes it, counts where the booking was made. Without telephony configured it records that, so
 * the owner sees it. Run again (its worker died, the job expired and was retried), the gate finds
 * the call it asked for: one call per (booking, confirmation round, attempt), kept by a unique
 * index (ADR 0026). `ip`: only in jobs queued before bookings kept their origin.
 */
export const bookingConfirmationCallJob: AppJob<{ bookingId: number; origin?: string; ip?: string | null }> = {
  name: "booking-confirmation-call",
  retryLimit: 5,
  retryDelaySeconds: 60,
  async handle({ bookingId, ip }, services) {
    const booking = await findBooking(services.db, bookingId);
    if (!booking || booking.status !== "pending") return;
    const business = await findBusinessById(services.db, booking.businessId);
    if (!business) return;
    // The same answer the customer was given on the page and in the e-mail.
    const promise = await confirmationPromise(services, business);
    if (promise.kind === "no_call" && promise.reason === "not_configured") {
      await setBookingCallState(services.db, booking.id, "calls_not_configured");
      return;
    }
    const origin = !booking.origin && ip ? visitorOrigin(services, ip) : originOfBooking(booking);
    // The call, its placing job and the booking's state together: a crash leaves all or none.
    await services.db.transaction(async (tx) => {
      // Read again under the booking's lock: confirmed, cancelled or moved (a new round) since the
      // read above, it needs no call for this round, and a change after this waits for the call
      // row, which its withdrawal of queued calls then finds.
      const now = await lockBooking(tx, booking.id);
      if (!now || now.status !== "pending" || now.confirmationRound !== booking.confirmationRound) return;
      const queued = await queueCall(
        services,
        {
          purpose: "booking_confirmation",
          to: booking.customerPhone,
          language: booking.language,
          voice: business.confirmationVoice,
          businessId: business.id,
          bookingId: booking.id,
          confirmationRound: booking.confirmationRound,
          origin,
          // Outside calling hours the call waits for the time the customer was told. A plan that
          // refuses the call is left to the engine's gate, which records the refusal for the owner.
          ...(promise.kind === "call_later" ? { startAfter: promise.at } : {}),
        },
        tx,
      );
      // Refused: the booking stands; the owner's list says why nobody called, so the business phones itself.
      if (!queued.ok) await markBookingNotCalled(tx, booking.id, queued.reason);
      // Asked for already (by this job before its worker died, or by a duplicate): the booking's
      // call state is left as that call made it.
      else if (queued.created) await setBookingCallState(tx, booking.id, promise.kind === "call_later" ? "scheduled" : "queued");
    });
  },
};

export type { TFunction };
