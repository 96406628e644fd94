import type { RouterContextProvider } from "react-router";
import { hitRateLimit } from "#models/rate-limits";
import { clientIpContext, servicesContext } from "./context";

export interface RateRule {
  /** What is limited, e.g. "contact:ip". */
  name: string;
  /** Whose hits count: an IP address, an e-mail, a phone number. */
  subject: string;
  limit: number;
  windowSeconds: number;
}

/** Counts a hit against every rule; the first one that is exceeded is returned. */
export async function firstExceededRule(context: Readonly<RouterContextProvider>, rules: RateRule[]) {
  const { db } = context.get(servicesContext);
  for (const rule of rules) {
    const result = await hitRateLimit(db, `${rule.name}:${rule.subject.toLowerCase()}`, rule);
    if (!result.allowed) {
      return { rule, retryAfterSeconds: result.retryAfterSeconds, retryAfterMinutes: Math.ceil(result.retryAfterSeconds / 60) };
    }
  }
  return null;
}

export function clientIp(context: Readonly<RouterContextProvider>) {
  return context.get(clientIpContext);
}
