import type { Route } from "./+types/telephony.events";
import { listRecentCalls } from "#models/calls";
import { requireAccount } from "~/server/auth.server";
import { servicesContext } from "~/server/context";

/**
 * Server-sent events for the control centre: a "calls" event whenever the signed-in account's
 * recent calls change (checked each second), for up to ten minutes per connection.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const services = context.get(servicesContext);
  const account = await requireAccount(context, request);
  const scope = account.role === "admin" ? {} : { businessId: account.businessId ?? -1 };
  const encoder = new TextEncoder();
  let last = "";
  const stream = new ReadableStream({
    async start(controller) {
      const send = (event: string, data: string) => controller.enqueue(encoder.encode(`event: ${event}\ndata: ${data}\n\n`));
      const started = Date.now();
      send("ready", "{}");
      while (!request.signal.aborted && Date.now() - started < 600_000) {
        const rows = await listRecentCalls(services.db, { ...scope, limit: 25 }).catch(() => []);
        const fingerprint = rows.map((c) => `${c.id}:${c.status}:${c.outcome ?? ""}`).join(",");
        if (fingerprint !== last) {
          if (last) send("calls", JSON.stringify({ changed: true }));
          last = fingerprint;
        }
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
      controller.close();
    },
  });
  return new Response(stream, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-store", Connection: "keep-alive" },
  });
}
