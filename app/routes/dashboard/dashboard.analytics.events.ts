import type { Route } from "./+types/dashboard.analytics.events";
import { getAccount, sessionKey } from "~/features/auth/auth.server";
import { followBusiness } from "~/features/analytics/live.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { EVENT_STREAMS_PER_SESSION, holdLiveSlot, tooManyStreams } from "~/platform/data/live-limit.server";
import { liveStream } from "~/platform/http/live-stream.server";

/** A comment line every so often keeps proxies from closing an idle stream, and checks the session. */
const HEARTBEAT_MS = 25_000;
/** A stream ends after this; the browser's EventSource opens a new one (signed in again) at once. */
const STREAM_LIFETIME_MS = 30 * 60_000;

/**
 * Server-sent events for the owner's analytics page: "ready" once, then "change" whenever a
 * booking or confirmation call of the signed-in owner's own business changes (the business comes
 * from the session, never from the request). No query runs while nothing changes, apart from the
 * session check with each heartbeat; a logout ends the stream at the next one. A session keeps at
 * most EVENT_STREAMS_PER_SESSION open, counted in the database; one more is answered 429.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await getAccount(context, request);
  if (!account) return new Response(null, { status: 401, headers: { "Cache-Control": "no-store" } });
  const businessId = account.businessId;
  if (!businessId || account.mustChangePassword) return new Response(null, { status: 403, headers: { "Cache-Control": "no-store" } });
  const slot = await holdLiveSlot(services, {
    name: "events:analytics",
    subject: (await sessionKey(services, request))!,
    limit: EVENT_STREAMS_PER_SESSION,
  });
  if (!slot) return tooManyStreams(getT(context)("common.tooManyStreams"));

  return liveStream(
    request,
    () => slot.release(),
    async (stream) => {
      const follow = await followBusiness(services, businessId, () => stream.send("change", "{}"));
      const heartbeat = setInterval(() => {
        void getAccount(context, request)
          .catch(() => null)
          .then((still) => (still?.businessId === businessId ? stream.write(": heartbeat\n\n") : stream.end()));
      }, HEARTBEAT_MS);
      const lifetime = setTimeout(() => stream.end(), STREAM_LIFETIME_MS);
      stream.defer(() => {
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        follow.stop();
      });
      stream.write(`retry: 5000\nevent: ready\ndata: ${JSON.stringify({ live: follow.listening })}\n\n`);
    },
  );
}
