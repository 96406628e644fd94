import { sql } from "drizzle-orm";
import type { Route } from "./+types/healthz";
import { servicesContext } from "~/platform/context";

/** For load balancers and uptime checks: 200 when the database answers, 503 otherwise. */
export async function loader({ context }: Route.LoaderArgs) {
  const { db, database } = context.get(servicesContext);
  const started = performance.now();
  try {
    await db.execute(sql`select 1`);
    return Response.json(
      { status: "ok", database: { kind: database.kind, reachable: true, latencyMs: Math.round(performance.now() - started) } },
      { headers: { "Cache-Control": "no-store" } },
    );
  } catch (error) {
    return Response.json(
      { status: "error", database: { kind: database.kind, reachable: false, error: (error as Error).message } },
      { status: 503, headers: { "Cache-Control": "no-store" } },
    );
  }
}
