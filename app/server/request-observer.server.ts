import { rememberedValues } from "~/lib/sharing/remembered";
import { randomUUID } from "node:crypto";
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { createRequire } from "node:module";
import type { matchRoutes as MatchRoutes, ServerBuild } from "react-router";
import { log, withLogContext } from "~/platform/observability/log.server";
import { httpRequestDuration } from "~/platform/observability/metrics.server";

// The react-router module the rest of the server loads (see http.server.ts).
const { matchRoutes } = createRequire(import.meta.url)("react-router") as { matchRoutes: typeof MatchRoutes };

export interface RouteNode {
  id: string;
  path?: string;
  index?: boolean;
  caseSensitive?: boolean;
  children: RouteNode[];
}

/** The build's flat route manifest as the nested routes matchRoutes takes. */
export function routeTree(build: ServerBuild): RouteNode[] {
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

type Routes = Parameters<typeof matchRoutes>[0];

/**
 * The tree as one level of routes, each with its whole path, bucketed by its first segment.
 *
 * matchRoutes flattens, ranks and compiles every route of the tree on each call (about a hundred
 * here): an eighth of a page's CPU when it ran for every request's label. A path can only match a
 * route whose first segment is that path's own first segment, or one that starts with a parameter
 * or a splat; so each request is matched against its bucket plus those, a handful of routes. The
 * routes are listed as React Router flattens them (children before their parent, in order), so
 * its ranking of a bucket orders them as it orders the whole tree, and the label is the same
 * (tests/unit/route-patterns.test.ts compares both on every route of the build).
 */
function bucketRoutes(tree: RouteNode[]) {
  const flat: { path: string; index?: boolean; caseSensitive?: boolean }[] = [];
  const visit = (nodes: RouteNode[], parentPath: string) => {
    for (const node of nodes) {
      const path = node.path === undefined ? parentPath : node.path.startsWith("/") ? node.path : `${parentPath}/${node.path}`;
      visit(node.children, path);
      if (node.path === undefined && !node.index) continue;
      flat.push({
        path: path.replace(/\/+/g, "/") || "/",
        ...(node.index ? { index: true } : {}),
        ...(node.caseSensitive ? { caseSensitive: true } : {}),
      });
    }
  };
  visit(tree, "");
  const firstSegment = (path: string) => path.split("/").find((part) => part !== "") ?? "";
  const anywhere = flat.filter((route) => /^[:*]/.test(firstSegment(route.path)) || firstSegment(route.path).endsWith("?"));
  const buckets = new Map<string, Routes>();
  for (const route of flat) {
    const first = firstSegment(route.path).toLowerCase();
    if (anywhere.includes(route)) continue;
    if (!buckets.has(first))
      buckets.set(first, flat.filter((other) => anywhere.includes(other) || firstSegment(other.path).toLowerCase() === first) as Routes);
  }
  const rest = anywhere as Routes;
  // React Router matches the decoded path ("/b%6Fok" is "/book").
  return (path: string): Routes => buckets.get(decodedOrSelf(firstSegment(path)).toLowerCase()) ?? rest;
}

/**
 * A request's route pattern ("/book/:link", "/assets/*"), never its URL: the label of the HTTP
 * metrics, whose number of values is the number of routes.
 */
export function routePatterns(build: ServerBuild | (() => Promise<ServerBuild>)) {
  let label: ((path: string) => string) | null = null;
  let loaded: ServerBuild | null = null;
  const load = async () => {
    const current = typeof build === "function" ? await build() : build;
    if (current !== loaded) {
      loaded = current;
      label = routeLabeller(routeTree(current));
    }
  };
  void load().catch(() => {});
  return (pathname: string): string => {
    if (typeof build === "function") void load().catch(() => {});
    if (pathname === "/healthz") return "/healthz";
    if (pathname.startsWith("/assets/")) return "/assets/*";
    if (pathname === "/__manifest") return "/__manifest";
    if (!label) return "other";
    // A page's data request (React Router's single fetch) is the page's route, marked as data.
    const data = pathname.endsWith(".data");
    const path = data ? pathname.slice(0, -".data".length).replace(/\/_root$/, "/") || "/" : pathname;
    const pattern = label(path);
    return data && pattern !== "unmatched" ? `${pattern}.data` : pattern;
  };
}

/** The pattern of the route a path matches in `tree` ("unmatched" for none), as matchRoutes finds it. */
export function routeLabeller(tree: RouteNode[]) {
  const candidates = bucketRoutes(tree);
  // The paths asked most (a page every visitor opens) answered from memory: matchRoutes flattens
  // and ranks its routes on every call. Bounded, so many one-off paths only empty it now and then.
  const known = rememberedValues<string>(1_000);
  return (path: string): string =>
    known(path, () => {
      // A path whose escapes decode to no text is matched as the literal it is (as request-handler.server.ts does), without React Router's warning.
      const literal = decodes(path) ? path : path.replaceAll("%", "%25");
      const matches = matchRoutes(candidates(literal), literal);
      if (!matches || matches.length === 0) return "unmatched";
      return `/${matches
        .map((match) => match.route.path)
        .filter((part): part is string => Boolean(part))
        .join("/")}`.replace(/\/+/g, "/");
    });
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

function decodedOrSelf(segment: string) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function decodes(path: string) {
  try {
    // The result is used: a bundler may drop a call whose value is not.
    return typeof decodeURIComponent(path) === "string";
  } catch {
    return false;
  }
}
