import type { Route } from "./+types/telephony.events";
import { listRecentCalls } from "#models/calls";
import { getAccount, requireAccount, sessionKey } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { EVENT_STREAMS_PER_SESSION, holdLiveSlot, tooManyStreams } from "~/platform/data/live-limit.server";

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
  // The loop ends as soon as the page goes away, whichever is seen first: the request's abort or
  // the stream's cancel (under load one can come well after the other), and a pending wait wakes.
  const gone = new AbortController();
  const leave = () => gone.abort();
  request.signal.addEventListener("abort", leave, { once: true });
  if (request.signal.aborted) leave();
  let last = "";
  const stream = new ReadableStream({
    async start(controller) {
      const send = (event: string, data: string) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${data}\n\n`));
      const started = Date.now();
      let sessionCheckedAt = started;
      try {
        send("ready", "{}");
        while (!gone.signal.aborted && Date.now() - started < 600_000) {
          if (Date.now() - sessionCheckedAt >= SESSION_CHECK_MS) {
            sessionCheckedAt = Date.now();
            if (!(await getAccount(context, request).catch(() => null))) break;
          }
          const rows = await listRecentCalls(services.db, { ...scope, limit: 25 }).catch(() => []);
          const fingerprint = rows.map((c) => `${c.id}:${c.status}:${c.outcome ?? ""}:${c.summary ? 1 : 0}`).join(",");
          if (gone.signal.aborted) break;
          if (fingerprint !== last) {
            if (last) send("calls", JSON.stringify({ changed: true }));
            last = fingerprint;
          }
          await pause(1000, gone.signal);
        }
        if (!gone.signal.aborted) controller.close();
      } catch {
        // The reader went away between the check and the send: nothing left to send to.
      } finally {
        // However the stream ends (its time is up, the session ended, the reader went away), its place frees.
        request.signal.removeEventListener("abort", leave);
        await slot.release();
      }
    },
    cancel() {
      leave();
    },
  });
  return new Response(stream, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive" },
  });
}

/** Waits `ms`, or less if `signal` aborts first. */
function pause(ms: number, signal: AbortSignal) {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
