import type { AppServices } from "~/platform/services.server";
import { recentAnswers } from "~/lib/sharing/per-key";

export interface ProviderStatus {
  id: string;
  name: string;
  kind: "voice-ai" | "telephony";
  configured: boolean;
  working: boolean;
  message: string;
  description: string;
  features: string[];
  pricing: string;
  credentials: string[];
  signupUrl: string;
}

const KNOWN: Omit<ProviderStatus, "configured" | "working" | "message">[] = [
  {
    id: "openai",
    name: "OpenAI Realtime",
    kind: "voice-ai",
    description: "The voice of every agent: speech in, speech out, in real time, over a phone-quality audio stream.",
    features: ["Natural voices in six languages", "Barge-in (the caller can interrupt)", "Tool calls to confirm, cancel or reschedule"],
    pricing: "Billed by OpenAI per minute of audio in and out.",
    credentials: ["OPENAI_API_KEY", "OPENAI_REALTIME_MODEL (optional)"],
    signupUrl: "https://platform.openai.com/api-keys",
  },
  {
    id: "twilio",
    name: "Twilio",
    kind: "telephony",
    description: "Places the outbound calls and streams their audio to the voice AI.",
    features: ["Calls to 180+ countries", "Answering-machine detection", "Media Streams"],
    pricing: "Billed by Twilio per minute, by destination.",
    credentials: [
      "TWILIO_ACCOUNT_SID",
      "TWILIO_AUTH_TOKEN",
      "TWILIO_FROM_NUMBER",
      "TWILIO_FROM_NUMBER_SA (optional)",
      "TWILIO_FROM_NUMBER_AE (optional)",
    ],
    signupUrl: "https://www.twilio.com/try-twilio",
  },
  {
    id: "vonage",
    name: "Vonage",
    kind: "telephony",
    description: "An alternative carrier; not supported yet.",
    features: ["Voice API", "WebSocket audio"],
    pricing: "Billed by Vonage per minute.",
    credentials: ["VONAGE_API_KEY", "VONAGE_API_SECRET"],
    signupUrl: "https://dashboard.nexmo.com/sign-up",
  },
  {
    id: "plivo",
    name: "Plivo",
    kind: "telephony",
    description: "An alternative carrier; not supported yet.",
    features: ["Voice API", "Audio streaming"],
    pricing: "Billed by Plivo per minute.",
    credentials: ["PLIVO_AUTH_ID", "PLIVO_AUTH_TOKEN"],
    signupUrl: "https://console.plivo.com/accounts/register/",
  },
  {
    id: "telnyx",
    name: "Telnyx",
    kind: "telephony",
    description: "An alternative carrier; not supported yet.",
    features: ["Call Control", "Media streaming"],
    pricing: "Billed by Telnyx per minute.",
    credentials: ["TELNYX_API_KEY"],
    signupUrl: "https://telnyx.com/sign-up",
  },
];

/** Each provider: configured or not, and working or not from a real request (kept a minute, per set of services). */
const recentStatuses = recentAnswers(60_000, checkProviders);
export function providerStatuses(services: AppServices, options: { refresh?: boolean } = {}) {
  return recentStatuses(services, { fresh: options.refresh });
}

async function checkProviders(services: AppServices) {
  const { telephony } = services;
  const twilio = telephony.configured ? await telephony.checkCredentials() : { ok: false, message: "Not configured" };
  const openai = await services.voiceModel.checkCredentials();
  const providers: ProviderStatus[] = KNOWN.map((known) => {
    if (known.id === "twilio") return { ...known, configured: telephony.configured, working: twilio.ok, message: twilio.message };
    if (known.id === "openai") return { ...known, configured: services.voiceModel.configured, working: openai.ok, message: openai.message };
    return { ...known, configured: false, working: false, message: "Not configured" };
  });
  const callsWork = twilio.ok && openai.ok;
  return {
    activeProvider: callsWork ? "Twilio + OpenAI Realtime" : twilio.ok ? "Twilio" : null,
    recommendation: callsWork
      ? "Calls are ready: Twilio dials, OpenAI Realtime speaks."
      : !telephony.configured
        ? "Set the TWILIO_* variables to place calls."
        : !twilio.ok
          ? "Twilio is configured but refused the credentials: check TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN."
          : "Set OPENAI_API_KEY so the agents can speak.",
    providers,
  };
}
