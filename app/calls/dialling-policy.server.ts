import { createHmac } from "node:crypto";
import { parsePhoneNumberFromString } from "libphonenumber-js/max";
import { recordCallRefusal } from "#models/call-refusals";
import { countUndialledFirstCalls, isOptedOut } from "#models/calls";
import type { Db } from "#models/db";
import { hitRateLimit, rateLimitHits } from "#models/rate-limits";
import type { CallOrigin } from "#models/schema";
import type { TFunction } from "i18next";
import { normalizePhone } from "~/platform/phone.server";
import type { AppServices } from "~/platform/services.server";
import { phoneLimitSubject, rateLimitKey } from "~/platform/security/rate-limit.server";

/** Why the policy refused a number; each has its own message and is recorded for the admin. */
export type RefusalReason = "invalid" | "country" | "premium" | "unroutable" | "number_cap" | "ip_cap" | "opted_out";

/**
 * The kinds of number a call may go to: lines that ring a person. Everything else is refused by
 * its type in the full ("max") metadata, never by a list of prefixes, so a range the metadata
 * knows (UK 070, US 500/533, a country's premium block) is refused without anyone writing it down.
 * Toll-free is refused too: nobody books or asks for a call from a free-phone line, and
 * international free-phone termination is itself a toll-fraud route.
 */
const DIALLABLE_TYPES = new Set(["MOBILE", "FIXED_LINE", "FIXED_LINE_OR_MOBILE"]);
/**
 * The refused types that cost the caller money (the rest reach no person, or no person of
 * their own): personal numbers (UK 070, US 500/533) forward at the owner's chosen premium rate
 * and UANs at non-geographic rates, so they are refused with the premium ranges.
 */
const PREMIUM_TYPES = new Set(["PREMIUM_RATE", "SHARED_COST", "PERSONAL_NUMBER", "UAN"]);

export type Classification = { ok: true; e164: string; country: string } | { ok: false; reason: RefusalReason; country: string | null };

/**
 * What a number is, before anything is counted: valid, a mobile or fixed line (see
 * DIALLABLE_TYPES), and in `allowedCountries`. Pure, so it is unit-tested on its own.
 */
export function classifyNumber(e164: string, allowedCountries: readonly string[]): Classification {
  const parsed = parsePhoneNumberFromString(e164);
  if (!parsed || !parsed.isValid()) return { ok: false, reason: "invalid", country: parsed?.country ?? null };
  const country = parsed.country ?? null;
  const type = parsed.getType();
  if (!type || !DIALLABLE_TYPES.has(type))
    return { ok: false, reason: type && PREMIUM_TYPES.has(type) ? "premium" : "unroutable", country };
  if (!country || !allowedCountries.includes(country)) return { ok: false, reason: "country", country };
  return { ok: true, e164: parsed.number, country };
}

/** The deployment's countries, narrowed by the business's own list (a business can only narrow). */
export function allowedCountries(deployment: string, business?: readonly string[] | null) {
  const base = deployment.split(",").filter(Boolean);
  return business && business.length > 0 ? base.filter((c) => business.includes(c)) : base;
}

export const numberHash = (services: AppServices, e164: string) => createHmac("sha256", services.signingSecret).update(e164).digest("hex");

export interface DialRequest {
  /** booking_confirmation, demo, test, empathy, customer_service. */
  path: string;
  number: string;
  business?: { id: number; callCountries: string[] | null } | null;
  /** Who asks: its address (a keyed hash) is what countIp counts, and what a refusal records. */
  origin?: CallOrigin | null;
  /** Counts one call against the per-number daily cap (only where the call is really dialled). */
  count?: boolean;
  /**
   * Refuses a new call the per-number cap would refuse when it is dialled: the number's dials
   * today and the first calls to it still waiting to be dialled leave no room. Nothing is counted
   * (the engine counts the dial), so the person asking hears "not today" at once, instead of a
   * request accepted and then dropped at dial time.
   */
  foreseeNumberCap?: boolean;
  /** Counts one call against the origin's address (public forms: a visitor may not phone many people). */
  countIp?: boolean;
  /** Further ISO codes a path narrows the list to (the paid call's own markets). */
  countries?: string;
}

/** The per-number cap's window: CALLS_PER_NUMBER_PER_DAY dials in a day. */
const NUMBER_CAP_WINDOW_SECONDS = 86_400;

const numberCapKey = (services: AppServices, e164: string) =>
  rateLimitKey(services.signingSecret, { name: "dial:number", subject: phoneLimitSubject(e164) });

/**
 * Whether one more call to `e164` today would be refused when dialled: its dials counted today and
 * the first calls to it still waiting to be dialled reach CALLS_PER_NUMBER_PER_DAY. Counts nothing.
 */
export async function numberCapFull(services: AppServices, e164: string, db: Db = services.db) {
  const dialled = await rateLimitHits(db, numberCapKey(services, e164), NUMBER_CAP_WINDOW_SECONDS);
  const waiting = await countUndialledFirstCalls(db, e164);
  return dialled + waiting >= services.env.CALLS_PER_NUMBER_PER_DAY;
}

export type DialDecision = { ok: true; e164: string } | { ok: false; reason: RefusalReason };

/**
 * The one dialling policy every path that phones a number goes through: the call gate
 * (gate.server.ts) before a call is queued, and the call engine again at dial time. A refusal is
 * recorded in call_refusals with keyed hashes. Its reads and counts go to `db` (the gate's
 * transaction, when it has one).
 */
export async function checkDialling(services: AppServices, request: DialRequest, db: Db = services.db): Promise<DialDecision> {
  let countries = allowedCountries(services.env.CALL_COUNTRIES, request.business?.callCountries);
  if (request.countries) countries = countries.filter((c) => request.countries!.split(",").includes(c));
  const classified = classifyNumber(request.number, countries);
  let reason: RefusalReason | null = classified.ok ? null : classified.reason;
  const e164 = classified.ok ? classified.e164 : request.number;
  if (!reason && request.business && (await isOptedOut(db, request.business.id, e164))) reason = "opted_out";
  if (!reason && request.foreseeNumberCap && (await numberCapFull(services, e164, db))) reason = "number_cap";
  if (!reason && request.count) {
    const hit = await hitRateLimit(db, numberCapKey(services, e164), {
      limit: services.env.CALLS_PER_NUMBER_PER_DAY,
      windowSeconds: NUMBER_CAP_WINDOW_SECONDS,
    });
    if (!hit.allowed) reason = "number_cap";
  }
  const address = request.origin?.address ?? null;
  if (!reason && request.countIp && address) {
    // The row rateLimitKey gives the address itself ("dial:ip" and its keyed hash).
    const hit = await hitRateLimit(db, `dial:ip:${address}`, {
      limit: services.env.CALLS_PER_IP_PER_DAY,
      windowSeconds: 86_400,
    });
    if (!hit.allowed) reason = "ip_cap";
  }
  if (!reason) return { ok: true, e164 };
  await recordCallRefusal(db, {
    path: request.path,
    reason,
    country: classified.country,
    numberHash: numberHash(services, e164),
    ipHash: address,
    businessId: request.business?.id ?? null,
  });
  return { ok: false, reason };
}

export type ScreenResult = { ok: true; e164: string } | { ok: false; reason: RefusalReason | "empty" };

/**
 * A number typed into a form, read (as a US number without a country code) and put through the
 * policy at once, so the person asking hears why before anything is queued. Nothing is counted:
 * the call gate counts the address when it queues the call, the call engine the number when it
 * really dials.
 */
export async function screenNumber(
  services: AppServices,
  input: string,
  request: Omit<DialRequest, "number" | "count" | "countIp">,
): Promise<ScreenResult> {
  const phone = normalizePhone(input);
  if (!phone.ok) {
    if (phone.reason === "invalid" && input.trim()) await checkDialling(services, { ...request, number: input.trim().slice(0, 40) });
    return phone;
  }
  return checkDialling(services, { ...request, number: phone.e164 });
}

/** What the person asking for a call is told when the policy refuses the number. */
export function refusalMessage(t: TFunction, reason: RefusalReason | "empty") {
  return t(`dialling.${reason}`);
}
