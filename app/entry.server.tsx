import { renderToString } from "react-dom/server";
import { I18nextProvider } from "react-i18next";
import { isRouteErrorResponse, ServerRouter, type EntryContext, type HandleErrorFunction, type RouterContextProvider } from "react-router";
import { NonceProvider } from "~/ui/shell/nonce";
import { nonceContext } from "~/platform/context";
import { getI18n } from "~/platform/i18n.server";
import { errorFields, log } from "~/platform/observability/log.server";
import { pageHydrates } from "~/ui/shell/shell";
import { wholeResponse } from "~/platform/http/whole-body.server";
import { ServerRenderContext } from "~/ui/link";

export const streamTimeout = 5_000;

const utf8 = new TextEncoder();

/**
 * Logs what went wrong on the server. A client's mistake answered with a 4xx (a POST to a page
 * that takes none is a 405) is not the server's failure, and an aborted request is no error.
 */
export const handleError: HandleErrorFunction = (error, { request }) => {
  if (request.signal.aborted) return;
  if (isRouteErrorResponse(error) && error.status < 500) return;
  log.error(errorFields(error), "A request failed");
};

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
) {
  if (request.method.toUpperCase() === "HEAD") {
    return new Response(null, { status: responseStatusCode, headers: responseHeaders });
  }
  const nonce = loadContext.get(nonceContext);
  const i18n = getI18n(loadContext);
  // Links and forms are written as their plain markup (app/ui/link.tsx), on every page.
  const pageWith = (context: EntryContext) => (
    <NonceProvider value={nonce}>
      <I18nextProvider i18n={i18n}>
        <ServerRenderContext value>
          <ServerRouter context={context} url={request.url} nonce={nonce} />
        </ServerRenderContext>
      </I18nextProvider>
    </NonceProvider>
  );

  // Every page is rendered to one string, as the bench's floor is, and sent whole: React's
  // streaming renderer copies every chunk into bytes as it goes (a fifth of a page's render, and
  // of the owner's dashboard). Nothing of the app's suspends. A page that loads no React (ADR 0016:
  // every public page, the booking steps) has no hydration data to carry (React Router's
  // StreamTransfer renders nothing without <Scripts>) and needs only its own routes; a page that
  // hydrates carries its loader data in React Router's stream (turbo-stream), read whole first
  // (deferred data waits up to streamTimeout, as React's onAllReady would) and handed over settled.
  const hydrates = pageHydrates(routeMatchesOf(routerContext));
  return (hydrates ? handoffRead(routerContext) : Promise.resolve(withPageRoutes(routerContext))).then((context) => {
    const html = renderToString(pageWith(context));
    // The rule above is the one the page's <Layout> follows (usePageHydrates): a page that rendered
    // <Scripts> anyway would lack its hydration data.
    if (!hydrates && context.renderMeta?.didRenderScripts) throw new Error("a page without React rendered <Scripts>");
    responseHeaders.set("Content-Type", "text/html; charset=utf-8");
    return wholeResponse(utf8.encode(`<!DOCTYPE html>${html}`), { headers: responseHeaders, status: responseStatusCode });
  });
}

/**
 * The context with its hydration stream read whole and settled in the cache StreamTransfer reads
 * (renderMeta.streamCache: entry 0 the whole text, entry 1 its end), so it renders without
 * suspending: the same scripts the browser's stream controller is given, in one piece.
 */
async function handoffRead(context: EntryContext): Promise<EntryContext> {
  const stream = context.serverHandoffStream;
  if (!stream) return context;
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  for (let part = await reader.read(); !part.done; part = await reader.read()) text += decoder.decode(part.value, { stream: true });
  text += decoder.decode();
  reader.releaseLock();
  const settled = (result: { done: boolean; value: string }) => Object.assign(Promise.resolve(), { result });
  const renderMeta = {
    ...context.renderMeta,
    streamCache: { 0: settled({ done: false, value: text }), 1: settled({ done: true, value: "" }) },
  };
  return { ...context, renderMeta };
}

/**
 * The page as it renders without React in the browser, with only its own routes (the matched ones
 * and their parents) in the manifest ServerRouter reads. ServerRouter turns every route of the
 * manifest into a route object and a data route on each render, about a hundred here, though a
 * page that loads no React uses only its own: 3.6 % of the returning visitor's `/` in a profile,
 * 0.9 % after (2026-12-02). The markup is the same byte for byte (21 pages compared, tokens aside,
 * bench/README.md); a page that hydrates keeps the whole manifest, which its scripts carry to the
 * browser.
 */
function withPageRoutes(context: EntryContext): EntryContext {
  const all = context.manifest.routes;
  const routes: typeof all = {};
  for (const match of context.staticHandlerContext.matches) {
    for (let id: string | undefined = match.route.id; id && !routes[id]; id = all[id]?.parentId) routes[id] = all[id];
  }
  return { ...context, manifest: { ...context.manifest, routes } };
}

/** The matched routes as useMatches() shows them to the page: each route module's handle and its loader data. */
function routeMatchesOf(context: EntryContext) {
  const { matches, loaderData } = context.staticHandlerContext;
  return matches.map((match) => ({ handle: context.routeModules[match.route.id]?.handle, loaderData: loaderData[match.route.id] }));
}
