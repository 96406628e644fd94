import type { TFunction } from "i18next";
import type { RouterContextProvider } from "react-router";
import { findAccountByEmail } from "#models/accounts";
import { createEmailToken, revokeEmailTokens } from "#models/email-tokens";
import { passwordResetEmail } from "#emails/business";
import { servicesContext } from "~/platform/context";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { clientIp, firstExceededRule } from "~/platform/security/rate-limit.server";

export const RESET_TTL_MINUTES = 60;

/**
 * Sends a reset link when the address belongs to an account. The caller always answers the same
 * way, and the work takes the same path either way, so the answer reveals nothing.
 */
export async function requestPasswordReset(
  context: Readonly<RouterContextProvider>,
  t: TFunction,
  lang: string,
  email: string,
  origin: string,
) {
  const services = context.get(servicesContext);
  const normalized = email.trim().toLowerCase();
  const exceeded = await firstExceededRule(context, [
    { name: "reset:ip", subject: clientIp(context), limit: 10, windowSeconds: 3600 },
    { name: "reset:email", subject: normalized, limit: 3, windowSeconds: 3600 },
  ]);
  if (exceeded) return;
  const account = await findAccountByEmail(services.db, normalized);
  if (!account) return;
  // Only the newest link works: an older one (in a forwarded or stolen mail) stops at this moment.
  const token = await services.db.transaction(async (tx) => {
    await revokeEmailTokens(tx, "reset_password", { accountId: account.id });
    return createEmailToken(tx, { purpose: "reset_password", email: account.email, accountId: account.id, ttlMinutes: RESET_TTL_MINUTES });
  });
  const link = `${origin}/reset-password?token=${encodeURIComponent(token)}&email=${encodeURIComponent(account.email)}`;
  await services.jobs.enqueue(sendEmailJob, passwordResetEmail(t, lang, { to: account.email, link }));
}
