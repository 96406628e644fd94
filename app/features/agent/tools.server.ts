import { log } from "~/platform/observability/log.server";
import { formatBookingReference, parseBookingReference } from "#models/booking-reference";
import { findBookingByManageToken, findBookingsByReference, type Booking } from "#models/bookings";
import { findService, type BusinessService } from "#models/business-services";
import { findBusinessById, searchActiveBusinesses, type Business } from "#models/businesses";
import { hitRateLimit } from "#models/rate-limits";
import {
  bookableBusiness,
  bookableServices,
  availabilityFor,
  normalizeCustomerPhone,
  placeBooking,
  slotsForDay,
} from "~/features/booking/index.server";
import { contactSchema } from "~/features/booking/index";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { formatMoney } from "~/lib/money";
import { isCalendarDate, parseTimeOfDay } from "~/lib/time";
import { translatorFor } from "~/platform/i18n.server";
import { normalizePhone } from "~/platform/phone.server";
import { phoneLimitSubject, rateLimitKey, type RateRule } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import type { ChatTool } from "~/providers/ai.server";
import { parseDbId } from "~/lib/ids";
import { visitorOrigin, type CallOrigin } from "~/calls/gate.server";
import { AVAILABLE_TIMES, BOOK_APPOINTMENT, FIND_BUSINESS, LOOKUP_BOOKING } from "~/voice/agents.server";
import { quoted } from "~/voice/data-section";

/**
 * The Saudi customer-service agent's tools, the same in the browser's text chat (Chat Completions
 * function tools) and on the phone (the realtime bridge runs them): a customer's booking looked up
 * by its reference (six characters, or the manage link) and phone number, rate limited, and a new booking at an active business through the booking
 * page's own placeBooking (its slot rules, the database's guarantee against double booking, the
 * e-mails and the confirmation call under the dialling policy). Outputs are short plain English
 * for the model, which speaks Saudi Arabic to the caller.
 */

/** Who the agent is talking to: the booking tools book for this phone number only. */
export interface AgentSession {
  /** The number the caller is on (a phone call) or entered (the web call), E.164; null when unknown. */
  phone: string | null;
  /** The name the caller gave when starting the conversation, if any. */
  customerName?: string | null;
  /** The visitor's address in the browser, counted by the look-up limits. */
  ip?: string | null;
  /**
   * Who the conversation is for the call gate: the visitor at their address (text chat, browser
   * voice), or the phone call's own origin. Its bookings count against the booking page's
   * per-address limit, and their confirmation calls against the address's calls of the day.
   * Without it, a visitor at `ip`.
   */
  origin?: CallOrigin | null;
  /** Identifies the conversation, so the same booking asked twice in it is made once. */
  sessionKey?: string | null;
  /** Links are given in a text chat; on the phone they would be read out, so they are left out. */
  channel: "text" | "voice";
}

export { AVAILABLE_TIMES, BOOK_APPOINTMENT, FIND_BUSINESS, LOOKUP_BOOKING } from "~/voice/agents.server";

/** The one answer for a wrong reference and a wrong phone number alike: it tells nothing about which was wrong. */
export const NO_MATCHING_BOOKING =
  "No booking matches that reference and phone number together. Ask the caller to check both: the reference is the six letters and digits in their booking e-mail (like K7M-Q4P), the phone number is the one they booked with.";

/** Too many look-ups from this caller, or about this reference or number: the same for a match and a mismatch. */
export const LOOKUP_LIMITED = (minutes: number) =>
  `Too many booking look-ups just now. Ask the caller to try again in ${minutes} minutes, or to use the 'Change or cancel' link in their booking e-mail.`;

/** A conversation the look-up cannot tell from others (no number, address or conversation): it does not look up. */
export const LOOKUP_UNAVAILABLE =
  "Booking look-ups are not available in this conversation. Suggest the 'Change or cancel' link in the booking e-mail.";

/**
 * The booking page's limits, shared with it (the same rows: rateLimitKey's for the number, and the
 * origin's keyed address under the same rule name), so the counts add up across every path.
 */
const BOOKING_LIMITS = (services: AppServices, phone: string, origin: CallOrigin) => [
  ...(origin.address ? [{ key: `booking:ip:${origin.address}`, limit: 20, windowSeconds: 3600 }] : []),
  {
    key: rateLimitKey(services.signingSecret, { name: "booking:phone", subject: phoneLimitSubject(phone) }),
    limit: 5,
    windowSeconds: 3600,
  },
];

/** Free times listed per day; the model offers a few, not dozens. */
const TIMES_SHOWN = 16;
/** Days with free times listed when the caller names no date. */
const DAYS_SUGGESTED = 3;

const str = (value: unknown, max = 200) => (typeof value === "string" ? value.replace(/\s+/g, " ").trim().slice(0, max) : "");

/** The manage-link secret in what the caller gave: the whole link, its path, or the secret alone. */
export function referenceToken(reference: string): string | null {
  const text = reference.trim();
  const inLink = /\/booking\/([A-Za-z0-9_-]{16,128})(?:[/?#\s]|$)/.exec(text)?.[1];
  if (inLink) return inLink;
  return /^[A-Za-z0-9_-]{16,128}$/.test(text) ? text : null;
}

const STATUS_WORDS: Record<Booking["status"], string> = {
  pending: "booked, waiting for the customer's confirmation (the business's AI assistant calls to confirm)",
  confirmed: "confirmed",
  cancelled: "cancelled",
  reschedule_requested: "the customer asked for another time; the business will contact them",
  unreachable: "not confirmed: the confirmation call could not reach the customer; the business will contact them",
  no_show: "the business recorded that the customer did not come at the booked time",
};

/** "Wednesday, 25 November 2026 at 10:00 (Asia/Riyadh time)": the business's wall clock, as the booking page shows it. */
export function localWhen(start: Date, timeZone: string) {
  const text = start.toLocaleString("en-GB", {
    timeZone,
    weekday: "long",
    day: "numeric",
    month: "long",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  return `${text} (${timeZone} time)`;
}

const weekdayOf = (localDate: string) =>
  new Date(`${localDate}T12:00:00Z`).toLocaleDateString("en-GB", { weekday: "long", timeZone: "UTC" });

const serviceLine = (service: BusinessService) =>
  `service_id ${service.id}: ${service.name}, ${service.durationMinutes} min, ${
    service.priceCents === 0 ? "free" : formatMoney(service.priceCents, service.currency, "en")
  }`;

/**
 * Look-ups a caller may make in an hour. Every look-up counts, whatever it answers (so a refusal
 * tells nothing about the booking): per caller (the number they are on, else their address or
 * conversation), per address, and per reference and per phone number asked about, so guessing a
 * reference for someone's number, or a number for someone's reference, stops after a few tries
 * however many callers try. Never one bucket for callers it cannot tell apart: a caller with no
 * number, address or conversation cannot look up at all (null). The number asked about counts
 * as the look-up reads it (lookupPhone), so each way of writing it is the same counter.
 */
const LOOKUP_RULES = (session: AgentSession, reference: string, phone: string): RateRule[] | null => {
  const caller = session.phone ?? session.ip ?? session.sessionKey;
  if (!caller) return null;
  return [
    { name: "booking-lookup:caller", subject: caller, limit: 10, windowSeconds: 3600 },
    ...(session.ip ? [{ name: "booking-lookup:ip", subject: session.ip, limit: 30, windowSeconds: 3600 }] : []),
    { name: "booking-lookup:reference", subject: reference, limit: 10, windowSeconds: 3600 },
    ...(phone
      ? [{ name: "booking-lookup:phone", subject: phoneLimitSubject(phone, lookupCountry(session)), limit: 10, windowSeconds: 3600 }]
      : []),
  ];
};

/**
 * The country a look-up reads a number said without its country code in: that of the number
 * the caller is on, else the default of normalizePhone. One reading for the match and the limit
 * alike, so no way of writing a number finds a booking without counting against that number.
 */
const lookupCountry = (session: AgentSession) => {
  const own = session.phone ? normalizePhone(session.phone) : null;
  return own?.ok ? own.country : undefined;
};

/**
 * The caller's booking by what they said: its reference (the six characters, or the manage link
 * from the e-mail) and the phone number it was made with (E.164, as lookupCountry reads it). Of
 * one business when `businessId` is given (the confirmation agent's), else of any; null for any
 * mismatch, whichever part it was.
 */
async function bookingForCaller(services: AppServices, said: string, phone: string | null, businessId?: number) {
  if (!phone) return null;
  const token = referenceToken(said);
  const byToken = token ? await findBookingByManageToken(services.db, token) : null;
  const candidates = byToken ? [byToken] : await findBookingsByReference(services.db, said, businessId);
  for (const booking of candidates) {
    if (businessId !== undefined && booking.businessId !== businessId) continue;
    if (booking.customerPhone !== phone) continue;
    const business = await findBusinessById(services.db, booking.businessId);
    if (business) return { booking, business };
  }
  return null;
}

/**
 * lookup_booking: the same tool for the customer-service agent (any business, in text, browser
 * voice and on the phone) and the confirmation agent (its business only, `businessId`).
 */
export function lookupBookingTool(services: AppServices, session: AgentSession, scope: { businessId?: number } = {}): ChatTool {
  return guarded({
    name: LOOKUP_BOOKING,
    description:
      "Look up the caller's existing booking. Needs BOTH the booking reference (six letters and digits like K7M-Q4P, in their booking e-mail and on the booking page; the 'Change or cancel' link from the e-mail also works) and the phone number the booking was made with. Tells nothing unless both match.",
    parameters: {
      type: "object",
      properties: {
        reference: {
          type: "string",
          description: "The booking reference as the caller says or types it (e.g. K7M-Q4P), or the link from the booking e-mail.",
        },
        phone: {
          type: "string",
          description:
            "The phone number the booking was made with, as the caller says it. Leave empty if it is the number they are on now.",
        },
      },
      required: ["reference"],
    },
    async run(args) {
      const said = str(args.reference, 400);
      const spoken = str(args.phone, 40) || session.phone || "";
      const reference = referenceToken(said) ?? parseBookingReference(said) ?? said.toUpperCase();
      const rules = LOOKUP_RULES(session, reference, spoken);
      if (!rules) return LOOKUP_UNAVAILABLE;
      for (const rule of rules) {
        const hit = await hitRateLimit(services.db, rateLimitKey(services.signingSecret, rule), rule);
        if (!hit.allowed) return LOOKUP_LIMITED(Math.ceil(hit.retryAfterSeconds / 60));
      }
      const phone = normalizePhone(spoken, lookupCountry(session));
      const found = await bookingForCaller(services, said, phone.ok ? phone.e164 : null, scope.businessId);
      if (!found) return NO_MATCHING_BOOKING;
      const { booking, business } = found;
      const service = await findService(services.db, business.id, booking.serviceId);
      const past = booking.endsAt.getTime() <= Date.now() ? " This appointment is in the past." : "";
      // Names someone else typed (the booking's customer, the owner) reach the model quoted, as plain one-line text.
      const what = service ? quoted(service.name) : "a service";
      return `Booking found at ${quoted(business.name)}: ${what} on ${localWhen(booking.startsAt, business.timeZone)}, for ${quoted(booking.customerName, 120)}. Status: ${STATUS_WORDS[booking.status]}.${past} Booking reference: ${formatBookingReference(booking.reference)}.`;
    },
  });
}

export function customerServiceTools(services: AppServices, session: AgentSession): ChatTool[] {
  const findBusiness: ChatTool = {
    name: FIND_BUSINESS,
    description:
      "Find a business that takes bookings, by its name (or its booking page address), and list its services with their service_id, duration and price.",
    parameters: {
      type: "object",
      properties: { name: { type: "string", description: "The business's name, or its booking page link." } },
      required: ["name"],
    },
    async run(args) {
      const query = str(args.name, 200);
      const link = /\/book\/([a-z0-9-]+)/i.exec(query)?.[1];
      const found = link ? [await bookableBusiness(services, link)].filter((b): b is Business => b !== null) : [];
      const matches = found.length > 0 ? found : await searchActiveBusinesses(services.db, query, 5);
      if (matches.length === 0) return `No business taking bookings is called '${query}'. Ask the caller for the exact name.`;
      const parts = await Promise.all(
        matches.map(async (business) => {
          const offered = await bookableServices(services, business);
          const today = utcToZoned(Date.now(), business.timeZone).date;
          return [
            `Business '${business.name}' (business: "${business.bookingLink}")${business.address ? `, ${business.address}` : ""}. Its time zone is ${business.timeZone}, where today is ${weekdayOf(today)} ${today}.`,
            offered.length > 0 ? `Services: ${offered.map(serviceLine).join("; ")}.` : "It offers no services to book at the moment.",
          ].join(" ");
        }),
      );
      const more = matches.length > 1 ? `${matches.length} businesses match; ask which one the caller means.\n` : "";
      return `${more}${parts.join("\n")}`;
    },
  };

  const availableTimes: ChatTool = {
    name: AVAILABLE_TIMES,
    description:
      "The free start times of one service at a business on a date (the business's local time), or, without a date, the next days with free times. Bookings are open from today to the end of the business's booking window.",
    parameters: {
      type: "object",
      properties: {
        business: { type: "string", description: "The business value find_business gave." },
        service_id: { type: "integer" },
        date: { type: "string", description: "YYYY-MM-DD in the business's time zone; leave empty for the next free days." },
      },
      required: ["business", "service_id"],
    },
    async run(args) {
      const business = await bookableBusiness(services, str(args.business, 100));
      if (!business) return "Unknown business: use find_business first and pass the business value it gives.";
      const serviceId = parseDbId(args.service_id);
      if (!serviceId) return `Unknown service_id for ${business.name}: use a service_id from find_business.`;
      const date = str(args.date, 20);
      if (!date) {
        const service = await findService(services.db, business.id, serviceId);
        if (!service || !service.active) return `Unknown service_id for ${business.name}: use a service_id from find_business.`;
        const availability = await availabilityFor(services, business, service);
        const freeDays = new Set<string>();
        for (const start of availability.freeStarts()) {
          freeDays.add(utcToZoned(start, business.timeZone).date);
          if (freeDays.size === DAYS_SUGGESTED) break;
        }
        if (freeDays.size === 0)
          return `${business.name} has no free time for ${service.name} in the next ${business.bookingWindowDays} days.`;
        const days = [...freeDays].map((day) => {
          const times = availability
            .day(day)
            .filter((slot) => slot.available)
            .map((slot) => slot.time);
          return `${weekdayOf(day)} ${day}: ${timesText(times)}`;
        });
        return `Next free times for ${service.name} at ${business.name} (${business.timeZone} time):\n${days.join("\n")}`;
      }
      const result = await slotsForDay(services, business, serviceId, date);
      if (result.error === "unknown_service") return `Unknown service_id for ${business.name}: use a service_id from find_business.`;
      if (result.error === "bad_date") return "The date must be a real date written YYYY-MM-DD.";
      if (result.error === "outside_window")
        return `That date is outside the booking window: bookings are open from today to ${business.bookingWindowDays} days ahead.`;
      const free = result.slots!.filter((slot) => slot.available).map((slot) => slot.time);
      if (free.length === 0)
        return `No free times for ${result.service!.name} at ${business.name} on ${weekdayOf(date)} ${date}. Offer another day.`;
      return `Free times for ${result.service!.name} at ${business.name} on ${weekdayOf(date)} ${date} (${business.timeZone} time): ${timesText(free)}.`;
    },
  };

  const bookAppointment: ChatTool = {
    name: BOOK_APPOINTMENT,
    description:
      "Book a free time for the caller, on the phone number of this conversation (never another). Only after the caller agreed to the business, service, date, time and name, and was told the business's AI assistant will phone this number to confirm.",
    parameters: {
      type: "object",
      properties: {
        business: { type: "string", description: "The business value find_business gave." },
        service_id: { type: "integer" },
        date: { type: "string", description: "YYYY-MM-DD in the business's time zone." },
        time: { type: "string", description: "HH:MM, one of the free times available_times gave." },
        customer_name: { type: "string", description: "The caller's name as they want it on the booking." },
        email: { type: "string", description: "Optional: an e-mail address for the confirmation and the link to change or cancel." },
      },
      required: ["business", "service_id", "date", "time"],
    },
    async run(args) {
      if (!session.phone) {
        return "Cannot book here: this conversation has no phone number. Suggest the business's booking page, or starting the web call with a phone number.";
      }
      const business = await bookableBusiness(services, str(args.business, 100));
      if (!business) return "Unknown business: use find_business first and pass the business value it gives.";
      const serviceId = parseDbId(args.service_id);
      const service = serviceId ? await findService(services.db, business.id, serviceId) : null;
      if (!service || !service.active) return `Unknown service_id for ${business.name}: use a service_id from find_business.`;
      const date = str(args.date, 20);
      const minute = parseTimeOfDay(str(args.time, 10));
      if (!isCalendarDate(date) || minute === null || minute >= 1440) {
        return "The date must be YYYY-MM-DD and the time HH:MM, one of the free times available_times gave.";
      }
      const t = await translatorFor("en");
      const contact = contactSchema(t).safeParse({
        name: str(args.customer_name, 200) || session.customerName || "",
        phone: session.phone,
        email: str(args.email, 300),
      });
      if (!contact.success) {
        const problems = contact.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ");
        return `Not booked: ${problems}. Ask the caller and try again.`;
      }
      const phone = normalizeCustomerPhone(contact.data.phone, business);
      if (!phone.ok) return "Not booked: the phone number of this conversation is not a valid number for booking.";
      const origin = session.origin ?? visitorOrigin(services, session.ip, session.sessionKey ?? null);
      for (const rule of BOOKING_LIMITS(services, phone.e164, origin)) {
        const hit = await hitRateLimit(services.db, rule.key, rule);
        if (!hit.allowed)
          return `Not booked: too many bookings from this number or address just now. Try again in ${Math.ceil(hit.retryAfterSeconds / 60)} minutes.`;
      }
      const start = zonedTimeToUtc(date, minute, business.timeZone);
      const result = await placeBooking(services, {
        business,
        service,
        start,
        customer: { name: contact.data.name, phone: phone.e164, email: contact.data.email || null, notes: null },
        language: "ar",
        // The conversation is the client: its key is stored keyed with the app's secret, so no one
        // outside the conversation can write it (storedIdempotencyKey).
        idempotency: session.sessionKey ? { client: `agent ${session.sessionKey}`, key: `${service.id}:${start}` } : null,
        origin: services.publicOrigin(),
        callOrigin: origin,
      });
      if (result.kind === "taken")
        return "Not booked: that time was just taken by someone else. Use available_times again and offer the times still free.";
      if (result.kind === "key_reused")
        return "Not booked: this conversation already asked for this service at this time with other details (another name or e-mail). Nothing new was booked; ask the caller whether the first details stand.";
      if (result.kind === "not_a_slot")
        return "Not booked: that is not a bookable time (outside opening hours, too soon, or outside the booking window). Use available_times and offer one of its times.";
      const { booking } = result;
      const when = localWhen(booking.startsAt, business.timeZone);
      if (result.duplicate)
        return `Already booked in this conversation: ${service.name} at ${business.name} on ${when}, reference ${formatBookingReference(booking.reference)}. Nothing new was booked.`;
      const link =
        session.channel === "text" && result.manageToken
          ? ` Their link to see, change or cancel it: ${services.publicOrigin()}/booking/${result.manageToken}`
          : "";
      return [
        `Booked: ${service.name} at ${business.name} on ${when}, for ${booking.customerName} on ${booking.customerPhone}.`,
        `Booking reference: ${formatBookingReference(booking.reference)} (give it to the caller, in two groups of three; with their phone number it finds the booking later).`,
        "Status: waiting for confirmation; the business's AI assistant will phone this number shortly to confirm.",
        booking.customerEmail ? `A confirmation e-mail with the link to change or cancel goes to ${booking.customerEmail}.` : "",
        link,
      ]
        .filter(Boolean)
        .join(" ")
        .trim();
    },
  };

  return [lookupBookingTool(services, session), ...[findBusiness, availableTimes, bookAppointment].map(guarded)];
}

/** What the model hears when a tool broke (the database, a bug): short, and nothing of the query or its values. */
export const TOOL_FAILED =
  "The booking system could not answer just now (a technical problem). Apologise briefly; suggest trying again in a few minutes or the business's booking page.";

/**
 * A tool whose failure is a short sentence for the model instead of the error's text (a failed
 * query's message carries its SQL and parameters: phone numbers, names); the reason is logged.
 */
function guarded(tool: ChatTool): ChatTool {
  return {
    ...tool,
    async run(args) {
      try {
        return await tool.run(args);
      } catch (error) {
        const cause = (error as { cause?: unknown })?.cause;
        const reason = (cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error)).split("\n")[0];
        log.error({ tool: tool.name }, `Agent tool ${tool.name} failed: ${reason}`);
        return TOOL_FAILED;
      }
    },
  };
}

function timesText(times: string[]) {
  const shown = times.slice(0, TIMES_SHOWN).join(", ");
  return times.length > TIMES_SHOWN ? `${shown} and ${times.length - TIMES_SHOWN} later times` : shown;
}
