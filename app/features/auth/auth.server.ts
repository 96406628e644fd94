import { createHash, randomBytes } from "node:crypto";
import { redirect, type RouterContextProvider } from "react-router";
import { Authenticator } from "remix-auth";
import { FormStrategy } from "remix-auth-form";
import { findAccountByEmail, recordLogin, setAccountPassword, type Account } from "#models/accounts";
import {
  createSession,
  deleteAccountSessions,
  deleteSession,
  deleteSubscriberSessions,
  findLiveSession,
  findSubscriberSession,
  touchSession,
} from "#models/sessions";
import { markSecondFactor } from "#models/admin";
import { revokeEmailTokens } from "#models/email-tokens";
import { safeRedirect } from "~/lib/safe-redirect";
import { servicesContext } from "~/platform/context";
import { getT } from "~/platform/i18n.server";
import { verifyAccountPassword } from "~/features/auth/passwords.server";
import { addressGroup } from "~/platform/security/address-group.server";
import { attemptWithBackoff, clientIp, firstExceededRule, forgiveAttempts } from "~/platform/security/rate-limit.server";
import type { AppServices } from "~/platform/services.server";

/** A login refusal whose message is safe to show (it never says which part was wrong). */
export class LoginError extends Error {
  constructor(
    readonly title: string,
    message: string,
    readonly status: number,
    /** Set on a 429: how long this visitor must wait before trying again. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/**
 * Five guesses per account from one address, then a wait that doubles with every further guess
 * (1, 2, 4 … minutes, at most an hour), forgotten a day after the last one or at a success.
 */
const LOGIN_BACKOFF = { freeAttempts: 5, baseSeconds: 60, maxSeconds: 3600, forgetSeconds: 86_400 };

export function createAuthenticator(context: Readonly<RouterContextProvider>) {
  const authenticator = new Authenticator<Account>();
  authenticator.use(
    new FormStrategy(async ({ form }) => {
      const t = getT(context);
      const email = String(form.get("email") ?? "")
        .trim()
        .toLowerCase();
      const password = String(form.get("password") ?? "");
      if (!email || !password) {
        throw new LoginError(t("auth.missingTitle"), t("auth.missingBoth"), 400);
      }
      // No account has an address or password this long: refused before any counting or hashing.
      if (email.length > 254 || password.length > 1024) throw new LoginError(t("auth.failedTitle"), t("auth.invalid"), 401);
      // Guesses are slowed per address and per (account, address): a stranger who keeps guessing
      // makes only their own address wait, never the owner signing in from elsewhere.
      const ip = addressGroup(clientIp(context));
      const accountRule = { name: "login:account-ip", subject: `${email} ${ip}`, ...LOGIN_BACKOFF };
      const refused =
        (await firstExceededRule(context, [{ name: "login:ip", subject: ip, limit: 30, windowSeconds: 900 }])) ??
        (await attemptWithBackoff(context, accountRule));
      if (refused) {
        throw new LoginError(
          t("auth.failedTitle"),
          t("common.tooManyRequests", { minutes: refused.retryAfterMinutes }),
          429,
          refused.retryAfterSeconds,
        );
      }
      const { db } = context.get(servicesContext);
      const account = await findAccountByEmail(db, email);
      const valid = await verifyAccountPassword(password, account?.passwordHash);
      if (!account || !valid) throw new LoginError(t("auth.failedTitle"), t("auth.invalid"), 401);
      await forgiveAttempts(context, accountRule);
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

const SESSION_SECONDS = 60 * 60 * 24 * 30;
/** last_seen_at is written at most this often, not on every request. */
const TOUCH_AFTER_MS = 5 * 60 * 1000;

/** The cookie holds a random 256-bit id; the database only its SHA-256. */
const hashSessionId = (id: string) => createHash("sha256").update(id).digest("hex");

async function sessionIdOf(services: AppServices, request: Request, cookie: "session" | "memberSession" = "session") {
  const value: unknown = await services.cookies[cookie].parse(request.headers.get("Cookie"));
  return typeof value === "string" && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}

/**
 * Opens a session for this account and returns its Set-Cookie (always a new id, so no fixation).
 * The session this browser had before, if any, ends: its cookie is being replaced.
 */
export async function commitLogin(services: AppServices, account: Account, request?: Request) {
  const previous = request ? await sessionIdOf(services, request) : null;
  if (previous) await deleteSession(services.db, hashSessionId(previous));
  const id = randomBytes(32).toString("base64url");
  await createSession(services.db, {
    idHash: hashSessionId(id),
    accountId: account.id,
    expiresAt: new Date(Date.now() + SESSION_SECONDS * 1000),
  });
  return services.cookies.session.serialize(id);
}

/**
 * Opens a subscriber's session (at signup, or from a magic link) and returns its Set-Cookie; the
 * subscriber session this browser had before ends. `only`: every other session of the subscriber
 * ends too (the e-mail's owner taking back an unfinished signup someone else may have started).
 */
export async function commitSubscriberLogin(
  services: AppServices,
  subscriberId: number,
  request?: Request,
  options: { only?: boolean } = {},
) {
  const previous = request ? await sessionIdOf(services, request, "memberSession") : null;
  if (previous) await deleteSession(services.db, hashSessionId(previous));
  const id = randomBytes(32).toString("base64url");
  if (options.only) await deleteSubscriberSessions(services.db, subscriberId);
  await createSession(services.db, { idHash: hashSessionId(id), subscriberId, expiresAt: new Date(Date.now() + SESSION_SECONDS * 1000) });
  return services.cookies.memberSession.serialize(id);
}

/** The subscriber this browser is signed in as, or null. */
export async function getSubscriberId(services: AppServices, request: Request) {
  const id = await sessionIdOf(services, request, "memberSession");
  if (!id) return null;
  const idHash = hashSessionId(id);
  const found = await findSubscriberSession(services.db, idHash);
  if (!found) return null;
  if (Date.now() - found.lastSeenAt.getTime() > TOUCH_AFTER_MS) await touchSession(services.db, idHash);
  return found.subscriberId;
}

/** Ends the subscriber's session in this browser and clears its cookie. */
export async function commitSubscriberLogout(services: AppServices, request: Request) {
  const id = await sessionIdOf(services, request, "memberSession");
  if (id) await deleteSession(services.db, hashSessionId(id));
  return services.cookies.memberSession.serialize("", { maxAge: 0 });
}

/** Ends this browser's session on the server and clears its cookie. */
export async function commitLogout(services: AppServices, request: Request) {
  const id = await sessionIdOf(services, request);
  if (id) await deleteSession(services.db, hashSessionId(id));
  return services.cookies.session.serialize("", { maxAge: 0 });
}

/**
 * Sets a new password, ends every session of the account (a copied cookie stops working) and
 * every reset link still unused (an older mail cannot set the password again), then signs this
 * browser in again with a fresh session; returns its Set-Cookie. The reset page and the
 * change-password page both come here.
 */
export async function setPasswordAndSignIn(services: AppServices, accountId: number, passwordHash: string) {
  const account = await services.db.transaction(async (tx) => {
    const updated = await setAccountPassword(tx, accountId, passwordHash, { temporary: false });
    await deleteAccountSessions(tx, accountId);
    await revokeEmailTokens(tx, "reset_password", { accountId });
    return updated;
  });
  if (!account) throw new Error(`account ${accountId} vanished while its password was changed`);
  return commitLogin(services, account);
}

/**
 * The signed-in account and whether this session passed the second factor (admins need it), or
 * null when the session is missing, ended or expired.
 */
export async function getSignedIn(context: Readonly<RouterContextProvider>, request: Request) {
  const services = context.get(servicesContext);
  const id = await sessionIdOf(services, request);
  if (!id) return null;
  const idHash = hashSessionId(id);
  const found = await findLiveSession(services.db, idHash);
  if (!found) return null;
  if (Date.now() - found.session.lastSeenAt.getTime() > TOUCH_AFTER_MS) await touchSession(services.db, idHash);
  return { account: found.account, business: found.business, secondFactorPassed: found.session.secondFactorAt !== null };
}

/**
 * The signed-in account, or null when the session is missing, ended or expired. An admin whose
 * session has not passed the second factor is not signed in yet: the password alone opens no
 * page and no view (only the second-factor page asks getSignedIn for them).
 */
export async function getAccount(context: Readonly<RouterContextProvider>, request: Request) {
  return (await getAccountAndBusiness(context, request))?.account ?? null;
}

/** getAccount's account with its business (null for an account without one), read with the session. */
export async function getAccountAndBusiness(context: Readonly<RouterContextProvider>, request: Request) {
  const signedIn = await getSignedIn(context, request);
  if (!signedIn || (signedIn.account.role === "admin" && !signedIn.secondFactorPassed)) return null;
  return { account: signedIn.account, business: signedIn.business };
}

/** This browser's session as a key (the hash of its id, never the id), or null: what per-session caps count. */
export async function sessionKey(services: AppServices, request: Request) {
  const id = await sessionIdOf(services, request);
  return id ? hashSessionId(id) : null;
}

/** Records that this browser's session passed the admin's second factor. */
export async function passSecondFactor(services: AppServices, request: Request) {
  const id = await sessionIdOf(services, request);
  if (id) await markSecondFactor(services.db, hashSessionId(id));
}

/** Where an admin whose session has not passed the second factor goes first. */
export const secondFactorPath = (redirectTo: string) => `/login/second-factor?redirectTo=${encodeURIComponent(redirectTo)}`;

/**
 * Where a password sign-in leads: an admin to the second factor (then /admin unless a page of
 * theirs asked), an owner on a temporary password to choose one, anyone else where they were going.
 */
export function nextAfterLogin(account: Account, redirectTo: string, secondFactorPassed: boolean) {
  if (account.role === "admin") {
    const target = redirectTo === "/dashboard" ? "/admin" : redirectTo;
    return secondFactorPassed ? target : secondFactorPath(target);
  }
  return account.mustChangePassword ? `/change-password?redirectTo=${encodeURIComponent(redirectTo)}` : redirectTo;
}

/**
 * The signed-in account or a redirect to /login that comes back here. An owner still on the
 * e-mailed temporary password must choose a new one before anything else.
 */
export async function requireAccount(
  context: Readonly<RouterContextProvider>,
  request: Request,
  url: URL,
  options: { allowTemporaryPassword?: boolean } = {},
) {
  const signedIn = await getSignedIn(context, request);
  const here = safeRedirect(`${url.pathname}${url.search}`);
  if (!signedIn) throw redirect(`/login?redirectTo=${encodeURIComponent(here)}`);
  const { account } = signedIn;
  // An admin's password alone opens nothing: the session must pass the second factor first.
  if (account.role === "admin" && !signedIn.secondFactorPassed) throw redirect(secondFactorPath(here));
  if (account.mustChangePassword && !options.allowTemporaryPassword) {
    throw redirect(`/change-password?redirectTo=${encodeURIComponent(here)}`);
  }
  return account;
}
