import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import {
  createStaticHandler,
  createStaticRouter,
  Form as RouterForm,
  Link as RouterLink,
  NavLink as RouterNavLink,
  Outlet,
  StaticRouterProvider,
} from "react-router";
import { describe, expect, it } from "vitest";
import { Form, Link, NavLink, ServerRenderContext } from "./link";

/**
 * `children` as the page at `url` renders them (under a route with a parameter and children, as
 * the app's are), on the server (`onServer`: app/entry.server.tsx's render) or as the browser does.
 */
async function renderAt(url: string, children: ReactNode, onServer: boolean) {
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
    <ServerRenderContext value={onServer}>
      <StaticRouterProvider router={router} context={context} hydrate={false} />
    </ServerRenderContext>,
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

const PAGES = [
  "/",
  "/book/demo-salon?service=1",
  "/book/demo-salon?index=&a=1&index=2",
  "/book/demo-salon/step?index",
  "/book/demo-salon/step",
  "/Business/",
  "/business/more?",
  "/privacy",
];

describe("a link or a form in the server's render", () => {
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
          expect(await renderAt(page, <Link to={to} {...props}>{`to ${to}`}</Link>, true)).toBe(router);
          expect(await renderAt(page, <Link to={to} {...props}>{`to ${to}`}</Link>, false)).toBe(router);
        }
      }
      const object = { pathname: "/business", search: "?a=1" };
      expect(await renderAt(page, <Link to={object}>x</Link>, true)).toBe(
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
              true,
            ),
          ).toBe(router);
        }
      }
    }
  });

  it("is a form written as React Router writes it, for any action and props", async () => {
    for (const page of PAGES) {
      for (const action of [...TARGETS, undefined]) {
        for (const props of [
          {},
          { method: "post" as const, noValidate: true, className: "form", id: "f" },
          { method: "POST" as const, "aria-labelledby": "t" },
          { method: "get" as const, discover: "none" as const },
          { reloadDocument: true, replace: true, navigate: false, fetcherKey: "k", preventScrollReset: true, onSubmit: () => {} },
          { relative: "path" as const, encType: "multipart/form-data" as const },
        ]) {
          const router = await renderAt(
            page,
            <RouterForm action={action} {...props}>
              <input name="x" />
            </RouterForm>,
            false,
          );
          for (const onServer of [true, false]) {
            expect(
              await renderAt(
                page,
                <Form action={action} {...props}>
                  <input name="x" />
                </Form>,
                onServer,
              ),
            ).toBe(router);
          }
        }
      }
    }
  });
});
