import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import {
  createStaticHandler,
  createStaticRouter,
  Link as RouterLink,
  NavLink as RouterNavLink,
  Outlet,
  StaticRouterProvider,
} from "react-router";
import { describe, expect, it } from "vitest";
import { Link, NavLink, PageHydratesContext } from "./link";

/** `children` as the page at `url` renders them (under a route with a parameter and children, as the app's are). */
async function renderAt(url: string, children: ReactNode, hydrates: boolean) {
  const page = () => children;
  const handler = createStaticHandler([
    {
      id: "book",
      path: "/book/:link",
      Component: () => <Outlet />,
      children: [
        { id: "step", path: "step", Component: page },
        { id: "start", index: true, Component: page },
      ],
    },
    { id: "other", path: "*", Component: page },
  ]);
  const context = await handler.query(new Request(`http://localhost${url}`));
  if (context instanceof Response) throw new Error("no page");
  const router = createStaticRouter(handler.dataRoutes, context);
  return renderToString(
    <PageHydratesContext value={hydrates}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </PageHydratesContext>,
  );
}

const TARGETS = [
  "/",
  "/business",
  "/faq#who",
  "/book/demo-salon?service=1&tz=Europe%2FBerlin&clock=24",
  "/privacy/",
  "/a//b",
  "/a/./b",
  "/a/../b",
  "/a/.",
  "step",
  "../x",
  "?month=2026-12",
  "#top",
  "/q?",
  "/h#",
  "//elsewhere.example/x",
  "https://elsewhere.example/x",
  "mailto:someone@example.com",
  "/café",
  "/a b",
  "/%2e%2e/x",
  "/a\\b",
  "",
];

const PAGES = ["/", "/book/demo-salon?service=1", "/book/demo-salon/step", "/Business/", "/business/more", "/privacy"];

describe("a link on a page that loads no React", () => {
  it("is written as React Router writes it, for any address and props", async () => {
    for (const page of PAGES) {
      for (const to of TARGETS) {
        for (const props of [
          {},
          { className: "link", "aria-label": "Go", id: "x" },
          { target: "_blank", rel: "noopener" },
          { discover: "none" as const },
          { reloadDocument: true, replace: true, state: { a: 1 }, preventScrollReset: true },
          { prefetch: "intent" as const },
          { relative: "path" as const },
        ]) {
          const router = await renderAt(page, <RouterLink to={to} {...props}>{`to ${to}`}</RouterLink>, false);
          expect(await renderAt(page, <Link to={to} {...props}>{`to ${to}`}</Link>, false)).toBe(router);
          expect(await renderAt(page, <Link to={to} {...props}>{`to ${to}`}</Link>, true)).toBe(router);
        }
      }
      const object = { pathname: "/business", search: "?a=1" };
      expect(await renderAt(page, <Link to={object}>x</Link>, false)).toBe(
        await renderAt(page, <RouterLink to={object}>x</RouterLink>, false),
      );
    }
  });

  it("is marked as the current page, and styled so, as React Router's NavLink marks it", async () => {
    const look = ({ isActive }: { isActive: boolean }) => (isActive ? "here" : "there");
    for (const page of PAGES) {
      for (const to of TARGETS) {
        for (const props of [
          {},
          { className: look },
          { className: "nav", end: true },
          { className: "nav", caseSensitive: true },
          { style: ({ isActive }: { isActive: boolean }) => ({ fontWeight: isActive ? 700 : 400 }), "aria-current": "true" as const },
          { target: "_self", discover: "none" as const },
        ]) {
          const router = await renderAt(
            page,
            <RouterNavLink to={to} {...props}>
              {({ isActive }) => `${to} ${isActive}`}
            </RouterNavLink>,
            false,
          );
          expect(
            await renderAt(
              page,
              <NavLink to={to} {...props}>
                {({ isActive }) => `${to} ${isActive}`}
              </NavLink>,
              false,
            ),
          ).toBe(router);
        }
      }
    }
  });
});
