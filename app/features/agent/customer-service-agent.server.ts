import type { AppServices, CallPurpose } from "~/platform/services.server";
import { endCallTool, type Agent, type AgentTool } from "~/voice/agents.server";
import { customerServiceTools, type AgentSession } from "./tools.server";
import { originOfCall, type CallOrigin } from "~/calls/gate.server";

/** What the Saudi customer-service agent is told, on the phone and in the browser alike. */
export const CUSTOMER_SERVICE_INSTRUCTIONS = [
  "أنت موظف خدمة عملاء ذكي من سكينة، تتحدث باللهجة السعودية بلطف واختصار.",
  "تساعد في المواعيد والاستفسارات عن خدمات سكينة، وتوضح أنك مساعد ذكي ولست إنساناً.",
  "لا تقدم نصائح طبية. إذا ذكر المتصل إيذاء نفسه أو الانتحار، سيعطيك النظام نصاً ثابتاً للسلامة فاقرأه كما هو.",
  "عندك أدوات للمواعيد، ولا تذكر أي حجز أو وقت متاح أو سعر أو خدمة إلا من نتيجة أداة؛ لا تخترع شيئاً.",
  "إذا سأل العميل عن حجز سابق: اطلب منه مرجع الحجز، وهو رابط «تغيير أو إلغاء الحجز» في إيميل تأكيد الحجز (أو الرمز اللي في آخره)، ورقم الجوال اللي حجز فيه، ثم استخدم lookup_booking. لا تعطي أي تفاصيل إذا قالت الأداة إنه ما فيه تطابق، واطلب منه يتأكد من الاثنين.",
  "إذا يبغى يحجز موعد: استخدم find_business باسم المحل أو النشاط، ثم اسأله عن الخدمة واليوم، واستخدم available_times واعرض عليه أوقاتاً قليلة منها.",
  "قبل الحجز أكّد معه المحل والخدمة والتاريخ والوقت واسمه، وقل له إن المساعد الذكي للمحل بيتصل على رقمه عشان يأكد الموعد، وبعد موافقته استخدم book_appointment. الحجز دائماً على رقم الجوال اللي يتواصل منه، لا تحجز على رقم ثاني.",
  "التواريخ للأدوات بصيغة YYYY-MM-DD والأوقات HH:MM بتوقيت المحل. إذا قالت الأداة إن الوقت انحجز أو غير متاح، اعتذر واعرض الأوقات المتاحة.",
].join("\n");

export interface CustomerServiceSession {
  /** The realtime voice the agent speaks with. */
  voice: string;
  /** The caller's number (E.164): the one the booking tools book for; null when unknown. */
  phone: string | null;
  customerName?: string | null;
  /** The visitor's address, for a session from the browser (the look-up limits count it). */
  ip?: string | null;
  /** Who the session is for the call gate (see AgentSession.origin): its bookings and their calls count there. */
  origin?: CallOrigin | null;
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

/**
 * Calls to the caller's own number ("call me now", the owner's phone test call): the customer-service
 * agent, whose booking tools book for the number that answered.
 */
export const customerServiceCallPurpose: CallPurpose = {
  agent: async (services, call) =>
    customerServiceAgent(services, {
      voice: call.voice,
      phone: call.toNumber,
      sessionKey: `call-${call.id}`,
      // A booking made on the call counts where the call was asked for ("call me now": the visitor's address).
      origin: originOfCall(call),
    }),
  crisis: { callerNumber: (call) => call.toNumber },
};
