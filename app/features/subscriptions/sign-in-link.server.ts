import type { TFunction } from "i18next";
import { createEmailToken, revokeEmailTokens } from "#models/email-tokens";
import { findSubscriberByEmail } from "#models/subscribers";
import { signInEmail } from "#emails/subscription";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import type { AppServices } from "~/platform/services.server";

// Sign-in by e-mail.

export const SIGN_IN_MINUTES = 15;

/**
 * E-mails a single-use sign-in link; the same answer whether or not the address has an account.
 * For an unfinished signup the link resumes it: the address's owner is the one who may.
 */
export async function sendSignInLink(services: AppServices, email: string, t: TFunction, language: string) {
  const subscriber = await findSubscriberByEmail(services.db, email);
  if (!subscriber) return;
  // As with reset links, only the newest sign-in link works.
  const token = await services.db.transaction(async (tx) => {
    await revokeEmailTokens(tx, "sign_in", { subscriberId: subscriber.id });
    return createEmailToken(tx, { purpose: "sign_in", email: subscriber.email, subscriberId: subscriber.id, ttlMinutes: SIGN_IN_MINUTES });
  });
  const url = `${services.publicOrigin()}/sign-in/confirm?token=${encodeURIComponent(token)}&email=${encodeURIComponent(subscriber.email)}`;
  await services.jobs.enqueue(sendEmailJob, signInEmail(t, language, { to: subscriber.email, name: subscriber.fullName, url }));
}
