import type { Route } from "./+types/telephony.events";
import { listRecentCalls } from "#models/calls";
import { getAccount, requireAccount, sessionKey } from "~/features/auth/auth.server";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { EVENT_STREAMS_PER_SESSION, holdLiveSlot, tooManyStreams } from "~/platform/data/live-limit.server";
import { liveStream, pause } from "~/platform/http/live-stream.server";

const SESSION_CHECK_MS = 5000;

/**
 * Server-sent events for the control centre: a "calls" event whenever the signed-in account's
 * recent calls change (checked each second), for up to ten minutes per connection, and only while
 * the session lasts (checked every few seconds): a logout elsewhere closes the stream. Each one
 * queries every second, so a session keeps at most EVENT_STREAMS_PER_SESSION open (counted in the
 * database); one more is answered 429.
 */
export async function loader({ request, url, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request, url);
  const scope = account.role === "admin" ? {} : { businessId: account.businessId ?? -1 };
  const slot = await holdLiveSlot(services, {
    name: "events:telephony",
    subject: (await sessionKey(services, request))!,
    limit: EVENT_STREAMS_PER_SESSION,
  });
  if (!slot) return tooManyStreams(getT(context)("common.tooManyStreams"));
  let last = "";
  return liveStream(
    request,
    () => slot.release(),
    async (stream) => {
      const started = Date.now();
      let sessionCheckedAt = started;
      stream.send("ready", "{}");
      while (!stream.signal.aborted && Date.now() - started < 600_000) {
        if (Date.now() - sessionCheckedAt >= SESSION_CHECK_MS) {
          sessionCheckedAt = Date.now();
          if (!(await getAccount(context, request).catch(() => null))) break;
        }
        const rows = await listRecentCalls(services.db, { ...scope, limit: 25 }).catch(() => []);
        const fingerprint = rows.map((c) => `${c.id}:${c.status}:${c.outcome ?? ""}:${c.summary ? 1 : 0}`).join(",");
        if (stream.signal.aborted) break;
        if (fingerprint !== last) {
          if (last) stream.send("calls", JSON.stringify({ changed: true }));
          last = fingerprint;
        }
        await pause(1000, stream.signal);
      }
      // However the loop ends (its time is up, the session ended, the reader went away), the stream ends and its place frees.
      stream.end();
    },
  );
}
