import { sql } from "drizzle-orm";
import type { RequestHandler } from "express";
import type { AppServices } from "~/platform/services.server";

/** How long one database probe answers for: load balancers may ask many times a second. */
const PROBE_TTL_MS = 1000;

type Probe = { reachable: true; latencyMs: number } | { reachable: false; error: string };

/**
 * GET /healthz for load balancers and uptime checks: 200 when the database answers, 503
 * otherwise. It sits in front of the page router (no session, cookies or rendering) and probes
 * the database at most once a second, however often it is asked.
 */
export function healthCheck(services: Pick<AppServices, "db" | "database">): RequestHandler {
  let last: { at: number; probe: Promise<Probe> } | null = null;
  async function probe(): Promise<Probe> {
    const started = performance.now();
    try {
      await services.db.execute(sql`select 1`);
      return { reachable: true, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      return { reachable: false, error: (error as Error).message };
    }
  }
  return async (req, res, next) => {
    if (req.path !== "/healthz") return next();
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const now = Date.now();
    if (!last || now - last.at > PROBE_TTL_MS) last = { at: now, probe: probe() };
    const database = await last.probe;
    res
      .status(database.reachable ? 200 : 503)
      .set("Cache-Control", "no-store")
      .json({ status: database.reachable ? "ok" : "error", database: { kind: services.database.kind, ...database } });
  };
}
