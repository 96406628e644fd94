import type { MiddlewareFunction } from "react-router";

/**
 * Pages, data requests and API answers can carry a signed-in person's data, so no browser or
 * shared cache may keep them unless the route chose its own caching. Static assets are served
 * before React Router and keep theirs.
 */
export const noStoreMiddleware: MiddlewareFunction<Response> = async (_args, next) => {
  const response = await next();
  if (response.headers.has("Cache-Control")) return response;
  try {
    response.headers.set("Cache-Control", "no-store");
    return response;
  } catch {
    // A response with immutable headers (a redirect made by Response.redirect) is copied.
    const headers = new Headers(response.headers);
    headers.set("Cache-Control", "no-store");
    return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
  }
};
