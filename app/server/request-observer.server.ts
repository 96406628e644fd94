import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { matchRoutes as MatchRoutes, ServerBuild } from "react-router";
import { log, withLogContext } from "~/platform/observability/log.server";
import { httpRequestDuration } from "~/platform/observability/metrics.server";

// The react-router module the rest of the server loads (see http.server.ts).
const { matchRoutes } = createRequire(import.meta.url)("react-router") as { matchRoutes: typeof MatchRoutes };

interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children: RouteNode[];
}

/** The build's flat route manifest as the nested routes matchRoutes takes. */
function routeTree(build: ServerBuild): RouteNode[] {
  const nodes = new Map<string, RouteNode & { parentId?: string }>();
  for (const route of Object.values(build.routes)) {
    if (!route) continue;
    nodes.set(route.id, {
      id: route.id,
      ...(route.path !== undefined ? { path: route.path } : {}),
      ...(route.index ? { index: true } : {}),
      ...(route.caseSensitive ? { caseSensitive: true } : {}),
      ...(route.parentId ? { parentId: route.parentId } : {}),
      children: [],
    });
  }
  const roots: RouteNode[] = [];
  for (const node of nodes.values()) {
    const parent = node.parentId ? nodes.get(node.parentId) : undefined;
    (parent ? parent.children : roots).push(node);
  }
  return roots;
}

/**
 * A request's route pattern ("/book/:link", "/assets/*"), never its URL: the label of the HTTP
 * metrics, whose number of values is the number of routes.
 */
export function routePatterns(build: ServerBuild | (() => Promise<ServerBuild>)) {
  let tree: RouteNode[] | null = null;
  let loaded: ServerBuild | null = null;
  const load = async () => {
    const current = typeof build === "function" ? await build() : build;
    if (current !== loaded) {
      loaded = current;
      tree = routeTree(current);
    }
  };
  void load().catch(() => {});
  return (pathname: string): string => {
    if (typeof build === "function") void load().catch(() => {});
    if (pathname === "/healthz") return "/healthz";
    if (pathname.startsWith("/assets/")) return "/assets/*";
    if (pathname === "/__manifest") return "/__manifest";
    if (!tree) return "other";
    // A page's data request (React Router's single fetch) is the page's route, marked as data.
    const data = pathname.endsWith(".data");
    const path = data ? pathname.slice(0, -".data".length).replace(/\/_root$/, "/") || "/" : pathname;
    // A path whose escapes decode to no text is matched as the literal it is (as request-handler.server.ts does), without React Router's warning.
    const matches = matchRoutes(tree as Parameters<typeof matchRoutes>[0], decodes(path) ? path : path.replaceAll("%", "%25"));
    if (!matches || matches.length === 0) return "unmatched";
    const pattern = `/${matches
      .map((match) => match.route.path)
      .filter((part): part is string => Boolean(part))
      .join("/")}`.replace(/\/+/g, "/");
    return data ? `${pattern}.data` : pattern;
  };
}

/** An id an upstream proxy gave (nginx's $request_id): short and plain, or a new one is made. */
function requestIdOf(request: IncomingMessage) {
  const given = request.headers["x-request-id"];
  return typeof given === "string" && /^[\w.:-]{1,128}$/.test(given) ? given : randomUUID();
}

/**
 * Around every request: its id (nginx's X-Request-Id, or a new one), echoed in the response and
 * carried by every line logged while it is served; once answered, its time in
 * sakina_http_request_duration_seconds by method, route pattern and status, and a debug line.
 */
export function observeRequests(handler: RequestListener, routeOf: (pathname: string) => string): RequestListener {
  return (request: IncomingMessage, response: ServerResponse) => {
    const started = process.hrtime.bigint();
    const requestId = requestIdOf(request);
    response.setHeader("X-Request-Id", requestId);
    const done = () => {
      response.off("finish", done);
      response.off("close", done);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const pathname = (request.url ?? "/").split("?")[0] ?? "/";
      const route = routeOf(pathname);
      const method = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].includes(request.method ?? "")
        ? request.method!
        : "OTHER";
      // A response cut before its headers went (the visitor left) has no status of its own.
      const status = response.headersSent ? String(response.statusCode) : "aborted";
      httpRequestDuration.observe({ method, route, status }, seconds);
      if (log.isLevelEnabled("debug")) log.debug({ requestId, method, route, status, ms: Math.round(seconds * 1000) }, "request");
    };
    response.once("finish", done);
    response.once("close", done);
    withLogContext({ requestId }, () => handler(request, response));
  };
}

function decodes(path: string) {
  try {
    // The result is used: a bundler may drop a call whose value is not.
    return typeof decodeURIComponent(path) === "string";
  } catch {
    return false;
  }
}
