import { createCookie } from "react-router";

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
  };
}
export type AppCookies = ReturnType<typeof createAppCookies>;
