import { randomBytes, timingSafeEqual } from "node:crypto";
import { data, type MiddlewareFunction } from "react-router";
import { csrfTokenContext, servicesContext } from "~/platform/context";

export const CSRF_FIELD = "csrf";

/** Requests that carry their own proof (signed provider webhooks) instead of a CSRF token. */
const SIGNED_PATHS = ["/webhooks/", "/twilio/"];

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Addresses that answer JSON, XML or a calendar and never show a form: no token cookie is issued there. */
const NO_FORM_PATHS = ["/api/", "/healthz", "/calendar/", ...SIGNED_PATHS];

/**
 * The JSON APIs (script clients, and the pages' own `fetch`), by route: only these may do without
 * the form token. Any other address (every page, and a new API until it is listed here) needs the
 * token, whatever Content-Type the request claims, since that header is the sender's to choose.
 */
export const JSON_API_ROUTES = [
  "/api/business/register",
  "/api/verify-email-and-setup",
  "/api/create-subscription",
  "/api/activate-business",
  "/api/auth/login",
  "/api/auth/forgot-password",
  "/api/calls/demo",
  "/api/create-payment-intent",
  "/api/empathy/start-call",
  "/api/booking/create",
  "/api/subscription/create",
  "/api/subscription/upgrade",
  "/api/subscription/cancel",
  "/api/users/:id/preferences",
  "/api/speech/synthesize",
  "/api/voice/settings",
  "/api/calls/make-call",
  "/api/calls",
  "/api/conversation/process",
];

/**
 * Double-submit CSRF protection for every state-changing request: a form must echo the token
 * from the visitor's signed cookie. On a JSON API, a body whose media type is exactly JSON cannot
 * be sent cross-site without a CORS preflight (which this app never grants), and a browser always
 * names the page's origin on such a request, so it is accepted when its Origin, if any, is ours.
 */
export const csrfMiddleware: MiddlewareFunction<Response> = async ({ request, url, context, params }, next) => {
  const { cookies } = context.get(servicesContext);
  const stored = await cookies.csrf.parse(request.headers.get("Cookie"));
  const hasToken = typeof stored === "string" && stored.length >= 32;
  const token = hasToken ? stored : randomBytes(24).toString("base64url");
  context.set(csrfTokenContext, token);

  // An address no route claims (the splat) changes nothing: it answers 404 whatever the method.
  const unknownAddress = params["*"] !== undefined;
  if (!SAFE_METHODS.has(request.method) && !unknownAddress && !SIGNED_PATHS.some((p) => url.pathname.startsWith(p))) {
    await verify(request, url, hasToken ? token : null);
  }

  const response = await next();
  // Signing the cookie is real work: only responses that may hold a form get one.
  if (!hasToken && !NO_FORM_PATHS.some((p) => url.pathname.startsWith(p))) {
    response.headers.append("Set-Cookie", await cookies.csrf.serialize(token));
  }
  return response;
};

async function verify(request: Request, url: URL, token: string | null) {
  // A browser says so when another site sent the request: no token or Origin makes that ours.
  if (request.headers.get("Sec-Fetch-Site") === "cross-site") throw forbidden();
  if (isJsonApi(url.pathname) && mediaType(request) === "application/json") {
    const origin = request.headers.get("Origin");
    if (origin === null || origin === url.origin) return;
    throw forbidden();
  }
  let sent: FormDataEntryValue | null = null;
  try {
    sent = (await request.clone().formData()).get(CSRF_FIELD);
  } catch {
    throw forbidden();
  }
  if (token === null || typeof sent !== "string" || !sameString(sent, token)) throw forbidden();
}

function isJsonApi(pathname: string) {
  const segments = pathname.split("/");
  return JSON_API_ROUTES.some((route) => {
    const pattern = route.split("/");
    return (
      pattern.length === segments.length && pattern.every((part, i) => (part.startsWith(":") ? segments[i] !== "" : part === segments[i]))
    );
  });
}

/** The media type alone: `text/plain; application/json` is plain text (as a browser sends it without a preflight). */
function mediaType(request: Request) {
  return (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
}

function sameString(a: string, b: string) {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function forbidden() {
  return data({ csrf: true }, { status: 403, statusText: "Invalid form token" });
}
