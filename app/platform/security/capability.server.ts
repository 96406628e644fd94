import { createHmac, timingSafeEqual } from "node:crypto";
import { parseDbId } from "~/lib/ids";
import type { AppServices } from "~/platform/services.server";

/**
 * A link that is its own permission: `{id}.{hmac}`, where the HMAC binds the id to one purpose
 * ("empathy-request", "call-me", "web-call"). Whoever has the link may see that one thing;
 * nobody can make one for another id.
 */
function signature(services: AppServices, purpose: string, id: number) {
  return createHmac("sha256", services.signingSecret).update(`${purpose}:${id}`).digest("base64url").slice(0, 32);
}

export function capabilityToken(services: AppServices, purpose: string, id: number) {
  return `${id}.${signature(services, purpose, id)}`;
}

/** The id a token was made for, or null for anything else (malformed, another purpose, forged). */
export function parseCapabilityToken(services: AppServices, purpose: string, token: string | null | undefined): number | null {
  const match = /^(\d{1,10})\.([A-Za-z0-9_-]{32})$/.exec(token ?? "");
  if (!match) return null;
  const id = parseDbId(match[1]);
  if (id === null) return null;
  const expected = Buffer.from(signature(services, purpose, id));
  const given = Buffer.from(match[2]!);
  return expected.length === given.length && timingSafeEqual(expected, given) ? id : null;
}
