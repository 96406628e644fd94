import { createHash } from "node:crypto";
import type { Route } from "./+types/calendar.feed";
import { calendarFeedBody } from "~/features/business/calendar-feed.server";
import { servicesContext } from "~/platform/context";
import { ifNoneMatchIncludes } from "~/platform/http/conditional.server";

/**
 * The owner's calendar subscription (/calendar/<token>.ics), fetched by Google Calendar, Apple
 * Calendar and Outlook. A wrong or rotated token is 404, as any missing page. Calendars and
 * browsers may keep a copy but must ask again before using it (an ETag makes that cheap); shared
 * caches keep nothing, so a rotation is not outlived by a proxy's copy.
 */
export async function loader({ params, request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const body = await calendarFeedBody(services, params.file);
  const common = { "Cache-Control": "private, no-cache", "X-Robots-Tag": "noindex", "Referrer-Policy": "no-referrer" };
  if (body === null) {
    return new Response("Not found\n", {
      status: 404,
      headers: { ...common, "Cache-Control": "no-store", "Content-Type": "text/plain; charset=utf-8" },
    });
  }
  const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`;
  if (ifNoneMatchIncludes(request.headers.get("If-None-Match"), etag)) {
    return new Response(null, { status: 304, headers: { ...common, ETag: etag } });
  }
  return new Response(body, {
    headers: {
      ...common,
      ETag: etag,
      "Content-Type": "text/calendar; charset=utf-8",
      "Content-Disposition": 'inline; filename="bookings.ics"',
    },
  });
}
