import type { Route } from "./+types/dashboard.analytics.events";
import { getAccount, sessionKey } from "~/features/auth/auth.server";
import { followBusiness } from "~/features/analytics/live.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { EVENT_STREAMS_PER_SESSION, holdLiveSlot, tooManyStreams } from "~/platform/data/live-limit.server";

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
  if (!slot) return tooManyStreams(getI18n(context).t("common.tooManyStreams"));

  const encoder = new TextEncoder();
  let finish = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (text: string) => {
        if (open) controller.enqueue(encoder.encode(text));
      };
      const follow = await followBusiness(services, businessId, () => send("event: change\ndata: {}\n\n"));
      const heartbeat = setInterval(() => {
        void getAccount(context, request)
          .catch(() => null)
          .then((still) => (still?.businessId === businessId ? send(": heartbeat\n\n") : finish()));
      }, HEARTBEAT_MS);
      const lifetime = setTimeout(() => finish(), STREAM_LIFETIME_MS);
      finish = () => {
        if (!open) return;
        open = false;
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        follow.stop();
        void slot.release();
        try {
          controller.close();
        } catch {
          // Already cancelled by the reader (the browser went away): nothing left to close.
        }
      };
      request.signal.addEventListener("abort", () => finish(), { once: true });
      send(`retry: 5000\nevent: ready\ndata: ${JSON.stringify({ live: follow.listening })}\n\n`);
      if (request.signal.aborted) finish();
    },
    cancel() {
      finish();
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      // no-transform: the compression middleware would hold events back in its buffer.
      "Cache-Control": "no-store, no-transform",
      "X-Accel-Buffering": "no",
    },
  });
}
