import { formatBookingReference } from "#models/booking-reference";
import { announceBusinessChange } from "#models/analytics";
import { findBooking, setBookingCallOutcome, type Booking } from "#models/bookings";
import { changeBooking, type BookingChangeRequest } from "./booking-change.server";
import { findService } from "#models/business-services";
import { findBusinessById, type Business } from "#models/businesses";
import { optOut, setCallOutcome, setCallSummary, type Call } from "#models/calls";
import type { AppServices } from "~/platform/services.server";
import {
  CANCEL_BOOKING,
  CONFIRM_BOOKING,
  DO_NOT_CALL,
  endCallTool,
  LANGUAGE_NAMES,
  REQUEST_RESCHEDULE,
  SAVE_SUMMARY,
  type Agent,
  type AgentTool,
} from "~/voice/agents.server";
import { callTexts } from "~/voice/call-texts.server";
import { redact } from "~/voice/crisis.server";
import { dataSection } from "~/voice/data-section";

/** Confirms a booking on the business's behalf; also the free demo of the same agent. */
export async function bookingAgent(services: AppServices, call: Call): Promise<Agent> {
  const language = LANGUAGE_NAMES[call.language] ?? "English";
  const booking = call.bookingId ? await findBooking(services.db, call.bookingId) : null;
  const business = booking ? await findBusinessById(services.db, booking.businessId) : null;
  const service = booking && business ? await findService(services.db, business.id, booking.serviceId) : null;
  if (!booking || !business || !service) {
    return {
      voice: call.voice,
      instructions: `You are Sakina's AI appointment assistant giving a short demo call in ${language}. Pretend to confirm a haircut tomorrow at 10:00 for "Sakina Demo Salon". Keep it under one minute, then say goodbye and use end_call.`,
      greeting: `Say in ${language}: this is a free demo call from Sakina, the AI appointment assistant, and ask whether they'd like to hear how a booking confirmation sounds.`,
      tools: [endCallTool],
    };
  }
  const when = booking.startsAt.toLocaleString(call.language, { timeZone: business.timeZone, dateStyle: "full", timeStyle: "short" });
  const data = dataSection(call.language, {
    customer_name: booking.customerName,
    business_name: business.name,
    service: service.name,
    appointment: when,
  });
  return {
    voice: call.voice,
    speed: business.voiceSpeed,
    instructions: [
      `You are the AI assistant of the business named in the data section below (business_name), calling the customer named there (customer_name) in ${language} about their booking: the service and appointment given there.`,
      "Say you are an AI assistant. Ask them to confirm, cancel, or ask for another time, and record their answer with the matching tool before saying goodbye.",
      "If they ask not to be called again, use do_not_call. Before your goodbye, use save_summary once. Be brief and polite; then use end_call.",
      `If they ask for this booking's reference, it is ${formatBookingReference(booking.reference)}; say it character by character, in two groups of three.`,
      data,
    ].join("\n"),
    greeting: `In ${language}: greet the customer by the name in the data section below (customer_name), say you are the AI assistant of the business named there (business_name) calling to confirm the service there on its appointment, and ask if that still works.\n${data}`,
    tools: bookingTools(services, call, { booking, business }, { recordOnBooking: true }),
  };
}

/**
 * The reminder call a chosen number of hours before the appointment (reminders.server.ts): the
 * confirmation agent's voice and the booking's language, reminding the customer of the business,
 * service and time; they may say they will come, ask to cancel or for another time, or not to be
 * called again. What they say goes on the call (the owner's card shows it) and changes the
 * booking's status, not the confirmation call's record.
 */
export async function reminderAgent(services: AppServices, call: Call): Promise<Agent> {
  const language = LANGUAGE_NAMES[call.language] ?? "English";
  const booking = call.bookingId ? await findBooking(services.db, call.bookingId) : null;
  const business = booking ? await findBusinessById(services.db, booking.businessId) : null;
  const service = booking && business ? await findService(services.db, business.id, booking.serviceId) : null;
  if (!booking || !business) {
    return {
      voice: call.voice,
      instructions: `You are an AI appointment assistant. The booking this reminder was for is gone. In ${language}, apologise briefly, say goodbye and use end_call.`,
      greeting: `In ${language}: apologise briefly for the call, say goodbye.`,
      tools: [endCallTool],
    };
  }
  const when = booking.startsAt.toLocaleString(call.language, { timeZone: business.timeZone, dateStyle: "full", timeStyle: "short" });
  const data = dataSection(call.language, {
    customer_name: booking.customerName,
    business_name: business.name,
    service: service?.name,
    appointment: when,
    business_address: business.address,
  });
  return {
    voice: call.voice,
    speed: business.voiceSpeed,
    instructions: [
      `You are the AI assistant of the business named in the data section below (business_name), calling the customer named there (customer_name) in ${language} to remind them of their appointment: the service (if given) and appointment given there.`,
      business.address ? "If they ask where it is, the address is business_address in the data section." : "",
      "Say you are an AI assistant. Remind them of the appointment and ask whether they will come.",
      "If they say they will come, use confirm_booking. If they cannot come, offer to cancel (cancel_booking) or to ask for another time (request_reschedule), as they prefer.",
      "If they ask not to be called again, use do_not_call. Before your goodbye, use save_summary once. Be brief and polite; then use end_call.",
      `If they ask for this booking's reference, it is ${formatBookingReference(booking.reference)}; say it character by character, in two groups of three.`,
      data,
    ]
      .filter(Boolean)
      .join("\n"),
    greeting: `In ${language}: greet the customer by the name in the data section below (customer_name), say you are the AI assistant of the business named there (business_name) with a reminder of the appointment there, and ask whether they will come.\n${data}`,
    tools: bookingTools(services, call, { booking, business }, { recordOnBooking: false }),
  };
}

/**
 * What a booking call can record: the customer confirms (or says they will come), cancels, asks
 * for another time, or asks not to be called again; the summary for the owner; the end of the call.
 * `recordOnBooking`: the outcome is also the booking's call outcome (the confirmation call's).
 */
function bookingTools(
  services: AppServices,
  call: Call,
  { booking, business }: { booking: Booking; business: Business },
  { recordOnBooking }: { recordOnBooking: boolean },
): AgentTool[] {
  /**
   * What the customer said, as the customer's change of the booking (changeBooking, as on their
   * manage page: both sides e-mailed, the calendar file and the owner's calendar updated), and the
   * outcome on the call (and on the booking, for the confirmation call's record).
   */
  const record = async (outcome: string, change: BookingChangeRequest) => {
    const current = await findBooking(services.db, booking.id);
    if (current) await changeBooking(services, { booking: current, business, by: "customer" }, change);
    if (recordOnBooking) await setBookingCallOutcome(services.db, booking.id, outcome);
    await setCallOutcome(services.db, call.id, outcome);
    await announceBusinessChange(services.db, business.id);
  };
  // The owner reads the summary in the business's own language, whatever the customer spoke.
  const ownerLanguage = LANGUAGE_NAMES[business.defaultLanguage] ?? "English";
  const saveSummary: AgentTool = {
    name: SAVE_SUMMARY,
    description: `Save, once, before your goodbye, a summary of this call for the business owner: one or two short sentences in ${ownerLanguage}, about what the customer decided and anything they asked for. No phone numbers or e-mails.`,
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    run: async (args) => {
      const summary = typeof args.summary === "string" ? redact(args.summary.replace(/\s+/g, " ").trim()).slice(0, 600) : "";
      if (!summary) return "Nothing saved.";
      await setCallSummary(services.db, call.id, summary);
      return "Saved. Now say goodbye.";
    },
  };
  return [
    {
      name: CONFIRM_BOOKING,
      description: "The customer confirms the appointment (they will come).",
      parameters: { type: "object", properties: {}, required: [] },
      run: async () => (await record("confirmed", { kind: "confirmed" }), "Booking confirmed."),
    },
    {
      name: CANCEL_BOOKING,
      description: "The customer cancels the appointment.",
      parameters: { type: "object", properties: { reason: { type: "string" } }, required: [] },
      run: async () => (await record("cancelled", { kind: "cancelled" }), "Booking cancelled; the time is free again."),
    },
    {
      name: REQUEST_RESCHEDULE,
      description: "The customer wants another time; note what they prefer.",
      parameters: { type: "object", properties: { preferred: { type: "string" } }, required: [] },
      run: async (args) => {
        // The owner sees what the customer asked for, so they can offer that time.
        const preferred = typeof args.preferred === "string" ? args.preferred.replace(/\s+/g, " ").trim().slice(0, 200) : "";
        await record(preferred ? `reschedule requested: ${preferred}` : "reschedule requested", {
          kind: "reschedule_requested",
          preferred,
        });
        return "The business will contact them with a new time.";
      },
    },
    {
      name: DO_NOT_CALL,
      description: "The customer asks not to be called again by this business.",
      parameters: { type: "object", properties: {}, required: [] },
      run: async () => {
        await optOut(services.db, business.id, booking.customerPhone);
        await setCallOutcome(services.db, call.id, "do not call");
        await announceBusinessChange(services.db, business.id);
        return "Noted: this number will not be called again.";
      },
    },
    saveSummary,
    endCallTool,
  ];
}

/** The voicemail a confirmation call leaves when a machine answers, in the call's language. */
export async function voicemailFor(services: AppServices, call: Call) {
  const booking = call.bookingId ? await findBooking(services.db, call.bookingId) : null;
  const business = booking ? await findBusinessById(services.db, booking.businessId) : null;
  const texts = callTexts(call.language);
  const text =
    booking && business
      ? texts.voicemail(
          business.name,
          booking.startsAt.toLocaleString(call.language, { timeZone: business.timeZone, dateStyle: "full", timeStyle: "short" }),
        )
      : texts.voicemailWithoutBooking;
  return { ...texts.say, text };
}

/** The voicemail a reminder call leaves when a machine answers, in the call's language. */
export async function reminderVoicemailFor(services: AppServices, call: Call) {
  const booking = call.bookingId ? await findBooking(services.db, call.bookingId) : null;
  const business = booking ? await findBusinessById(services.db, booking.businessId) : null;
  const texts = callTexts(call.language);
  const text =
    booking && business
      ? texts.reminderVoicemail(
          business.name,
          booking.startsAt.toLocaleString(call.language, { timeZone: business.timeZone, dateStyle: "full", timeStyle: "short" }),
        )
      : texts.voicemailWithoutBooking;
  return { ...texts.say, text };
}
