import { redirect, type RouterContextProvider } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { findAccountByEmail, findAccountById, recordLogin, type Account } from "#models/accounts";
import { safeRedirectPath } from "~/lib/safe-redirect";
import { servicesContext } from "./context";
import { getI18n } from "./i18n.server";
import { verifyPassword } from "./passwords.server";
import { clientIp, firstExceededRule } from "./rate-limit.server";
import type { AppServices } from "./services.server";

/** A login refusal whose message is safe to show (it never says which part was wrong). */
export class LoginError extends Error {
  constructor(
    readonly title: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

/** A scrypt hash of a random password: checked when the e-mail is unknown, so timing reveals nothing. */
const DUMMY_HASH =
  "scrypt$16384$8$1$8Ms3D+8D2wLELgXYGvmkQQ==$F/l954E0a15iRdZbdgQmlxLay4yMtAFYrF5Bi8/AB+FF5mHqVDf1rUG57kecltskIpbvFOYpIVINgqusOY5Ebg==";

export function createAuthenticator(context: Readonly<RouterContextProvider>) {
  const authenticator = new Authenticator<Account>();
  authenticator.use(
    new FormStrategy(async ({ form }) => {
      const { t } = getI18n(context);
      const email = String(form.get("email") ?? "").trim().toLowerCase();
      const password = String(form.get("password") ?? "");
      if (!email || !password) {
        throw new LoginError(t("auth.missingTitle"), t("auth.missingBoth"), 400);
      }
      const exceeded = await firstExceededRule(context, [
        { name: "login:ip", subject: clientIp(context), limit: 30, windowSeconds: 900 },
        { name: "login:account", subject: email, limit: 8, windowSeconds: 900 },
      ]);
      if (exceeded) {
        throw new LoginError(
          t("auth.failedTitle"),
          t("common.tooManyRequests", { minutes: exceeded.retryAfterMinutes }),
          429,
        );
      }
      const { db } = context.get(servicesContext);
      const account = await findAccountByEmail(db, email);
      const valid = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
      if (!account || !valid) throw new LoginError(t("auth.failedTitle"), t("auth.invalid"), 401);
      await recordLogin(db, account.id);
      return account;
    }),
    "form",
  );
  return authenticator;
}

export async function authenticate(context: Readonly<RouterContextProvider>, request: Request) {
  try {
    return { account: await createAuthenticator(context).authenticate("form", request) };
  } catch (error) {
    if (error instanceof LoginError) return { error };
    throw error;
  }
}

/** Set-Cookie for a fresh session of this account (a new cookie, so no fixation). */
export async function commitLogin(services: AppServices, account: Account) {
  const session = await services.cookies.session.getSession();
  session.set("accountId", account.id);
  session.set("version", account.sessionVersion);
  return services.cookies.session.commitSession(session);
}

export async function commitLogout(services: AppServices, request: Request) {
  const session = await services.cookies.session.getSession(request.headers.get("Cookie"));
  return services.cookies.session.destroySession(session);
}

/** The signed-in account, or null (also when its password changed since the cookie was issued). */
export async function getAccount(context: Readonly<RouterContextProvider>, request: Request) {
  const services = context.get(servicesContext);
  const session = await services.cookies.session.getSession(request.headers.get("Cookie"));
  const accountId = session.get("accountId");
  if (typeof accountId !== "number") return null;
  const account = await findAccountById(services.db, accountId);
  if (!account || account.sessionVersion !== session.get("version")) return null;
  return account;
}

/**
 * The signed-in account or a redirect to /login that comes back here. An owner still on the
 * e-mailed temporary password must choose a new one before anything else.
 */
export async function requireAccount(
  context: Readonly<RouterContextProvider>,
  request: Request,
  options: { allowTemporaryPassword?: boolean } = {},
) {
  const account = await getAccount(context, request);
  const url = new URL(request.url);
  const here = safeRedirectPath(`${url.pathname}${url.search}`);
  if (!account) throw redirect(`/login?redirectTo=${encodeURIComponent(here)}`);
  if (account.mustChangePassword && !options.allowTemporaryPassword) {
    throw redirect(`/change-password?redirectTo=${encodeURIComponent(here)}`);
  }
  return account;
}
