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
    csrf: signedCookie("csrf"),
    /** Who is signed in: a random session id whose hash is a row in `sessions` (30 days at most). */
    session: signedCookie("session", 60 * 60 * 24 * 30),
    /** The business being registered in this browser, once its e-mail is verified. */
    registration: signedCookie("registration", 60 * 60 * 24 * 7),
    /** The contact details of a booking in progress, kept out of URLs and server logs. */
    bookingDraft: signedCookie("booking_draft", 60 * 60),
    /** Step one of the empathy call (number, language, voice), until it is paid for. */
    empathyDraft: signedCookie("empathy_draft", 60 * 60),
  };
}
export type AppCookies = ReturnType<typeof createAppCookies>;
