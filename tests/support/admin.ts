import { expect } from "vitest";
import { totpCode } from "~/features/admin/totp.server";
import routes from "~/routes";
import type { AppServices } from "~/platform/services.server";
import { createAdminWithLink } from "~/features/admin/admins.server";
import { httpClient } from "./http-client";
import { linkIn, waitForMail } from "./outbox";

/** Every page of the admin area, read from routes.ts so a new page is covered without editing the tests. */
export function adminPaths() {
  const admin = routes.find((route) => route.path === "admin");
  if (!admin?.children) throw new Error("routes.ts has no admin area");
  return ["/admin", ...admin.children.filter((child) => !child.index).map((child) => `/admin/${child.path}`)];
}

/** The code an authenticator app shows now, and the one it will show next (for a second sign-in in the same 30 s). */
export const currentCode = (secret: string, offsetSteps = 0) => totpCode(secret, Math.floor(Date.now() / 30_000) + offsetSteps);

let admins = 0;

/**
 * An admin made the way the CLI makes one: the e-mailed link sets the password, then the
 * enrolment page's secret gives the first code. Returns the signed-in client (second factor
 * passed), the secret, the recovery codes shown once and the code that enrolled (for replays).
 */
export async function enrolledAdmin(app: { url: string; dataDir: string; services: AppServices }) {
  admins += 1;
  const email = `admin-${admins}-${Date.now()}@example.com`;
  const created = await createAdminWithLink(app.services, email);
  if (!created.ok) throw new Error(`admin not created: ${created.reason}`);
  const mail = await waitForMail(app.dataDir, email, /admin password/i);
  const link = new URL(linkIn(mail, "/reset-password"));
  const client = httpClient(app.url);
  const password = `admin-password-${admins}-long`;
  const set = await client.postForm(`${link.pathname}${link.search}`, {
    password,
    confirm: password,
    token: link.searchParams.get("token")!,
    email,
  });
  expect(set.status).toBe(302);
  expect(set.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
  const page = await (await client.get("/login/second-factor?redirectTo=%2Fadmin")).text();
  const secret = /data-testid="totp-secret"[^>]*>([A-Z2-7]+)</.exec(page)?.[1];
  if (!secret) throw new Error("no TOTP secret on the enrolment page");
  const enrolmentCode = currentCode(secret);
  const enrolled = await client.postForm("/login/second-factor", { code: enrolmentCode, redirectTo: "/admin" });
  expect(enrolled.status, enrolled.headers.get("location") ?? "").toBe(200);
  const html = await enrolled.text();
  const recoveryCodes = [...html.matchAll(/<li>([a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4})<\/li>/g)].map((m) => m[1]!);
  expect(recoveryCodes).toHaveLength(10);
  return { client, email, password, secret, recoveryCodes, enrolmentCode };
}
