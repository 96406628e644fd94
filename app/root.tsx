import { data, Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteError, useRouteLoaderData } from "react-router";
import { useTranslation } from "~/ui/translation";
import type { Route } from "./+types/root";
import stylesheet from "./app.css?url";
import { useEffect } from "react";
import { isLanguage, textDirection } from "./i18n";
import { showLanguage } from "~/locales/load";
import { useNonce } from "~/ui/shell/nonce";
import { SiteFooter } from "~/ui/shell/site-footer";
import { SiteHeader } from "~/ui/shell/site-header";
import { ToastViewport } from "~/ui/toast";
import { usePageHydrates, usePageShell } from "~/ui/shell/shell";
import enhanceScript from "~/ui/enhance.js?url&no-inline";
import { ErrorPage } from "~/ui/shell/error-page";
import { OWNER_CONTENT_ID } from "~/ui/shell/owner-shell";
import { csrfTokenContext, servicesContext } from "~/platform/context";
import { noStoreMiddleware } from "~/platform/http/cache-control.server";
import { csrfMiddleware } from "~/platform/http/csrf.server";
import { publicEnv } from "~/platform/env.server";
import type { RootData } from "~/ui/shell/root-data";
import { likelyHelpCountry } from "~/lib/help-lines";
import { getLocale, i18nextMiddleware, persistLanguageMiddleware } from "~/platform/i18n.server";
import { toastContext, toastMiddleware } from "~/platform/http/toast.server";
import { retryAfterMiddleware } from "~/platform/security/rate-limit.server";
import { usePreloadedFont } from "~/ui/shell/fonts";

export const middleware: Route.MiddlewareFunction[] = [
  noStoreMiddleware,
  i18nextMiddleware,
  persistLanguageMiddleware,
  csrfMiddleware,
  toastMiddleware,
  retryAfterMiddleware,
];

export const links: Route.LinksFunction = () => [
  // With a precedence React writes the stylesheet before the scripts' modulepreloads: on a slow
  // phone connection the page's only render-blocking file no longer waits behind 160 kB of scripts.
  { rel: "stylesheet", href: stylesheet, precedence: "default" } as Route.LinkDescriptors[number],
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ request, url, context }: Route.LoaderArgs) {
  const { env } = context.get(servicesContext);
  const locale = getLocale(context);
  return data({
    locale,
    csrfToken: context.get(csrfTokenContext),
    toast: context.get(toastContext),
    publicEnv: publicEnv(env),
    helpCountry: likelyHelpCountry({
      chosen: url.searchParams.get("helpCountry"),
      acceptLanguage: request.headers.get("Accept-Language"),
      pageLanguage: locale,
    }),
  } satisfies RootData);
}

export function Layout({ children }: { children: React.ReactNode }) {
  const rootData = useRouteLoaderData<typeof loader>("root");
  const locale = rootData?.locale ?? "en";
  const nonce = useNonce();
  const { t, i18n } = useTranslation();
  const shell = usePageShell();
  const hydrates = usePageHydrates();
  // Every frame (site, owner's app, booking page) shows Latin text first.
  usePreloadedFont();
  const error = useRouteError();
  // The owner's app draws its tabs inside <main>: skipping lands after them. An error page has no tabs.
  const skipTarget = shell === "owner" && !error ? OWNER_CONTENT_ID : "main";
  // After a change of language without a page load, fetch that language's texts, then switch.
  useEffect(() => {
    if (isLanguage(locale)) void showLanguage(i18n, locale);
  }, [i18n, locale]);
  // From here on the page's own scripts handle links and forms (styles and tests can tell).
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return (
    <html lang={locale} dir={textDirection(locale)} data-enhanced={hydrates ? undefined : ""}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <Meta />
        <Links nonce={nonce} />
        {hydrates ? null : <script type="module" src={enhanceScript} nonce={nonce} />}
      </head>
      <body className="flex min-h-screen flex-col">
        <a
          href={`#${skipTarget}`}
          className="sr-only z-50 rounded-md bg-white px-4 py-2 font-medium text-teal-900 focus:not-sr-only focus:absolute focus:start-4 focus:top-4"
        >
          {t("nav.skipToContent")}
        </a>
        {/* The message of the last action comes first, in the flow of the page: it covers nothing, and its dismiss button is reached before the header. */}
        <ToastViewport toast={rootData?.toast ?? null} enhanced={!hydrates} />
        {shell === "public" ? <SiteHeader locale={locale} /> : null}
        <main id="main" tabIndex={-1} className="flex-1 focus:outline-none">
          {children}
        </main>
        {shell === "public" ? <SiteFooter /> : null}
        {hydrates ? (
          <>
            <ScrollRestoration nonce={nonce} />
            <Scripts nonce={nonce} />
          </>
        ) : null}
      </body>
    </html>
  );
}

export default function App() {
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  return <ErrorPage error={error} />;
}
