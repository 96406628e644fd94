import { createCookie, createCookieSessionStorage } from "react-router";

export const localeCookie = createCookie("lng", {
  path: "/",
  sameSite: "lax",
  maxAge: 60 * 60 * 24 * 365,
  httpOnly: true,
});

export function createAppCookies(secret: string, secure: boolean) {
  return {
    /** One toast at a time, shown on the next page and then cleared. */
    toast: createCookie("toast", {
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure,
      secrets: [secret],
    }),
    /** Double-submit CSRF token: the same value must come back in the form. */
    csrf: createCookie("csrf", {
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure,
      secrets: [secret],
    }),
    /** Who is signed in: { accountId, version }. */
    session: createCookieSessionStorage<{ accountId: number; version: number }>({
      cookie: {
        name: "session",
        path: "/",
        sameSite: "lax",
        httpOnly: true,
        secure,
        secrets: [secret],
        maxAge: 60 * 60 * 24 * 30,
      },
    }),
    /** The business being registered in this browser, once its e-mail is verified. */
    registration: createCookie("registration", {
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure,
      secrets: [secret],
      maxAge: 60 * 60 * 24 * 7,
    }),
    /** The contact details of a booking in progress, kept out of URLs and server logs. */
    bookingDraft: createCookie("booking_draft", {
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure,
      secrets: [secret],
      maxAge: 60 * 60,
    }),
    /** Step one of the empathy call (number, language, voice), until it is paid for. */
    empathyDraft: createCookie("empathy_draft", {
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure,
      secrets: [secret],
      maxAge: 60 * 60,
    }),
  };
}
export type AppCookies = ReturnType<typeof createAppCookies>;
