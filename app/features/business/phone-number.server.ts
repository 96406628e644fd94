import { parseWithZod } from "@conform-to/zod/v4";
import type { TFunction } from "i18next";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { z } from "zod";
import {
  connectBusinessNumber,
  disconnectBusinessNumber,
  findBusinessNumber,
  numbersTakenByOthers,
  updateBusinessNumberSettings,
  type BusinessNumber,
} from "#models/business-numbers";
import { allowedCountries, classifyNumber, refusalMessage } from "~/calls/dialling-policy.server";
import type { Owner } from "~/features/business/owner.server";
import { formatWhenWithZone } from "~/lib/when";
import { log } from "~/platform/observability/log.server";
import { formatPhone, normalizePhone } from "~/platform/phone.server";
import type { AppServices } from "~/platform/services.server";
import type { AccountNumber } from "~/providers/phone-numbers.server";

/**
 * Where a connected number's calls and texts go: the inbound call's webhook, the texts' webhook,
 * and the call's status callback (a call someone made to us has no per-call callback: its end,
 * which frees the business's line, comes through the number's).
 */
export function numberWebhooks(services: Pick<AppServices, "publicOrigin">) {
  const origin = services.publicOrigin();
  return {
    voiceUrl: `${origin}/webhooks/twilio/voice/inbound`,
    smsUrl: `${origin}/webhooks/twilio/messages`,
    statusCallback: `${origin}/webhooks/twilio/voice/inbound/status`,
  };
}

export const RECEPTIONIST_MODES = ["off", "always", "outside_hours"] as const;
export const CONCURRENT_CALLS = { min: 1, max: 10 } as const;
export const CALLS_PER_CALLER = { min: 1, max: 50 } as const;

export const phoneNumberIntents = ["connect-number", "save-number-settings", "disconnect-number"] as const;

/** What a saved change says at the top of the page (a code in the redirect, never free text). */
const doneMessages = {
  "number-connected": "phoneNumber.savedConnected",
  "number-saved": "phoneNumber.saved",
  "number-disconnected": "phoneNumber.savedDisconnected",
} as const;
export type PhoneNumberDone = keyof typeof doneMessages;

export type PhoneNumberResult =
  { intent: string; ok: true; done: PhoneNumberDone } | { intent: string; ok: false; reply?: unknown; errors?: Record<string, string[]> };

/** The platform's own senders (its caller ID and texts' number): never a business's line. */
function platformNumbers(services: AppServices) {
  const env = services.env;
  return new Set([env.TWILIO_FROM_NUMBER, env.TWILIO_FROM_NUMBER_SA, env.TWILIO_FROM_NUMBER_AE, env.TWILIO_SMS_FROM].filter(Boolean));
}

/**
 * The receptionist's settings as the owner sends them; every field's error in one answer. The
 * transfer phone follows the app's phone rules and the dialling policy (a transfer is a call the
 * business pays for): a real mobile or fixed line in a country the business calls.
 */
export function numberSettingsSchema(t: TFunction, countries: readonly string[], ownNumber: string) {
  const count = (range: { min: number; max: number }, message: string) =>
    z.preprocess(
      (value) => (typeof value === "string" && /^\s*\d{1,3}\s*$/.test(value) ? Number(value) : value),
      z.number(message).int(message).min(range.min, message).max(range.max, message),
    );
  return z.object({
    receptionistMode: z.enum(RECEPTIONIST_MODES, t("phoneNumber.modeInvalid")),
    transferNumber: z
      .string()
      .max(40, t("dialling.invalid"))
      .optional()
      .transform((value, ctx) => {
        if (!value?.trim()) return null;
        const phone = normalizePhone(value);
        if (!phone.ok) {
          ctx.addIssue({ code: "custom", message: refusalMessage(t, "invalid") });
          return z.NEVER;
        }
        if (phone.e164 === ownNumber) {
          ctx.addIssue({ code: "custom", message: t("phoneNumber.transferIsOwnNumber") });
          return z.NEVER;
        }
        const classified = classifyNumber(phone.e164, countries);
        if (!classified.ok) {
          ctx.addIssue({ code: "custom", message: refusalMessage(t, classified.reason) });
          return z.NEVER;
        }
        return classified.e164;
      }),
    // A checkbox: sent when ticked, absent when not.
    transferWithinHours: z
      .string()
      .optional()
      .transform((value) => value === "on"),
    maxConcurrentCalls: count(CONCURRENT_CALLS, t("phoneNumber.concurrentInvalid", CONCURRENT_CALLS)),
    maxCallsPerCallerPerDay: count(CALLS_PER_CALLER, t("phoneNumber.perCallerInvalid", CALLS_PER_CALLER)),
  });
}

/** Every form of the phone page; each is scoped to the owner's own business. */
export async function handlePhoneNumberAction(owner: Owner, form: FormData): Promise<PhoneNumberResult> {
  const { services, t, business } = owner;
  const intent = String(form.get("intent") ?? "");
  if (!services.phoneNumbers.configured) return { intent, ok: false, errors: { _: [t("phoneNumber.notConfigured")] } };
  switch (intent) {
    case "connect-number":
      return connectNumber(owner, String(form.get("numberSid") ?? ""));
    case "save-number-settings": {
      const current = await findBusinessNumber(services.db, business.id);
      if (!current) return { intent, ok: false, errors: { _: [t("phoneNumber.noNumber")] } };
      const countries = allowedCountries(services.env.CALL_COUNTRIES, business.callCountries);
      const submission = parseWithZod(form, { schema: numberSettingsSchema(t, countries, current.phoneNumber) });
      if (submission.status !== "success") return { intent, ok: false, reply: submission.reply() };
      await updateBusinessNumberSettings(services.db, business.id, submission.value);
      return { intent, ok: true, done: "number-saved" };
    }
    case "disconnect-number":
      return disconnectNumber(owner);
    default:
      return { intent, ok: false, errors: { _: [t("common.genericError")] } };
  }
}

async function connectNumber(owner: Owner, sid: string): Promise<PhoneNumberResult> {
  const { services, t, business } = owner;
  const intent = "connect-number";
  const refuse = (message: string) => ({ intent, ok: false as const, errors: { numberSid: [message] } });
  if (!/^PN[0-9a-fA-F]{32}$/.test(sid)) return refuse(t("phoneNumber.chooseNumber"));
  if (await findBusinessNumber(services.db, business.id)) return { intent, ok: false, errors: { _: [t("phoneNumber.alreadyConnected")] } };
  let number: AccountNumber | null;
  try {
    number = await services.phoneNumbers.fetch(sid);
  } catch (error) {
    log.warn({ businessId: business.id, problem: (error as Error).message }, "fetching a Twilio number to connect failed");
    return refuse(t("phoneNumber.providerError"));
  }
  if (!number || platformNumbers(services).has(number.phoneNumber)) return refuse(t("phoneNumber.notInAccount"));
  if (!number.voice) return refuse(t("phoneNumber.noVoice"));
  // The row first: the unique keys decide between two owners who choose the same number at once.
  const claimed = await connectBusinessNumber(services.db, { businessId: business.id, phoneNumber: number.phoneNumber, providerSid: sid });
  if (!claimed.ok) {
    if (claimed.problem === "taken") return refuse(t("phoneNumber.taken"));
    return { intent, ok: false, errors: { _: [t("phoneNumber.alreadyConnected")] } };
  }
  try {
    await services.phoneNumbers.route(sid, numberWebhooks(services));
  } catch (error) {
    await disconnectBusinessNumber(services.db, business.id, sid);
    log.warn({ businessId: business.id, problem: (error as Error).message }, "pointing a Twilio number at Sakina failed");
    return refuse(t("phoneNumber.providerError"));
  }
  return { intent, ok: true, done: "number-connected" };
}

/**
 * Disconnects: the number's calls and texts stop coming to Sakina (its URLs are cleared at the
 * provider where they still point here; someone may have pointed them elsewhere since), then the
 * row goes. A number the account no longer has is disconnected all the same.
 */
async function disconnectNumber(owner: Owner): Promise<PhoneNumberResult> {
  const { services, t, business } = owner;
  const intent = "disconnect-number";
  const current = await findBusinessNumber(services.db, business.id);
  if (!current) return { intent, ok: true, done: "number-disconnected" };
  const ours = numberWebhooks(services);
  try {
    const number = await services.phoneNumbers.fetch(current.providerSid);
    if (number) {
      const clear = {
        ...(number.voiceUrl === ours.voiceUrl ? { voiceUrl: "" } : {}),
        ...(number.smsUrl === ours.smsUrl ? { smsUrl: "" } : {}),
        ...(number.statusCallback === ours.statusCallback ? { statusCallback: "" } : {}),
      };
      if (Object.keys(clear).length > 0) await services.phoneNumbers.route(current.providerSid, clear);
    }
  } catch (error) {
    log.warn({ businessId: business.id, problem: (error as Error).message }, "clearing a Twilio number's URLs failed");
    return { intent, ok: false, errors: { _: [t("phoneNumber.providerError")] } };
  }
  await disconnectBusinessNumber(services.db, business.id, current.providerSid);
  return { intent, ok: true, done: "number-disconnected" };
}

/** The numbers offered: the account's voice numbers that no other business has, nor the platform uses. */
async function offeredNumbers(owner: Owner) {
  const { services, business } = owner;
  let numbers: AccountNumber[];
  try {
    numbers = await services.phoneNumbers.list();
  } catch (error) {
    log.warn({ businessId: business.id, problem: (error as Error).message }, "listing the Twilio account's numbers failed");
    return null;
  }
  const taken = await numbersTakenByOthers(services.db, business.id);
  const takenSids = new Set(taken.map((row) => row.providerSid));
  const takenPhones = new Set(taken.map((row) => row.phoneNumber));
  const platform = platformNumbers(services);
  const ours = numberWebhooks(services);
  return numbers
    .filter((n) => n.voice && !takenSids.has(n.sid) && !takenPhones.has(n.phoneNumber) && !platform.has(n.phoneNumber))
    .map((n) => ({
      sid: n.sid,
      phone: formatPhone(n.phoneNumber),
      /** Twilio's default name is the number itself, formatted: shown only when someone named it. */
      friendlyName: isJustTheNumber(n.friendlyName, n.phoneNumber) ? null : n.friendlyName,
      /** Its calls go somewhere else now: connecting replaces that. */
      routedElsewhere: Boolean(n.voiceUrl && n.voiceUrl !== ours.voiceUrl),
    }));
}

function isJustTheNumber(name: string, e164: string) {
  const digits = name.replace(/\D/g, "");
  return digits.length > 0 && e164.replace(/\D/g, "").endsWith(digits) && !/[^\d\s()+\-.]/.test(name);
}

/** The codes that forward the business's old line to its number, shown as examples. */
function forwarding(e164: string) {
  const parsed = parsePhoneNumberFromString(e164);
  return {
    gsm: e164,
    /** Verizon's *71 takes the ten digits of a North American number. */
    verizon: parsed?.countryCallingCode === "1" ? String(parsed.nationalNumber) : null,
  };
}

function connectedView(owner: Owner, number: BusinessNumber) {
  return {
    phone: formatPhone(number.phoneNumber),
    e164: number.phoneNumber,
    connectedAt: formatWhenWithZone(number.connectedAt, owner.business.timeZone, owner.locale),
    receptionistMode: number.receptionistMode,
    transferNumber: number.transferNumber ? formatPhone(number.transferNumber) : "",
    transferWithinHours: number.transferWithinHours,
    maxConcurrentCalls: number.maxConcurrentCalls,
    maxCallsPerCallerPerDay: number.maxCallsPerCallerPerDay,
    forwarding: forwarding(number.phoneNumber),
  };
}

/** The phone page: not configured, the numbers to choose from, or the connected number and its settings. */
export async function loadPhoneNumberPage(owner: Owner, url: URL) {
  const { services, t, business } = owner;
  const done = url.searchParams.get("done");
  const message = done && done in doneMessages ? t(doneMessages[done as PhoneNumberDone]) : null;
  if (!services.phoneNumbers.configured) return { message, state: "not-configured" as const };
  const current = await findBusinessNumber(services.db, business.id);
  if (current) {
    return {
      message,
      state: "connected" as const,
      number: connectedView(owner, current),
      confirmDisconnect: url.searchParams.get("confirm") === "disconnect",
      /** Calls reach the number, but without the voice model nobody answers them. */
      voiceMissing: !services.voiceModel.configured,
      limits: { concurrent: CONCURRENT_CALLS, perCaller: CALLS_PER_CALLER },
    };
  }
  return { message, state: "choose" as const, numbers: await offeredNumbers(owner) };
}

export type PhoneNumberPage = Awaited<ReturnType<typeof loadPhoneNumberPage>>;
