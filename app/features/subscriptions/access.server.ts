import type { TFunction } from "i18next";
import { data, type RouterContextProvider } from "react-router";
import { findSubscriber, type Subscriber } from "#models/subscribers";
import { getSubscriberId } from "~/features/auth/index.server";
import { screenNumber, refusalMessage } from "~/calls/dialling-policy.server";
import { requestOrigin } from "~/calls/gate.server";
import { parseDbId } from "~/lib/ids";
import { callLanguages } from "~/lib/languages";
import { apiError } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";
import { firstExceededRule } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";
import { callFrequencies, urgencies, type CallFrequency, type Urgency } from "./plans";
import { isTimeZone } from "~/lib/zoned-time";
import { isCallTimeAllowed, SCHEDULE_TYPES } from "./schedule";
import { sendSignInLink } from "./sign-in-link.server";
import { type SignupDetails } from "./signup.server";

/**
 * `userId` in a URL is only an address: the subscriber is shown to the session that owns it.
 * "invalid": not a positive integer. "not_found": no session, another user's id, or no such user;
 * all three look the same from outside, so nobody learns which ids exist.
 */
export type SubscriberAccess = { ok: true; subscriber: Subscriber } | { ok: false; reason: "invalid" | "not_found" };

export async function subscriberFor(services: AppServices, request: Request, userId: string | null | undefined): Promise<SubscriberAccess> {
  const id = parseDbId(userId);
  if (id === null) return { ok: false, reason: "invalid" };
  const signedIn = await getSubscriberId(services, request);
  if (signedIn !== id) return { ok: false, reason: "not_found" };
  const subscriber = await findSubscriber(services.db, id);
  return subscriber ? { ok: true, subscriber } : { ok: false, reason: "not_found" };
}

/** What an API answers for a refused `userId`: "Invalid user ID" (400), or not found (404). */
export function refusedApi(t: TFunction, reason: "invalid" | "not_found") {
  return reason === "invalid" ? apiError(400, t("subscribe.invalidUserId")) : apiError(404, t("subscribe.userNotFound"));
}

/** What a page shows for a refused `userId` (drawn by ConsumerRefused): the same for every page. */
export function refusedPage(t: TFunction, reason: "invalid" | "not_found") {
  const invalid = reason === "invalid";
  return data(
    { kind: "consumer-refused" as const, invalid, title: `${invalid ? t("subscribe.invalidTitle") : t("subscribe.signInTitle")} · Sakina` },
    { status: invalid ? 400 : 404, headers: { "Cache-Control": "private, no-store" } },
  );
}

export type FormCheck<T> = { ok: true; value: T } | { ok: false; message: string; fields: Record<string, string[]> };

const text = (value: unknown) => (typeof value === "string" ? value.trim() : "");
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The signup form (page or API): every field required, the number through the dialling policy. */
export async function checkSignup(
  services: AppServices,
  t: TFunction,
  input: Record<string, unknown>,
  options: { language: string; ip: string | null },
): Promise<FormCheck<SignupDetails>> {
  const fullName = text(input.fullName);
  const email = text(input.email).toLowerCase();
  const phone = text(input.phone);
  const callFrequency = text(input.callFrequency);
  const fields: Record<string, string[]> = {};
  // Each missing field is named in its own message: the error summary lists them, one line each.
  if (!fullName) fields.fullName = [t("subscribe.fullNameRequired")];
  else if (fullName.length > 100) fields.fullName = [t("subscribe.nameTooLong")];
  if (!email) fields.email = [t("subscribe.emailRequired")];
  else if (email.length > 254 || !EMAIL.test(email)) fields.email = [t("subscribe.emailInvalid")];
  if (!phone) fields.phone = [t("subscribe.phoneRequired")];
  if (!callFrequency) fields.callFrequency = [t("subscribe.frequencyRequired")];
  else if (!callFrequencies.includes(callFrequency as CallFrequency)) fields.callFrequency = [t("subscribe.frequencyInvalid")];
  // The number is put through the policy even when another field is wrong: every error comes in one answer.
  const screened = phone
    ? await screenNumber(services, phone.slice(0, 40), { path: "support", origin: requestOrigin(services, "visitor", options.ip) })
    : null;
  if (screened && !screened.ok) fields.phone = [refusalMessage(t, screened.reason)];
  if (!fullName || !email || !phone || !callFrequency) {
    return { ok: false, message: t("subscribe.incompleteBody"), fields };
  }
  if (Object.keys(fields).length > 0 || !screened?.ok) return { ok: false, message: Object.values(fields)[0]![0]!, fields };
  return {
    ok: true,
    value: { fullName, email, phone: screened.e164, callFrequency: callFrequency as CallFrequency, language: options.language },
  };
}

/**
 * A signup met an unfinished signup with the same e-mail that this browser did not start: the
 * address gets the link that resumes it, within the same limit as /sign-in's (the two share it,
 * so neither can flood an inbox). The minutes to wait when the limit is reached, else null.
 */
export async function sendResumeLink(context: Readonly<RouterContextProvider>, t: TFunction, email: string, language: string) {
  const exceeded = await firstExceededRule(context, [{ name: "sign-in:email", subject: email, limit: 5, windowSeconds: 3600 }]);
  if (exceeded) return exceeded.retryAfterMinutes;
  await sendSignInLink(context.get(servicesContext), email, t, language);
  return null;
}

export interface PreferencesInput {
  preferredLanguage: string;
  voiceGender: string;
  callScheduleType: string;
  preferredCallTime: string;
  timeZone: string;
  callReminders: boolean;
}

const truthy = (value: unknown) => value === true || value === "on" || value === "true";

/** The preferences form (page or API). Calls ring only between 08:00 and 21:00 local time. */
export function checkPreferences(t: TFunction, input: Record<string, unknown>): FormCheck<PreferencesInput> {
  const value: PreferencesInput = {
    preferredLanguage: text(input.preferredLanguage) || "en",
    voiceGender: text(input.voiceGender) || "female",
    callScheduleType: text(input.callScheduleType),
    preferredCallTime: text(input.preferredCallTime),
    // The spec's profile API names it `timezone`; the page's form `timeZone`.
    timeZone: text(input.timeZone ?? input.timezone),
    callReminders: truthy(input.callReminders),
  };
  // The spec's language ids ("english") are accepted as well as codes ("en").
  const language = callLanguages.find((l) => l.code === value.preferredLanguage || l.id === value.preferredLanguage);
  const fields: Record<string, string[]> = {};
  if (!language) fields.preferredLanguage = [t("subscribe.prefs.languageInvalid")];
  else value.preferredLanguage = language.code;
  if (value.voiceGender !== "female" && value.voiceGender !== "male") fields.voiceGender = [t("subscribe.prefs.voiceInvalid")];
  if (!(SCHEDULE_TYPES as readonly string[]).includes(value.callScheduleType))
    fields.callScheduleType = [t("subscribe.prefs.scheduleInvalid")];
  if (!isCallTimeAllowed(value.preferredCallTime)) fields.preferredCallTime = [t("subscribe.prefs.timeInvalid")];
  if (!isTimeZone(value.timeZone) || value.timeZone.length > 64) fields.timeZone = [t("subscribe.prefs.zoneInvalid")];
  if (Object.keys(fields).length > 0) return { ok: false, message: Object.values(fields)[0]![0]!, fields };
  return { ok: true, value };
}

/** How the subscriber feels and how urgent it is, for "Request support call". */
export function checkCallRequest(t: TFunction, input: Record<string, unknown>): FormCheck<{ feeling: string; urgency: Urgency }> {
  const feeling = text(input.feeling);
  const urgency = text(input.urgency) || "normal";
  const fields: Record<string, string[]> = {};
  if (!feeling) fields.feeling = [t("subscribe.dash.feelingRequired")];
  else if (feeling.length > 200) fields.feeling = [t("subscribe.dash.feelingTooLong")];
  if (!urgencies.includes(urgency as Urgency)) fields.urgency = [t("subscribe.dash.urgencyInvalid")];
  if (Object.keys(fields).length > 0) return { ok: false, message: Object.values(fields)[0]![0]!, fields };
  return { ok: true, value: { feeling, urgency: urgency as Urgency } };
}
