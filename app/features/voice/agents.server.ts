import { announceBusinessChange } from "#models/analytics";
import { findBooking, setBookingStatus } from "#models/bookings";
import { findService } from "#models/business-services";
import { findBusinessById } from "#models/businesses";
import { optOut, setCallOutcome, setCallSummary, type Call } from "#models/calls";
import { findSupportCall, setSupportCallSummary } from "#models/subscribers";
import { redact } from "~/features/voice/crisis.server";
import { callLanguages } from "~/lib/languages";
import { callTexts } from "~/features/voice/call-texts.server";
import type { AppServices } from "~/platform/services.server";
import { customerServiceTools, lookupBookingTool, type AgentSession } from "~/features/agent/tools.server";
import { formatBookingReference } from "#models/booking-reference";

export interface AgentTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  /** Runs the tool; the string goes back to the model as the function output. */
  run(args: Record<string, unknown>): Promise<string>;
}

export interface Agent {
  instructions: string;
  voice: string;
  /** What the agent says first. */
  greeting: string;
  /** Speaking speed (1 is normal); the realtime model speaks 0.25-1.5 times normal. */
  speed?: number;
  tools: AgentTool[];
}

const LANGUAGE_NAMES: Record<string, string> = { en: "English", ar: "Arabic", es: "Spanish", fr: "French", de: "German", it: "Italian" };

/** end_call is every agent's: the bridge hangs up once the goodbye has been heard. */
export const END_CALL = "end_call";
const endCallTool: AgentTool = {
  name: END_CALL,
  description: "Hang up after you have said goodbye. Never use it while the caller is in distress or still talking.",
  parameters: { type: "object", properties: { reason: { type: "string" } }, required: [] },
  run: async () => "The call will end after your last words have played.",
};

export async function agentFor(services: AppServices, call: Call): Promise<Agent> {
  switch (call.purpose) {
    case "empathy":
      return empathyAgent(call, services.env.RECORD_CALLS);
    case "support":
      return subscriberAgent(services, call);
    case "booking_confirmation":
    case "demo":
      return bookingAgent(services, call);
    case "customer_service":
    case "test":
      // Calls to the caller's number: the booking tools book for the number that answered.
      return customerServiceAgent(services, { voice: call.voice, phone: call.toNumber, sessionKey: `call-${call.id}` });
  }
}

/** The warm listener of the paid empathy call. */
export function empathyAgent(call: Pick<Call, "language" | "voice">, recording: boolean): Agent {
  const entry = callLanguages.find((l) => l.code === call.language) ?? callLanguages[0];
  const female = call.voice !== entry.maleVoice;
  const name = female ? entry.femaleCompanion : entry.maleCompanion;
  const language = LANGUAGE_NAMES[entry.code] ?? "English";
  return {
    voice: female ? entry.femaleVoice : entry.maleVoice,
    instructions: [
      `You are ${name}, Sakina's AI listener, on a phone call. Speak only ${language}, warmly and simply, in short turns.`,
      "Listen without judgement, reflect feelings back, validate, ask gentle open questions. Let the caller lead.",
      "You give no medical, legal or financial advice and no diagnosis, and you are not a crisis service or a therapist; if asked, say so kindly.",
      "If the caller mentions wanting to die, suicide or self-harm, the system will give you a fixed safety message to read: read it word for word, stay with the caller, never end the call on them.",
      "The call lasts at most 10 minutes. When the system says one minute is left, tell the caller gently and start to close.",
      "Use end_call only after a goodbye the caller has returned.",
    ].join("\n"),
    greeting: `Greet the caller in ${language}: say you are ${name}, an AI listener from Sakina, not a person, ${recording ? "that the call is recorded for quality" : "that the call may be transcribed, anonymised, for quality"}, and ask how they are feeling today. Two short sentences.`,
    tools: [endCallTool],
  };
}

/**
 * The same listener for a subscriber's call, who can read a short summary of it on their
 * dashboard afterwards (and delete it): the agent writes it before the goodbye.
 */
export function subscriberAgent(services: AppServices, call: Call): Agent {
  const base = empathyAgent(call, services.env.RECORD_CALLS);
  const saveSummary: AgentTool = {
    name: "save_summary",
    description:
      "Save, once, before your goodbye, a summary of this call for the caller to read later: two or three short sentences in the caller's language, in the second person, about what they talked about and anything they wanted to remember. No names, phone numbers, addresses or e-mails.",
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    run: async (args) => {
      const summary = typeof args.summary === "string" ? redact(args.summary.replace(/\s+/g, " ").trim()).slice(0, 600) : "";
      if (!summary || !call.supportCallId) return "Nothing saved.";
      const support = await findSupportCall(services.db, call.supportCallId);
      if (support) await setSupportCallSummary(services.db, support.subscriberId, support.id, summary);
      return "Saved. Now say goodbye.";
    },
  };
  return {
    ...base,
    instructions: `${base.instructions}\nThis caller subscribes to regular calls. Before your goodbye, use save_summary once.`,
    tools: [saveSummary, endCallTool],
  };
}

/** Confirms a booking on the business's behalf; also the free demo of the same agent. */
async function bookingAgent(services: AppServices, call: Call): Promise<Agent> {
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
  const record = async (outcome: string, status: Parameters<typeof setBookingStatus>[2]) => {
    await setBookingStatus(services.db, booking.id, status, outcome);
    await setCallOutcome(services.db, call.id, outcome);
    await announceBusinessChange(services.db, business.id);
  };
  // The owner reads the summary in the business's own language, whatever the customer spoke.
  const ownerLanguage = LANGUAGE_NAMES[business.defaultLanguage] ?? "English";
  const saveSummary: AgentTool = {
    name: "save_summary",
    description: `Save, once, before your goodbye, a summary of this call for the business owner: one or two short sentences in ${ownerLanguage}, about what the customer decided and anything they asked for. No phone numbers or e-mails.`,
    parameters: { type: "object", properties: { summary: { type: "string" } }, required: ["summary"] },
    run: async (args) => {
      const summary = typeof args.summary === "string" ? redact(args.summary.replace(/\s+/g, " ").trim()).slice(0, 600) : "";
      if (!summary) return "Nothing saved.";
      await setCallSummary(services.db, call.id, summary);
      return "Saved. Now say goodbye.";
    },
  };
  return {
    voice: call.voice,
    speed: business.voiceSpeed,
    instructions: [
      `You are the AI assistant of ${business.name}, calling ${booking.customerName} in ${language} about their booking: ${service.name} on ${when}.`,
      "Say you are an AI assistant. Ask them to confirm, cancel, or ask for another time, and record their answer with the matching tool before saying goodbye.",
      "If they ask not to be called again, use do_not_call. Before your goodbye, use save_summary once. Be brief and polite; then use end_call.",
      `This booking's reference is ${formatBookingReference(booking.reference)}. If they ask about another booking at ${business.name}, ask for its reference and the phone number it was made with, and use lookup_booking; if it finds nothing, say so without any detail.`,
    ].join("\n"),
    greeting: `In ${language}: greet ${booking.customerName}, say you are the AI assistant of ${business.name} calling to confirm ${service.name} on ${when}, and ask if that still works.`,
    tools: [
      {
        name: "confirm_booking",
        description: "The customer confirms the appointment.",
        parameters: { type: "object", properties: {}, required: [] },
        run: async () => (await record("confirmed", "confirmed"), "Booking confirmed."),
      },
      {
        name: "cancel_booking",
        description: "The customer cancels the appointment.",
        parameters: { type: "object", properties: { reason: { type: "string" } }, required: [] },
        run: async () => (await record("cancelled", "cancelled"), "Booking cancelled; the time is free again."),
      },
      {
        name: "request_reschedule",
        description: "The customer wants another time; note what they prefer.",
        parameters: { type: "object", properties: { preferred: { type: "string" } }, required: [] },
        run: async (args) => {
          // The owner sees what the customer asked for, so they can offer that time.
          const preferred = typeof args.preferred === "string" ? args.preferred.replace(/\s+/g, " ").trim().slice(0, 200) : "";
          await record(preferred ? `reschedule requested: ${preferred}` : "reschedule requested", "reschedule_requested");
          return "The business will contact them with a new time.";
        },
      },
      {
        name: "do_not_call",
        description: "The customer asks not to be called again by this business.",
        parameters: { type: "object", properties: {}, required: [] },
        run: async () => {
          await optOut(services.db, business.id, booking.customerPhone);
          await setCallOutcome(services.db, call.id, "do not call");
          await announceBusinessChange(services.db, business.id);
          return "Noted: this number will not be called again.";
        },
      },
      // Another booking of this business only, by its reference and phone number (the number called by default).
      lookupBookingTool(
        services,
        { phone: call.toNumber ?? booking.customerPhone, sessionKey: `call-${call.id}`, channel: "voice" },
        { businessId: business.id },
      ),
      saveSummary,
      endCallTool,
    ],
  };
}

/** What the Saudi customer-service agent is told, on the phone and in the browser alike. */
export const CUSTOMER_SERVICE_INSTRUCTIONS = [
  "أنت موظف خدمة عملاء ذكي من سكينة، تتحدث باللهجة السعودية بلطف واختصار.",
  "تساعد في المواعيد والاستفسارات عن خدمات سكينة، وتوضح أنك مساعد ذكي ولست إنساناً.",
  "لا تقدم نصائح طبية. إذا ذكر المتصل إيذاء نفسه أو الانتحار، سيعطيك النظام نصاً ثابتاً للسلامة فاقرأه كما هو.",
  "عندك أدوات للمواعيد، ولا تذكر أي حجز أو وقت متاح أو سعر أو خدمة إلا من نتيجة أداة؛ لا تخترع شيئاً.",
  "إذا سأل العميل عن حجز سابق: اطلب منه رقم الحجز المرجعي، وهو ستة حروف وأرقام إنجليزية مثل K7M-Q4P في إيميل تأكيد الحجز وصفحة الحجز (ويصلح بداله رابط «تغيير أو إلغاء الحجز»)، ورقم الجوال اللي حجز فيه، ثم استخدم lookup_booking. لا تعطي أي تفاصيل إذا قالت الأداة إنه ما فيه تطابق، واطلب منه يتأكد من الاثنين.",
  "إذا يبغى يحجز موعد: استخدم find_business باسم المحل أو النشاط، ثم اسأله عن الخدمة واليوم، واستخدم available_times واعرض عليه أوقاتاً قليلة منها.",
  "قبل الحجز أكّد معه المحل والخدمة والتاريخ والوقت واسمه، وقل له إن المساعد الذكي للمحل بيتصل على رقمه عشان يأكد الموعد، وبعد موافقته استخدم book_appointment. الحجز دائماً على رقم الجوال اللي يتواصل منه، لا تحجز على رقم ثاني. بعد الحجز أعطه رقم الحجز المرجعي، حرفاً حرفاً على مجموعتين من ثلاثة.",
  "التواريخ للأدوات بصيغة YYYY-MM-DD والأوقات HH:MM بتوقيت المحل. إذا قالت الأداة إن الوقت انحجز أو غير متاح، اعتذر واعرض الأوقات المتاحة.",
].join("\n");

export interface CustomerServiceSession {
  /** The realtime voice the agent speaks with. */
  voice: string;
  /** The caller's number (E.164): the one the booking tools book for; null when unknown. */
  phone: string | null;
  customerName?: string | null;
  /** The visitor's address, for a session from the browser (the booking limits count it). */
  ip?: string | null;
  /** Identifies the conversation (a repeated booking in it is made once), e.g. `call-12`. */
  sessionKey?: string | null;
}

/**
 * The Saudi-dialect customer-service agent of "call me now", the phone test call and the
 * browser's realtime voice session: the shared instructions, the booking tools, and end_call.
 */
export function customerServiceAgent(services: AppServices, session: CustomerServiceSession): Agent {
  const tools: AgentTool[] = customerServiceTools(services, { ...session, channel: "voice" } satisfies AgentSession);
  return {
    voice: session.voice,
    instructions: `${CUSTOMER_SERVICE_INSTRUCTIONS}\nأنت في مكالمة صوتية: لا تقرأ الروابط بصوت. إذا انتهى الحديث ودّع المتصل ثم استخدم end_call.`,
    greeting: "رحّب بالمتصل باللهجة السعودية: عرّف بنفسك كمساعد ذكي من سكينة واسأله كيف تقدر تخدمه.",
    tools: [...tools, endCallTool],
  };
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
