import { data } from "react-router";
import type { Route } from "./+types/auth.login";
import { authenticate, commitLogin } from "~/features/auth/auth.server";
import { apiError, methodNotAllowed, readJsonBody } from "~/platform/http/api.server";
import { servicesContext } from "~/platform/context";

/** POST /api/auth/login { email, password } → { user: { name, email } } and the session cookie. */
export async function action({ request, context }: Route.ActionArgs) {
  const services = context.get(servicesContext);
  const body = await readJsonBody(request);
  // The same form strategy as the page: one place decides what a valid login is.
  const formRequest = new Request(request.url, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ email: String(body.email ?? ""), password: String(body.password ?? "") }),
  });
  const result = await authenticate(context, formRequest);
  if (result.error) {
    const { status, message, title, retryAfterSeconds } = result.error;
    if (!retryAfterSeconds) return apiError(status, message, { title });
    return data({ error: message, title }, { status, headers: { "Retry-After": String(retryAfterSeconds) } });
  }
  return Response.json(
    { user: { name: result.account.name, email: result.account.email }, mustChangePassword: result.account.mustChangePassword },
    { headers: { "Set-Cookie": await commitLogin(services, result.account, request) } },
  );
}

/** Only POST is accepted. */
export const loader = methodNotAllowed;
