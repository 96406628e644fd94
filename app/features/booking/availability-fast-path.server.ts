import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AppServices } from "~/platform/services.server";
import { parseDbId } from "~/lib/ids";
import { availabilityKey, type DayAvailability } from "./booking.server";

const PATH = /^\/api\/booking\/availability\/([a-z0-9-]{1,80})\/(\d{4}-\d{2}-\d{2})\/(\d{1,10})$/;

/**
 * GET /api/booking/availability/{link}/{date}/{serviceId} answered in front of Express when the
 * read cache already holds that day's slots (a booking page asks for the same days again and
 * again): the same JSON and headers as the route (routes/api/booking/availability.ts), without
 * the router. Anything else, an error answer, or a day not in the cache goes to the route, which
 * computes and caches it. Returns false when it did not answer.
 */
export function availabilityFastPath(services: Pick<AppServices, "readCache">, securityHeaders: (nonce: string) => [string, string][]) {
  return function answer(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "GET") return false;
    const match = PATH.exec(req.url ?? "");
    if (!match) return false;
    const serviceId = parseDbId(match[3]);
    if (!serviceId) return false;
    const cached = services.readCache.peek<DayAvailability>(availabilityKey(match[1]!, serviceId, match[2]!));
    if (!cached || !("slots" in cached)) return false;
    const body = JSON.stringify(cached.slots);
    for (const [name, value] of securityHeaders(randomBytes(16).toString("base64"))) res.setHeader(name, value);
    res.writeHead(200, {
      "Content-Type": "application/json",
      "Cache-Control": "no-store",
      "Server-Timing": 'read-cache;desc="hit"',
      Vary: "Accept-Encoding",
      "Content-Length": Buffer.byteLength(body),
    });
    res.end(body);
    return true;
  };
}
