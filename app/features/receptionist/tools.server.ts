import { formatBookingReference } from "#models/booking-reference";
import { findBookingsByReference, type Booking } from "#models/bookings";
import { findService } from "#models/business-services";
import type { Business } from "#models/businesses";
import { handOverCall, setCallOutcome, setCallSummary, type Call } from "#models/calls";
import { hitRateLimit } from "#models/rate-limits";
import { announceBusinessChange } from "#models/analytics";
import { originOfCall } from "~/calls/gate.server";
import { allowedCountries, classifyNumber } from "~/calls/dialling-policy.server";
import { escapeXml } from "~/calls/engine.server";
import { availabilityFor, changeBooking, normalizeCustomerPhone, placeBooking, slotsForDay } from "~/features/booking/index.server";
import { parseDbId } from "~/lib/ids";
import { isCalendarDate, parseTimeOfDay } from "~/lib/time";
import { formatWhen } from "~/lib/when";
import { utcToZoned, zonedTimeToUtc } from "~/lib/zoned-time";
import { translatorFor } from "~/platform/i18n.server";
import { log } from "~/platform/observability/log.server";
import { rateLimitKey } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import {
  AVAILABLE_TIMES,
  BOOK_APPOINTMENT,
  CANCEL_BY_REFERENCE,
  endCallTool,
  LANGUAGE_NAMES,
  MOVE_BY_REFERENCE,
  SAVE_SUMMARY,
  TAKE_MESSAGE,
  TRANSFER_TO_OWNER,
  type AgentTool,
} from "~/voice/agents.server";
import { callTexts } from "~/voice/call-texts.server";
import { redact } from "~/voice/crisis.server";
import { quoted } from "~/voice/data-section";
import { takeOwnerMessage } from "./messages.server";
import { isOpenAt, type BusinessNumber } from "./numbers.server";

/**
 * The receptionist's tools (ADR 0041), each bound to the call's business and the caller's own
 * number (the model names neither): free times and a booking through the booking page's own
 * placeBooking (its slot rules, the exclusion constraint), a move or a cancellation of a booking
 * found by its reference only when it was made with the number calling (any mismatch answers as
 * "not found"), through changeBooking (e-mails, calendar), a message for the owner, a transfer to
 * the owner's phone within the hours the owner set, the summary and the end of the call.
 */

/** One answer whether the reference is wrong, belongs to another business or to another phone: it tells nothing. */
export const NO_BOOKING_FOR_CALLER =
  "No booking with that reference was made from the number the caller is calling from. Say you cannot find it, without any detail; offer to take a message for the business, or suggest the link in their booking e-mail or text.";

export const TOO_MANY_LOOKUPS = "Too many booking look-ups from this number just now. Offer to take a message for the business instead.";

/** Seconds a transferred conversation may last (the provider's <Dial timeLimit>); the sweeper leaves it alone that long. */
export const TRANSFER_SECONDS = 3600;

const str = (value: unknown, max = 200) => (typeof value === "string" ? value.replace(/\s+/g, " ").trim().slice(0, max) : "");

const weekdayOf = (localDate: string) =>
  new Date(`${localDate}T12:00:00Z`).toLocaleDateString("en-GB", { weekday: "long", timeZone: "UTC" });

function timesText(times: string[]) {
  const shown = times.slice(0, 16).join(", ");
  return times.length > 16 ? `${shown} and ${times.length - 16} later times` : shown;
}

/** A tool whose failure is a short sentence for the model, never the error's text (SQL, numbers). */
function guarded(tool: AgentTool): AgentTool {
  return {
    ...tool,
    async run(args) {
      try {
        return await tool.run(args);
      } catch (error) {
        log.error({ tool: tool.name }, `Receptionist tool ${tool.name} failed: ${(error as Error).message.split("\n")[0]}`);
        return "The booking system could not answer just now. Apologise briefly and offer to take a message for the business.";
      }
    },
  };
}

export interface ReceptionistContext {
  call: Call;
  business: Business;
  number: BusinessNumber | null;
}

export function receptionistTools(services: AppServices, { call, business, number }: ReceptionistContext): AgentTool[] {
  const caller = call.fromNumber ? normalizeCustomerPhone(call.fromNumber, business) : null;
  const callerPhone = caller?.ok ? caller.e164 : null;
  const outcome = async (value: string) => {
    await setCallOutcome(services.db, call.id, value);
    await announceBusinessChange(services.db, business.id);
  };

  /** The caller's own booking at this business by the reference they said; null for any mismatch. */
  async function callersBooking(said: string): Promise<Booking | "limited" | null> {
    if (!callerPhone) return null;
    for (const rule of [
      { name: "receptionist-lookup:caller", subject: callerPhone, limit: 10, windowSeconds: 3600 },
      { name: "receptionist-lookup:reference", subject: `${business.id}:${said.toUpperCase()}`, limit: 10, windowSeconds: 3600 },
    ]) {
      const hit = await hitRateLimit(services.db, rateLimitKey(services.signingSecret, rule), rule);
      if (!hit.allowed) return "limited";
    }
    const found = await findBookingsByReference(services.db, said, business.id);
    return found.find((booking) => booking.businessId === business.id && booking.customerPhone === callerPhone) ?? null;
  }

  const availableTimes: AgentTool = {
    name: AVAILABLE_TIMES,
    description:
      "The free start times of one of the business's services (service_id from the data section) on a date in the business's local time, or, without a date, the next days with free times.",
    parameters: {
      type: "object",
      properties: {
        service_id: { type: "integer" },
        date: { type: "string", description: "YYYY-MM-DD in the business's time zone; leave empty for the next free days." },
      },
      required: ["service_id"],
    },
    async run(args) {
      const serviceId = parseDbId(args.service_id);
      const service = serviceId ? await findService(services.db, business.id, serviceId) : null;
      if (!service || !service.active) return "Unknown service_id: use one of the service_id values in the data section.";
      const date = str(args.date, 20);
      if (!date) {
        const availability = await availabilityFor(services, business, service);
        const days = new Set<string>();
        for (const start of availability.freeStarts()) {
          days.add(utcToZoned(start, business.timeZone).date);
          if (days.size === 3) break;
        }
        if (days.size === 0) return `No free time for this service in the next ${business.bookingWindowDays} days.`;
        const lines = [...days].map(
          (day) =>
            `${weekdayOf(day)} ${day}: ${timesText(
              availability
                .day(day)
                .filter((slot) => slot.available)
                .map((slot) => slot.time),
            )}`,
        );
        return `Next free times (${business.timeZone} time):\n${lines.join("\n")}`;
      }
      const result = await slotsForDay(services, business, service.id, date);
      if (result.error === "bad_date") return "The date must be a real date written YYYY-MM-DD.";
      if (result.error === "outside_window")
        return `That date is outside the booking window (today to ${business.bookingWindowDays} days ahead).`;
      if (result.error) return "Unknown service_id: use one of the service_id values in the data section.";
      const free = result.slots!.filter((slot) => slot.available).map((slot) => slot.time);
      if (free.length === 0) return `No free times on ${weekdayOf(date)} ${date}. Offer another day.`;
      return `Free times on ${weekdayOf(date)} ${date} (${business.timeZone} time): ${timesText(free)}.`;
    },
  };

  const bookAppointment: AgentTool = {
    name: BOOK_APPOINTMENT,
    description:
      "Book a free time for the caller, on the number they are calling from (never another). Only after they agreed to the service, date, time and the name for the booking.",
    parameters: {
      type: "object",
      properties: {
        service_id: { type: "integer" },
        date: { type: "string", description: "YYYY-MM-DD in the business's time zone." },
        time: { type: "string", description: "HH:MM, one of the free times available_times gave." },
        customer_name: { type: "string", description: "The caller's name as they want it on the booking." },
        email: { type: "string", description: "Optional: an e-mail address for the confirmation." },
      },
      required: ["service_id", "date", "time", "customer_name"],
    },
    async run(args) {
      if (!callerPhone) return "Cannot book on this call: the caller's number is hidden or not valid. Offer to take a message instead.";
      const serviceId = parseDbId(args.service_id);
      const service = serviceId ? await findService(services.db, business.id, serviceId) : null;
      if (!service || !service.active) return "Unknown service_id: use one of the service_id values in the data section.";
      const date = str(args.date, 20);
      const minute = parseTimeOfDay(str(args.time, 10));
      if (!isCalendarDate(date) || minute === null || minute >= 1440)
        return "The date must be YYYY-MM-DD and the time HH:MM, one of the free times available_times gave.";
      const name = str(args.customer_name, 120);
      if (!name) return "Not booked: ask the caller for the name to put on the booking.";
      const email = str(args.email, 254);
      const validEmail = /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) ? email : null;
      const start = zonedTimeToUtc(date, minute, business.timeZone);
      const result = await placeBooking(services, {
        business,
        service,
        start,
        customer: { name, phone: callerPhone, email: validEmail, notes: null },
        language: call.language,
        idempotency: { client: `agent receptionist-call-${call.id}`, key: `${service.id}:${start}` },
        origin: services.publicOrigin(),
        callOrigin: originOfCall(call),
        // The caller agreed to it on this call: it is made confirmed, with no confirmation call to
        // ring them back, and its details and manage link are texted to this number.
        agreedOnCall: true,
      });
      if (result.kind === "taken") return "Not booked: that time was just taken. Use available_times again and offer the times still free.";
      if (result.kind === "not_a_slot") return "Not booked: that is not a bookable time. Use available_times and offer one of its times.";
      if (result.kind === "key_reused")
        return "Not booked: this call already asked for this time with other details. Ask whether the first details stand.";
      const { booking } = result;
      const when = formatWhen(booking.startsAt, business.timeZone, "en-GB", "dateTime");
      await outcome("booked");
      return [
        `Booked and confirmed: ${quoted(service.name)} on ${when} (${business.timeZone} time), for ${quoted(booking.customerName, 120)}.`,
        `Booking reference: ${formatBookingReference(booking.reference)} (say it in two groups of three).`,
        "Tell the caller the details and the link to change or cancel come by text message to this number",
        booking.customerEmail ? "and by e-mail." : ".",
      ].join(" ");
    },
  };

  const moveByReference: AgentTool = {
    name: MOVE_BY_REFERENCE,
    description:
      "Move the caller's booking, found by its reference (six letters and digits like K7M-Q4P), to a free time of the same service. Works only for a booking made with the number the caller is calling from.",
    parameters: {
      type: "object",
      properties: {
        reference: { type: "string" },
        date: { type: "string", description: "YYYY-MM-DD in the business's time zone." },
        time: { type: "string", description: "HH:MM." },
      },
      required: ["reference", "date", "time"],
    },
    async run(args) {
      const found = await callersBooking(str(args.reference, 40));
      if (found === "limited") return TOO_MANY_LOOKUPS;
      if (!found || found.status === "cancelled" || found.endsAt.getTime() <= Date.now()) return NO_BOOKING_FOR_CALLER;
      const date = str(args.date, 20);
      const minute = parseTimeOfDay(str(args.time, 10));
      if (!isCalendarDate(date) || minute === null || minute >= 1440) return "The new date must be YYYY-MM-DD and the time HH:MM.";
      const service = await findService(services.db, business.id, found.serviceId);
      if (!service) return NO_BOOKING_FOR_CALLER;
      const start = zonedTimeToUtc(date, minute, business.timeZone);
      const availability = await availabilityFor(services, business, service);
      if (!availability.freeStarts().includes(start))
        return "Not moved: that time is not free. Use available_times with this service and offer a free time.";
      const moved = await changeBooking(
        services,
        { booking: found, business, by: "customer" },
        // Agreed on this call: confirmed at the new time, with no confirmation call to follow.
        { kind: "moved", start: new Date(start), end: new Date(start + service.durationMinutes * 60_000), agreedOnCall: true },
      );
      if (moved.kind === "taken") return "Not moved: that time was just taken. Offer another free time.";
      if (moved.kind === "unchanged") return "This booking can no longer be changed by phone. Offer to take a message for the business.";
      await outcome("moved");
      return `Moved: the booking is now on ${formatWhen(start, business.timeZone, "en-GB", "dateTime")} (${business.timeZone} time). The customer is told by e-mail if they gave one.`;
    },
  };

  const cancelByReference: AgentTool = {
    name: CANCEL_BY_REFERENCE,
    description:
      "Cancel the caller's booking, found by its reference (six letters and digits like K7M-Q4P), once they confirmed they want it cancelled. Works only for a booking made with the number the caller is calling from.",
    parameters: { type: "object", properties: { reference: { type: "string" } }, required: ["reference"] },
    async run(args) {
      const found = await callersBooking(str(args.reference, 40));
      if (found === "limited") return TOO_MANY_LOOKUPS;
      if (!found || found.status === "cancelled" || found.endsAt.getTime() <= Date.now()) return NO_BOOKING_FOR_CALLER;
      const cancelled = await changeBooking(services, { booking: found, business, by: "customer" }, { kind: "cancelled" });
      if (cancelled.kind !== "changed") return "This booking can no longer be changed by phone. Offer to take a message for the business.";
      await outcome("cancelled");
      return "Cancelled. Tell the caller it is cancelled.";
    },
  };

  const takeMessage: AgentTool = {
    name: TAKE_MESSAGE,
    description:
      "Take a message for the business owner when the caller wants a person, or when you cannot help. Ask for their name and what the message is first.",
    parameters: {
      type: "object",
      properties: { caller_name: { type: "string" }, message: { type: "string" } },
      required: ["message"],
    },
    async run(args) {
      const message = str(args.message, 1000);
      if (!message) return "Nothing taken: ask the caller what the message is.";
      await takeOwnerMessage(services, {
        business,
        callId: call.id,
        fromNumber: call.fromNumber,
        callerName: str(args.caller_name, 120) || null,
        body: message,
      });
      await outcome("message");
      return "The message is taken; the owner gets it by e-mail. Tell the caller, then ask if there is anything else.";
    },
  };

  const transferToOwner: AgentTool = {
    name: TRANSFER_TO_OWNER,
    description: "Put the caller through to a person at the business, when they ask for one or when you cannot help.",
    parameters: { type: "object", properties: { reason: { type: "string" } }, required: [] },
    async run() {
      // The owner's phone is dialled like any number: the dialling policy's countries and number
      // types hold for it too (no premium or unroutable range, whatever the settings say).
      const screened = number?.transferNumber
        ? classifyNumber(number.transferNumber, allowedCountries(services.env.CALL_COUNTRIES, business.callCountries))
        : null;
      const to = screened?.ok ? screened.e164 : null;
      const open = to && number?.transferWithinHours ? await isOpenAt(services.db, business) : true;
      if (!to || !open || !call.providerCallId) {
        return "Nobody can take the call now. Offer to take a message for the owner with take_message (ask for their name and the message).";
      }
      const texts = callTexts(business.defaultLanguage);
      const t = await translatorFor(business.defaultLanguage);
      const dialled = `${services.publicOrigin()}/webhooks/twilio/voice/inbound/dialled`;
      const twiml = `<?xml version="1.0" encoding="UTF-8"?><Response><Say language="${escapeXml(texts.say.language)}" voice="${escapeXml(texts.say.voice)}">${escapeXml(t("receptionist.connecting"))}</Say><Dial action="${escapeXml(dialled)}" method="POST" timeout="20" timeLimit="${TRANSFER_SECONDS}">${escapeXml(to)}</Dial></Response>`;
      await services.telephony.redirectCall(call.providerCallId, twiml);
      // The sweeper must not take the call, carried by the provider now, for one whose bridge died.
      await handOverCall(services.db, call.id, TRANSFER_SECONDS);
      await outcome("transferred");
      return "The caller is being put through now.";
    },
  };

  // The owner reads the summary in the business's own language, whatever the caller spoke.
  const ownerLanguage = LANGUAGE_NAMES[business.defaultLanguage] ?? "English";
  const saveSummary: AgentTool = {
    name: SAVE_SUMMARY,
    description: `Save, once, before your goodbye, a summary of this call for the business owner: one or two short sentences in ${ownerLanguage}. No phone numbers or e-mails.`,
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    async run(args) {
      const summary = redact(str(args.summary, 600));
      if (!summary) return "Nothing saved.";
      await setCallSummary(services.db, call.id, summary);
      return "Saved. Now say goodbye.";
    },
  };

  return [
    ...[availableTimes, bookAppointment, moveByReference, cancelByReference, takeMessage, transferToOwner, saveSummary].map(guarded),
    endCallTool,
  ];
}
