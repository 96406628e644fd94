import { createRequire } from "node:module";
import type { matchRoutes as MatchRoutes } from "react-router";
import { describe, expect, it } from "vitest";
import routeConfig from "~/routes";
import { routeLabeller, type RouteNode } from "~/server/request-observer.server";
import { distinctPaths, type RouteEntry } from "../support/route-fuzz";

const { matchRoutes } = createRequire(import.meta.url)("react-router") as { matchRoutes: typeof MatchRoutes };

interface ConfigEntry extends RouteEntry {
  id?: string;
  file: string;
  caseSensitive?: boolean;
  children?: ConfigEntry[];
}

/** app/routes.ts as the nested routes of a build (what routeTree makes of build.routes). */
function tree(entries: ConfigEntry[]): RouteNode[] {
  return entries.map((entry) => ({
    id: entry.id ?? entry.file,
    ...(entry.path !== undefined ? { path: entry.path } : {}),
    ...(entry.index ? { index: true } : {}),
    ...(entry.caseSensitive ? { caseSensitive: true } : {}),
    children: tree(entry.children ?? []),
  }));
}

const routes: RouteNode[] = [{ id: "root", path: "", children: tree(routeConfig as ConfigEntry[]) }];

/** What matchRoutes says over the whole tree: the label before the labeller matched buckets. */
function reference(path: string) {
  let literal = path;
  try {
    decodeURIComponent(path);
  } catch {
    literal = path.replaceAll("%", "%25");
  }
  const matches = matchRoutes(routes as Parameters<typeof matchRoutes>[0], literal);
  if (!matches || matches.length === 0) return "unmatched";
  return `/${matches
    .map((match) => match.route.path)
    .filter(Boolean)
    .join("/")}`.replace(/\/+/g, "/");
}

describe("the HTTP metrics' route label", () => {
  const patterns = distinctPaths(routeConfig as RouteEntry[]);
  const filled = patterns.flatMap((pattern) => {
    const one = pattern.replace(/:[\w-]+\??/g, "x1").replace(/\*$/, "a/b");
    return [one, one.toUpperCase(), `${one}/extra`, one.replace(/x1/g, "%41%zz")];
  });
  const odd = [
    "/",
    "",
    "/nope",
    "//book//demo",
    "/b%6Fok/demo-salon",
    "/%E0%A4%A",
    "/book",
    "/dashboard/",
    "/dashboard/bookings/12/",
    "/a/b/c/d/e/f",
  ];

  it("is matchRoutes' answer over the whole tree, for every route of app/routes.ts and odd paths", () => {
    const label = routeLabeller(routes);
    expect(patterns.length).toBeGreaterThan(50);
    const differing = [...filled, ...odd]
      .filter((path) => label(path) !== reference(path))
      .map((path) => `${path}: ${label(path)} ≠ ${reference(path)}`);
    expect(differing).toEqual([]);
    // It names routes, not URLs.
    expect(label("/book/demo-salon")).toBe("/book/:bookingLink");
  });
});
