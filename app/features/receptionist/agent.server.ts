import { findBusinessById } from "#models/businesses";
import type { Call } from "#models/calls";
import { getWeeklySchedule } from "#models/opening-hours";
import { bookableServices } from "~/features/booking/index.server";
import { formatMoney } from "~/lib/money";
import { utcToZoned } from "~/lib/zoned-time";
import type { AppServices } from "~/platform/services.server";
import { endCallTool, LANGUAGE_NAMES, type Agent } from "~/voice/agents.server";
import { dataSection } from "~/voice/data-section";
import { numberOfBusiness } from "./numbers.server";
import { receptionistTools } from "./tools.server";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"] as const;
const hhmm = (minute: number) => `${String(Math.floor(minute / 60)).padStart(2, "0")}:${String(minute % 60).padStart(2, "0")}`;

/**
 * The AI receptionist answering the business's own number (ADR 0041): it says first that it is an
 * AI and whose line this is, in the business's language, and changes to the caller's (any of the
 * six) when they speak it or ask. What it knows of the business (name, address, services with
 * prices and durations, opening hours) is data, in the data section, never instructions.
 */
export async function receptionistAgent(services: AppServices, call: Call): Promise<Agent> {
  const business = call.businessId ? await findBusinessById(services.db, call.businessId) : null;
  const language = LANGUAGE_NAMES[call.language] ?? "English";
  if (!business) {
    return {
      voice: call.voice,
      instructions: `You are an AI receptionist. This line is no longer connected to a business. In ${language}, apologise briefly, say goodbye and use end_call.`,
      greeting: `In ${language}: say you are an AI assistant, that this line is no longer in use, and goodbye.`,
      tools: [endCallTool],
    };
  }
  const [offered, schedule, number] = await Promise.all([
    bookableServices(services, business),
    getWeeklySchedule(services.db, business.id),
    numberOfBusiness(services.db, business.id),
  ]);
  const now = utcToZoned(Date.now(), business.timeZone);
  const data = dataSection(call.language, {
    business_name: business.name,
    business_address: business.address,
    services: offered.map(
      (service) =>
        `service_id ${service.id}: ${service.name}, ${service.durationMinutes} min, ${
          service.priceCents === 0 ? "free" : formatMoney(service.priceCents, service.currency, "en")
        }`,
    ),
    opening_hours: WEEKDAYS.map((day, index) => {
      const intervals = schedule[index as keyof typeof schedule];
      return `${day}: ${intervals.length ? intervals.map((i) => `${hhmm(i.startMinute)}-${hhmm(i.endMinute)}`).join(", ") : "closed"}`;
    }),
    now: `${WEEKDAYS[now.weekday]} ${now.date} ${hhmm(now.minuteOfDay)} (${business.timeZone} time)`,
  });
  return {
    voice: call.voice,
    speed: business.voiceSpeed,
    instructions: [
      `You are the AI receptionist answering the phone for the business named in the data section below (business_name). Speak ${language}. If the caller speaks English, Arabic, Spanish, French, German or Italian, or asks for one of them, change to that language for the rest of the call.`,
      "You are an AI assistant and you say so. Be brief, warm and clear; this is a phone call.",
      "Answer questions about the services, their prices and durations, the opening hours and the address only from the data section. If the answer is not there, say you do not know and offer to take a message for the business.",
      "To book: use available_times for the service (its service_id), agree a free time and the name for the booking, then use book_appointment. The booking is for the number they are calling from. Give them the booking reference it returns.",
      "To move or cancel a booking: ask for its reference (six letters and digits from their booking e-mail or text) and use move_booking_by_reference or cancel_booking_by_reference. These work only for bookings made with the number they are calling from; if nothing is found, say so without any detail, never guess, and offer to take a message.",
      "If the caller asks for a person, or you cannot help, use transfer_to_owner; if it says nobody can take the call, take a message with take_message (their name and the message).",
      "Before your goodbye, use save_summary once, then use end_call.",
      data,
    ].join("\n"),
    greeting: `In ${language}: say you are the AI assistant answering for the business named in the data section below (business_name), and ask how you can help.\n${data}`,
    tools: receptionistTools(services, { call, business, number }),
  };
}
