import type { TFunction } from "i18next";
import { countPlanCallsSince, type Business } from "#models/businesses";
import { periodStartOf, planDecision } from "~/features/business/index.server";
import { nextCallingTime } from "./calling-hours";
import { isolatedText } from "~/lib/isolate";
import type { AppServices } from "~/platform/services.server";
import { formatRelativeDays, formatWhen, zoneLongName } from "~/lib/when";
import { utcToZoned } from "~/lib/zoned-time";

/**
 * What will happen after a booking, as far as the confirmation call goes: a call now, a call at
 * the start of the next calling hours, or no call at all (only the e-mail, if one was given). The
 * booking page (before and after the customer confirms), the customer's e-mail and the job that
 * asks for the call all read it here, so nothing promises a call the server will not place.
 */
export type ConfirmationPromise =
  | { kind: "call_now" }
  | { kind: "call_later"; at: Date }
  | { kind: "no_call"; reason: "not_configured" | "plan" }
  /** Booked on a call with the business's receptionist, the caller agreeing to it: confirmed, no call follows. */
  | { kind: "agreed_on_call" };

export async function confirmationPromise(services: AppServices, business: Business, now = new Date()): Promise<ConfirmationPromise> {
  if (!services.telephony.configured) return { kind: "no_call", reason: "not_configured" };
  // The plan's own rule (20 starter calls in 7 days, a paid monthly plan), read without taking a call from it.
  const start = periodStartOf(business);
  const used = business.planStatus === "starter" && start ? await countPlanCallsSince(services.db, business.id, start) : 0;
  if (!planDecision(business, used, now).ok) return { kind: "no_call", reason: "plan" };
  // The engine's calling hours: outside them the call waits for the next morning.
  const later = nextCallingTime(now.getTime(), business.timeZone);
  return later ? { kind: "call_later", at: later } : { kind: "call_now" };
}

/**
 * The owner's call column for a booking just made or moved, from the same promise: "Call queued"
 * only when a call will ring now, "Scheduled for calling hours" when it waits, "Calls are not
 * configured" when none can ring. A plan that refuses the call is left "queued" for the call's job,
 * whose gate records the plan's own refusal (or the held call) for the owner a moment later.
 */
export function ownerCallStateOf(promise: ConfirmationPromise) {
  if (promise.kind === "agreed_on_call") return "booked_on_call";
  if (promise.kind === "call_later") return "scheduled";
  if (promise.kind === "no_call" && promise.reason === "not_configured") return "calls_not_configured";
  return "queued";
}

/** "at 8:00 AM tomorrow (Eastern Standard Time)": when a later call rings, in the business's zone and the reader's language. */
function laterWhen(t: TFunction, language: string, timeZone: string, at: Date, now: Date) {
  const dayOf = (date: Date) => Date.parse(utcToZoned(date.getTime(), timeZone).date);
  const day = formatRelativeDays(Math.round((dayOf(at) - dayOf(now)) / 86_400_000), language);
  const time = formatWhen(at, timeZone, language, "time");
  return t("book.promiseWhen", { time, day, zone: zoneLongName(timeZone, language, at) });
}

/**
 * The promise in words, for the booking page (`page`, before and after booking) or the customer's
 * e-mail (`email`). `emailed`: the customer gave an e-mail address, so a confirmation arrives there.
 */
export function describeConfirmationPromise(
  t: TFunction,
  language: string,
  business: Pick<Business, "name" | "timeZone">,
  promise: ConfirmationPromise,
  options: { emailed: boolean; now?: Date },
) {
  const name = isolatedText(business.name, language);
  if (promise.kind === "call_now") return t("book.promiseNow", { business: name });
  if (promise.kind === "agreed_on_call") return t("book.promiseAgreed", { business: name });
  if (promise.kind === "call_later") {
    return t("book.promiseLater", {
      business: name,
      when: laterWhen(t, language, business.timeZone, promise.at, options.now ?? new Date()),
    });
  }
  return t(options.emailed ? "book.promiseNoneEmailed" : "book.promiseNone", { business: name });
}

/** The same promise told to the owner in the new-booking e-mail: the call now, later, or the owner confirms. */
export function describeConfirmationPromiseToOwner(
  t: TFunction,
  language: string,
  business: Pick<Business, "timeZone">,
  promise: ConfirmationPromise,
  now = new Date(),
) {
  if (promise.kind === "call_now") return t("bookingEmail.ownerCall");
  if (promise.kind === "agreed_on_call") return t("bookingEmail.ownerAgreed");
  if (promise.kind === "call_later") {
    return t("bookingEmail.ownerCallLater", { when: laterWhen(t, language, business.timeZone, promise.at, now) });
  }
  return t("bookingEmail.ownerNoCall");
}
