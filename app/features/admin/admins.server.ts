import { randomBytes } from "node:crypto";
import { createAdmin } from "#models/admin";
import { createEmailToken, revokeEmailTokens } from "#models/email-tokens";
import { adminInviteEmail } from "#emails/admin";
import { hashPassword } from "~/features/auth/index.server";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { translatorFor } from "~/platform/i18n.server";
import type { AppServices } from "~/platform/services.server";

/** How long the link to set an admin's first password stays valid. */
export const ADMIN_LINK_HOURS = 24;

export type CreateAdminResult =
  { ok: true; created: boolean; link: string; emailJobId: string | null } | { ok: false; reason: "invalid_email" | "owner_account" };

/**
 * Creates an admin (or finds the existing one) whose password nobody knows, and sends a
 * single-use link to choose one: the password-reset link, so the same page and token rules apply.
 * Each new link revokes the admin's earlier ones.
 * An address that belongs to a business owner is refused, never promoted.
 */
export async function createAdminWithLink(services: AppServices, rawEmail: string, language = "en"): Promise<CreateAdminResult> {
  const email = rawEmail.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) || email.length > 254) return { ok: false, reason: "invalid_email" };
  // The hash of a random secret that is thrown away: no password opens the account until the link is used.
  const unusablePasswordHash = await hashPassword(randomBytes(32).toString("base64"));
  const result = await createAdmin(services.db, { email, name: email.split("@")[0]!, unusablePasswordHash });
  if (result.kind === "owner") return { ok: false, reason: "owner_account" };
  // A new link is the only one that works: any earlier one (a lost e-mail, a link sent to the
  // wrong inbox) stops working at the same moment.
  const token = await services.db.transaction(async (tx) => {
    await revokeEmailTokens(tx, "reset_password", { accountId: result.account.id });
    return createEmailToken(tx, { purpose: "reset_password", email, accountId: result.account.id, ttlMinutes: ADMIN_LINK_HOURS * 60 });
  });
  const link = `${services.publicOrigin()}/reset-password?token=${encodeURIComponent(token)}&email=${encodeURIComponent(email)}`;
  const t = await translatorFor(language);
  const emailJobId = await services.jobs.enqueue(sendEmailJob, adminInviteEmail(t, language, { to: email, link, hours: ADMIN_LINK_HOURS }));
  return { ok: true, created: result.kind === "created", link, emailJobId };
}
