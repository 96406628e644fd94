import type express from "express";
import { createRequire } from "node:module";
import type { createRequestHandler as CreateReactRouterHandler, RouterContextProvider, ServerBuild } from "react-router";
import { writeReadableStreamToWritable } from "@react-router/node";
import { bufferedBody } from "~/platform/http/request-limits.server";
import { csrfTokenContext } from "~/platform/context";
import type { PageCache } from "~/platform/http/page-cache.server";
import { compressBody, compressesWhole } from "~/platform/http/compress.server";
import { bodyBytes } from "~/platform/http/whole-body.server";

// The same react-router module (loaded with require) whose RouterContextProvider http.server.ts
// builds the context from: under some loaders (vitest) a static import would be another copy.
const { createRequestHandler: createReactRouterHandler } = createRequire(import.meta.url)("react-router") as {
  createRequestHandler: typeof CreateReactRouterHandler;
};

/**
 * React Router's Express adapter, except that the request body is the one `boundedBodies` already
 * read under its limits: the adapter's own version streams the socket straight into the router,
 * which would read an unbounded body.
 */
export function createRequestHandler(options: {
  build: ServerBuild | (() => Promise<ServerBuild>);
  mode: string;
  getLoadContext(req: express.Request, res: express.Response): RouterContextProvider;
  /** Where first-visit renders of public pages are kept (see page-cache.server.ts). */
  pageCache?: { cache: PageCache; csrfCookieName: string };
  /** The app's own origin (APP_URL or the listening address): a request whose Host names no origin gets this one. */
  publicOrigin(): string;
  /** Called before any request that may write (not GET or HEAD): cached reads are dropped. */
  onWrite?: () => void;
  /** Called once such a request has been answered (its writes committed): other processes are told. */
  afterWrite?: () => void;
}): express.RequestHandler {
  const handle = createReactRouterHandler(options.build, options.mode);
  return async (req, res, next) => {
    try {
      // A write may change what a page or a cached read shows: they go.
      if (req.method !== "GET" && req.method !== "HEAD") {
        options.pageCache?.cache.clear();
        options.onWrite?.();
      }
      const request = toRequest(req, res, options.publicOrigin());
      const context = options.getLoadContext(req, res);
      let response = await handle(request, context);
      if (options.pageCache?.cache.cacheable(request)) response = await keep(options.pageCache, request, response, context, res);
      if (req.method !== "GET" && req.method !== "HEAD") options.afterWrite?.();
      await send(req, res, response);
    } catch (error) {
      next(error);
    }
  };
}

/** Hands a first-visit render to the page cache when it holds nothing personal; answers the same bytes. */
async function keep(
  pageCache: { cache: PageCache; csrfCookieName: string },
  request: Request,
  response: Response,
  context: RouterContextProvider,
  res: express.Response,
) {
  const cookies = response.headers.getSetCookie();
  const onlyCsrf = cookies.length === 1 && cookies[0]!.startsWith(`${pageCache.csrfCookieName}=`);
  if (response.status !== 200 || !onlyCsrf || !/^text\/html/.test(response.headers.get("Content-Type") ?? "")) return response;
  const html = await response.text();
  const headers = [...response.headers.entries()].filter(([name]) => !["set-cookie", "content-length", "content-encoding"].includes(name));
  pageCache.cache.store(request, {
    status: response.status,
    headers,
    html,
    nonce: String(res.locals.nonce ?? ""),
    csrfToken: context.get(csrfTokenContext) ?? "",
  });
  return new Response(html, { status: response.status, statusText: response.statusText, headers: response.headers });
}

function toRequest(req: express.Request, res: express.Response, publicOrigin: string) {
  const url = requestUrl(req, publicOrigin);

  const headers = new Headers();
  for (const [key, values] of Object.entries(req.headers)) {
    if (values === undefined) continue;
    for (const value of Array.isArray(values) ? values : [values]) headers.append(key, value);
  }
  const controller = new AbortController();
  let finished = false;
  res.on("finish", () => (finished = true));
  res.on("close", () => finished || controller.abort());
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url.href, {
    method: req.method,
    headers,
    signal: controller.signal,
    ...(hasBody ? { body: new Uint8Array(bufferedBody(req) ?? Buffer.alloc(0)) } : {}),
  });
}

/**
 * The request's URL: its path and query, on the origin the client addressed (Host, or the trusted
 * proxy's X-Forwarded-Host), which a JSON request's Origin is compared with. Nothing the app
 * sends out is built from it (links use the public origin), so a Host that names no valid origin
 * ("x:99999", "a b", "evil/x") is replaced by the public origin rather than failing the request.
 */
function requestUrl(req: express.Request, publicOrigin: string) {
  const forwarded = req.app.enabled("trust proxy") ? req.get("X-Forwarded-Host")?.split(",")[0]?.trim() : undefined;
  const authority = forwarded || req.get("host") || "";
  let origin = publicOrigin;
  if (/^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/.test(authority)) {
    try {
      origin = new URL(`${req.protocol}://${authority}`).origin;
    } catch {
      // A port over 65535 or a malformed address: the public origin stands.
    }
  }
  // An absolute-form target ("http://other/x") keeps only its path; "//x" stays a path on this origin.
  const target = req.originalUrl.startsWith("/") ? req.originalUrl : pathOf(req.originalUrl);
  const url = new URL(`${origin}${target}`);
  // React Router decodes the path to match it: a malformed escape ("%FF", "%C3%28") makes it warn
  // on every such request, and a decoded line break matches no route at all, not even the "not
  // found" one (a 500). Such a path is matched as the literal text it is, and answered 404.
  if (!decodesToText(url.pathname)) url.pathname = url.pathname.replaceAll("%", "%25");
  return url;
}

function decodesToText(pathname: string) {
  try {
    const decoded = decodeURIComponent(pathname);
    for (let i = 0; i < decoded.length; i++) if (decoded.charCodeAt(i) < 0x20 || decoded.charCodeAt(i) === 0x7f) return false;
    return true;
  } catch {
    return false;
  }
}

function pathOf(target: string) {
  try {
    const url = new URL(target);
    return `${url.pathname}${url.search}`;
  } catch {
    return "/";
  }
}

async function send(req: express.Request, res: express.Response, response: Response) {
  if (res.destroyed || res.writableEnded) {
    await response.body?.cancel();
    return;
  }
  res.statusMessage = response.statusText;
  res.status(response.status);
  for (const [key, value] of response.headers.entries()) res.append(key, value);
  if (/text\/event-stream/i.test(response.headers.get("Content-Type") ?? "")) res.flushHeaders();
  if (!response.body) {
    res.end();
    return;
  }
  if (compressesWhole(response)) {
    const body = await bodyBytes(response);
    const { encoding, bytes } = compressBody(body, req.headers["accept-encoding"]);
    if (res.destroyed || res.writableEnded) return;
    res.vary("Accept-Encoding");
    if (encoding !== "identity") res.setHeader("Content-Encoding", encoding);
    res.setHeader("Content-Length", bytes.length);
    res.end(bytes);
    return;
  }
  try {
    await writeReadableStreamToWritable(response.body, res);
  } catch (error) {
    if (res.destroyed || res.writableEnded) return;
    throw error;
  }
}
