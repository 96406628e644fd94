import { limitLabel, rateLimitRefusals } from "~/platform/observability/metrics.server";
import { createHmac } from "node:crypto";
import type { CountryCode } from "libphonenumber-js/max";
import { createContext, type MiddlewareFunction, type RouterContextProvider } from "react-router";
import { clearRateLimit, hitBackoff, hitRateLimits, type BackoffRule, type RateLimitResult } from "#models/rate-limits";
import type { Db } from "#models/db";
import { batchedCalls } from "~/lib/sharing/coalesce";
import { perKey } from "~/lib/sharing/per-key";
import { addressGroup } from "~/platform/security/address-group.server";
import { normalizePhone } from "~/platform/phone.server";
import { clientIpContext, servicesContext } from "~/platform/context";

export interface RateRule {
  /** What is limited, e.g. "contact:ip". */
  name: string;
  /** Whose hits count: an IP address, an e-mail, a phone number. */
  subject: string;
  limit: number;
  windowSeconds: number;
}

/**
 * Counts a hit against every rule, in one statement; the first rule exceeded is returned. The
 * stored key is the rule's name and a keyed hash (HMAC-SHA256) of the subject, never the phone
 * number, e-mail address or IP itself, and a fixed length however long the subject. The hits of
 * all the requests that ask at the same moment go in that one statement (see countedTogether).
 */
export async function firstExceededRule(context: Readonly<RouterContextProvider>, rules: RateRule[]) {
  const { db, signingSecret } = context.get(servicesContext);
  const results = await countedTogether(db)(
    rules.map((rule) => ({ key: rateLimitKey(signingSecret, rule), limit: rule.limit, windowSeconds: rule.windowSeconds })),
  );
  const index = results.findIndex((result) => !result.allowed);
  if (index === -1) return null;
  const rule = rules[index]!;
  rateLimitRefusals.inc({ limit: limitLabel(rule.name) });
  const { retryAfterSeconds } = results[index]!;
  context.set(retryAfterContext, Math.max(context.get(retryAfterContext) ?? 0, retryAfterSeconds));
  return { rule, retryAfterSeconds, retryAfterMinutes: Math.ceil(retryAfterSeconds / 60) };
}

type Hits = Parameters<typeof hitRateLimits>[1];

/**
 * The hits of every request that reaches a rate limit in the same turn of the event loop, counted
 * by one statement on `db` (hitRateLimits counts a key named twice as two hits, one after the
 * other): a burst of requests costs a round trip per turn, not one per request. Each request gets
 * its own rules' results.
 */
const countedTogether = perKey((db: Db) =>
  // At most 500 requests a statement: a few rules each, a handful of parameters a rule, far
  // below the 65,535 parameters PostgreSQL takes in one.
  batchedCalls(
    async (perRequest: Hits[]): Promise<RateLimitResult[][]> => {
      const results = await hitRateLimits(db, perRequest.flat());
      let next = 0;
      return perRequest.map((hits) => results.slice(next, (next += hits.length)));
    },
    { maxItems: 500 },
  ),
);

export interface BackoffRateRule extends BackoffRule {
  name: string;
  subject: string;
}

/**
 * Counts an attempt unless it comes before its growing wait is over (see hitBackoff); a refusal
 * says how long to wait.
 */
export async function attemptWithBackoff(context: Readonly<RouterContextProvider>, rule: BackoffRateRule) {
  const { db, signingSecret } = context.get(servicesContext);
  const result = await hitBackoff(db, rateLimitKey(signingSecret, rule), rule);
  if (result.allowed) return null;
  rateLimitRefusals.inc({ limit: limitLabel(rule.name) });
  context.set(retryAfterContext, Math.max(context.get(retryAfterContext) ?? 0, result.retryAfterSeconds));
  return { rule, retryAfterSeconds: result.retryAfterSeconds, retryAfterMinutes: Math.ceil(result.retryAfterSeconds / 60) };
}

/** Forgets the attempts counted by attemptWithBackoff, once one succeeded. */
export async function forgiveAttempts(context: Readonly<RouterContextProvider>, rule: { name: string; subject: string }) {
  const { db, signingSecret } = context.get(servicesContext);
  await clearRateLimit(db, rateLimitKey(signingSecret, rule));
}

export function clientIp(context: Readonly<RouterContextProvider>) {
  return context.get(clientIpContext);
}

/** The longest wait a rate limit asked of this request, for its Retry-After header. */
const retryAfterContext = createContext<number | null>(null);

/** When nothing recorded how long to wait (a limit outside these rules), a minute. */
const DEFAULT_RETRY_AFTER_SECONDS = 60;

/**
 * Every 429 the app sends carries `Retry-After` (seconds), whichever route or feature refused:
 * the wait comes from the rate-limit rule that was exceeded during the request.
 */
export const retryAfterMiddleware: MiddlewareFunction<Response> = async ({ context }, next) => {
  const response = await next();
  if (response.status === 429 && !response.headers.has("Retry-After")) {
    response.headers.set("Retry-After", String(Math.max(1, context.get(retryAfterContext) ?? DEFAULT_RETRY_AFTER_SECONDS)));
  }
  return response;
};

/**
 * The row key for a rule and subject: `name:` and the subject's HMAC (case-insensitive). A subject
 * that is an IP address counts as its address group (an IPv6 /64), here where every limit passes,
 * so no caller can forget it and let one subscriber spend a fresh address on each attempt.
 */
export function rateLimitKey(secret: string, rule: Pick<RateRule, "name" | "subject">) {
  return `${rule.name}:${subjectKey(secret, rule.subject)}`;
}

/**
 * The keyed hash rateLimitKey counts a subject under, the same for every rule: what a call or a
 * booking keeps of the address that caused it (never the address), so anything that follows from
 * it counts there again (`${name}:${key}` is that rule's row).
 */
export function subjectKey(secret: string, subject: string) {
  return createHmac("sha256", secret)
    .update(`rate-limit:${addressGroup(subject).toLowerCase()}`)
    .digest("base64url");
}

/**
 * The subject of every limit on a phone number: the number in E.164 however it was written
 * ("+1 212…", "(212) …", "001 212…"), a number without its country code read as one of `country`.
 * One that does not parse keys as its digits alone, an international 00 dropped, so spacing,
 * punctuation and prefixes never spread one number over several counters.
 */
export function phoneLimitSubject(input: string, country?: CountryCode) {
  const phone = normalizePhone(input, country);
  return phone.ok ? phone.e164 : input.replace(/\D/g, "").replace(/^00/, "");
}
