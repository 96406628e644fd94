import type { IncomingMessage, ServerResponse } from "node:http";
import { sql } from "drizzle-orm";
import type { AppServices } from "~/platform/services.server";

/** How long one database probe answers for: load balancers may ask many times a second. */
const PROBE_TTL_MS = 1000;

interface Answer {
  status: 200 | 503;
  body: string;
}

/**
 * GET /healthz for load balancers and uptime checks: 200 when the database answers, 503
 * otherwise. It answers in front of Express (no router, headers middleware, session or
 * rendering) and probes the database at most once a second, however often it is asked; the
 * answer's bytes are made once per probe. Returns false for any other request.
 */
export function healthCheck(services: Pick<AppServices, "db" | "database">) {
  let last: { at: number; answer: Promise<Answer> } | null = null;
  async function probe(): Promise<Answer> {
    const started = performance.now();
    let database: object;
    try {
      await services.db.execute(sql`select 1`);
      database = { kind: services.database.kind, reachable: true, latencyMs: Math.round(performance.now() - started) };
    } catch (error) {
      database = { kind: services.database.kind, reachable: false, error: (error as Error).message };
    }
    const reachable = "latencyMs" in database;
    return { status: reachable ? 200 : 503, body: JSON.stringify({ status: reachable ? "ok" : "error", database }) };
  }
  return function answerHealth(req: IncomingMessage, res: ServerResponse) {
    if (req.method !== "GET" && req.method !== "HEAD") return false;
    const url = req.url ?? "";
    if (url !== "/healthz" && !url.startsWith("/healthz?")) return false;
    const now = Date.now();
    if (!last || now - last.at > PROBE_TTL_MS) last = { at: now, answer: probe() };
    void last.answer.then(({ status, body }) => {
      res.writeHead(status, {
        "Content-Type": "application/json; charset=utf-8",
        "Content-Length": Buffer.byteLength(body),
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      });
      res.end(req.method === "HEAD" ? undefined : body);
    });
    return true;
  };
}
