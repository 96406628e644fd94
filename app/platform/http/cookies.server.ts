import { createHmac, timingSafeEqual } from "node:crypto";
import { createCookie, type Cookie } from "react-router";

export const localeCookie = createCookie("lng", {
  path: "/",
  sameSite: "lax",
  maxAge: 60 * 60 * 24 * 365,
  httpOnly: true,
});

export function createAppCookies(secret: string, secure: boolean) {
  /** Signed, script-proof, same-site; Secure behind https. Without maxAge, gone with the browser session. */
  const signedCookie = (name: string, maxAge?: number) =>
    verifiedHere(
      createCookie(name, { path: "/", sameSite: "lax", httpOnly: true, secure, secrets: [secret], ...(maxAge ? { maxAge } : {}) }),
      secret,
    );
  return {
    /** One toast at a time, shown on the next page and then cleared. */
    toast: signedCookie("toast"),
    /** Double-submit CSRF token: the same value must come back in the form. */
    csrf: tokenCookie("csrf", secret, secure),
    /** Who is signed in: a random session id whose hash is a row in `sessions` (30 days at most). */
    session: signedCookie("session", 60 * 60 * 24 * 30),
    /** A subscriber's session, apart from an owner's so one browser can hold both. */
    memberSession: signedCookie("member", 60 * 60 * 24 * 30),
    /** The business being registered in this browser, once its e-mail is verified. */
    registration: signedCookie("registration", 60 * 60 * 24 * 7),
    /** The contact details of a booking in progress, kept out of URLs and server logs. */
    bookingDraft: signedCookie("booking_draft", 60 * 60),
    /** Step one of the empathy call (number, language, voice), until it is paid for. */
    empathyDraft: signedCookie("empathy_draft", 60 * 60),
  };
}
export type AppCookies = ReturnType<typeof createAppCookies>;

/**
 * A cookie that holds one random token (base64url), signed with HMAC-SHA256, with the same flags
 * as the signed cookies above. Made synchronously: every first visit gets one, and React Router's
 * cookie signs through WebCrypto (a key import and a thread-pool hop each time), which was a
 * quarter of the CPU of a page answered from the page cache.
 */
export interface TokenCookie {
  name: string;
  parse(cookieHeader: string | null): Promise<string | null>;
  serialize(token: string): string;
}

const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

export function tokenCookie(name: string, secret: string, secure: boolean): TokenCookie {
  const signature = (token: string) => createHmac("sha256", secret).update(`${name}=${token}`).digest("base64url");
  const flags = `; Path=/; HttpOnly; SameSite=Lax${secure ? "; Secure" : ""}`;
  return {
    name,
    async parse(cookieHeader) {
      for (const pair of (cookieHeader ?? "").split(";")) {
        const [key, value] = pair.trim().split("=", 2);
        if (key !== name || !value) continue;
        const dot = value.lastIndexOf(".");
        const token = value.slice(0, dot);
        if (dot < 0 || !TOKEN.test(token)) return null;
        const given = Buffer.from(value.slice(dot + 1));
        const expected = Buffer.from(signature(token));
        return given.length === expected.length && timingSafeEqual(given, expected) ? token : null;
      }
      return null;
    },
    serialize(token) {
      if (!TOKEN.test(token)) throw new Error(`A ${name} cookie holds a base64url token`);
      return `${name}=${token}.${signature(token)}${flags}`;
    },
  };
}

/**
 * React Router's signed cookie, read without WebCrypto when it can be: its value is
 * `base64(JSON).base64(HMAC-SHA256)` (unpadded), checked here with node:crypto in the same call,
 * where React Router imports a key and verifies on the thread pool for every request (a signed-in
 * owner's session on every page). Only a value whose signature matches is answered here; anything
 * else (no such cookie, a bad signature, an odd encoding) goes to React Router's own parse, so the
 * answers are the same. Writing is React Router's.
 */
function verifiedHere(cookie: Cookie, secret: string): Cookie {
  const prefix = `${cookie.name}=`;
  return {
    get name() {
      return cookie.name;
    },
    get isSigned() {
      return cookie.isSigned;
    },
    get expires() {
      return cookie.expires;
    },
    serialize: (value, options) => cookie.serialize(value, options),
    async parse(cookieHeader, options) {
      const found = options ? undefined : verifiedValue(cookieHeader, prefix, secret);
      return found !== undefined ? found : cookie.parse(cookieHeader, options);
    },
  };
}

/** The cookie's value if it is there, once, with a valid signature; undefined for React Router to decide. */
function verifiedValue(cookieHeader: string | null, prefix: string, secret: string): unknown {
  if (!cookieHeader) return undefined;
  let raw: string | undefined;
  for (const pair of cookieHeader.split(";")) {
    const trimmed = pair.trimStart();
    if (!trimmed.startsWith(prefix)) continue;
    // A name given twice is left to React Router's parser, whichever it picks.
    if (raw !== undefined) return undefined;
    raw = trimmed.slice(prefix.length).trimEnd();
  }
  if (!raw) return undefined;
  try {
    const value = raw.includes("%") ? decodeURIComponent(raw) : raw;
    const dot = value.lastIndexOf(".");
    if (dot <= 0) return undefined;
    const data = value.slice(0, dot);
    const given = Buffer.from(value.slice(dot + 1));
    const expected = Buffer.from(createHmac("sha256", secret).update(data).digest("base64").replace(/=+$/, ""));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(Buffer.from(data, "base64")));
  } catch {
    return undefined;
  }
}
