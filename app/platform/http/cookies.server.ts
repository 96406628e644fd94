import { createHmac, timingSafeEqual } from "node:crypto";
import { createCookie } from "react-router";

export const localeCookie = createCookie("lng", {
  path: "/",
  sameSite: "lax",
  maxAge: 60 * 60 * 24 * 365,
  httpOnly: true,
});

export function createAppCookies(secret: string, secure: boolean) {
  /** Signed, script-proof, same-site; Secure behind https. Without maxAge, gone with the browser session. */
  const signedCookie = (name: string, maxAge?: number) =>
    createCookie(name, { path: "/", sameSite: "lax", httpOnly: true, secure, secrets: [secret], ...(maxAge ? { maxAge } : {}) });
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
