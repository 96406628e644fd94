import type { Route } from "./+types/telephony.events";
import { listRecentCalls } from "#models/calls";
import { getAccount, requireAccount, sessionKey } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { EVENT_STREAMS_PER_SESSION, holdLiveSlot, tooManyStreams } from "~/platform/live-limit.server";

const SESSION_CHECK_MS = 5000;

/**
 * Server-sent events for the control centre: a "calls" event whenever the signed-in account's
 * recent calls change (checked each second), for up to ten minutes per connection, and only while
 * the session lasts (checked every few seconds): a logout elsewhere closes the stream. Each one
 * queries every second, so a session keeps at most EVENT_STREAMS_PER_SESSION open (counted in the
 * database); one more is answered 429.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request);
  const scope = account.role === "admin" ? {} : { businessId: account.businessId ?? -1 };
  const slot = await holdLiveSlot(services, {
    name: "events:telephony",
    subject: (await sessionKey(services, request))!,
    limit: EVENT_STREAMS_PER_SESSION,
  });
  if (!slot) return tooManyStreams(getI18n(context).t("common.tooManyStreams"));
  const encoder = new TextEncoder();
  let last = "";
  const stream = new ReadableStream({
    async start(controller) {
      const send = (event: string, data: string) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${data}\n\n`));
      const started = Date.now();
      let sessionCheckedAt = started;
      try {
        send("ready", "{}");
        while (!request.signal.aborted && Date.now() - started < 600_000) {
          if (Date.now() - sessionCheckedAt >= SESSION_CHECK_MS) {
            sessionCheckedAt = Date.now();
            if (!(await getAccount(context, request).catch(() => null))) break;
          }
          const rows = await listRecentCalls(services.db, { ...scope, limit: 25 }).catch(() => []);
          const fingerprint = rows.map((c) => `${c.id}:${c.status}:${c.outcome ?? ""}:${c.summary ? 1 : 0}`).join(",");
          if (fingerprint !== last) {
            if (last) send("calls", JSON.stringify({ changed: true }));
            last = fingerprint;
          }
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
        controller.close();
      } finally {
        // However the stream ends (its time is up, the session ended, the reader went away), its place frees.
        await slot.release();
      }
    },
  });
  return new Response(stream, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive" },
  });
}
