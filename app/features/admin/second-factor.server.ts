import type { RouterContextProvider } from "react-router";
import type { Account } from "#models/accounts";
import { acceptTotpStep, consumeRecoveryCode, replaceRecoveryCodes, setPendingTotpSecret } from "#models/admin";
import { findAccountById } from "#models/accounts";
import { passSecondFactor } from "~/features/auth/index.server";
import { servicesContext } from "~/platform/context";
import { addressGroup } from "~/platform/security/address-group.server";
import { attemptWithBackoff, clientIp, forgiveAttempts } from "~/platform/security/rate-limit.server";
import { audit } from "./access.server";
import {
  hashRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  openTotpSecret,
  otpauthQrSvg,
  otpauthUri,
  sealTotpSecret,
} from "./totp.server";

/**
 * Five wrong codes are free, then each further try waits 1, 2, 4 … minutes (at most an hour),
 * counted per admin and address (an IPv6 /64 as one): someone guessing elsewhere, even with the
 * password, makes only their own address wait, never the admin signing in from theirs. The count
 * is a row in PostgreSQL, so every app process sees the same one.
 */
const CODE_BACKOFF = { freeAttempts: 5, baseSeconds: 60, maxSeconds: 3600, forgetSeconds: 86_400 };
const ruleFor = (context: Readonly<RouterContextProvider>, account: Account) => ({
  name: "admin:second-factor",
  subject: `${account.id} ${addressGroup(clientIp(context))}`,
  ...CODE_BACKOFF,
});

/** The secret being enrolled: kept on the account until the first code proves the app has it. */
export async function enrolmentSecret(context: Readonly<RouterContextProvider>, account: Account) {
  const { db, signingSecret } = context.get(servicesContext);
  let stored = account.totpSecret;
  // Not yet enrolled, and a pending secret sealed under another signing secret is replaced too.
  if (!stored || openTotpSecret(signingSecret, stored) === null) {
    await setPendingTotpSecret(db, account.id, sealTotpSecret(signingSecret, newTotpSecret()), stored);
    stored = (await findAccountById(db, account.id))?.totpSecret ?? null;
  }
  const secret = stored ? openTotpSecret(signingSecret, stored) : null;
  if (!secret) throw new Error(`admin ${account.id} has no TOTP secret after enrolment began`);
  const uri = otpauthUri(secret, account.email);
  return { secret, uri, qrSvg: await otpauthQrSvg(uri) };
}

export type SecondFactorResult =
  | { ok: true; recoveryCodes: string[] | null }
  | { ok: false; reason: "invalid" | "wait"; retryAfterMinutes?: number; retryAfterSeconds?: number };

/**
 * Checks a code (TOTP, or a recovery code once enrolled) for this admin and, when it is right,
 * marks the session as having passed. The first right code completes enrolment and returns the
 * new recovery codes, which are shown once and kept only as hashes.
 */
export async function verifySecondFactor(
  context: Readonly<RouterContextProvider>,
  request: Request,
  account: Account,
  typed: string,
): Promise<SecondFactorResult> {
  const services = context.get(servicesContext);
  const rule = ruleFor(context, account);
  const refused = await attemptWithBackoff(context, rule);
  if (refused)
    return { ok: false, reason: "wait", retryAfterMinutes: refused.retryAfterMinutes, retryAfterSeconds: refused.retryAfterSeconds };
  const enrolling = account.totpEnabledAt === null;
  const code = typed.trim().slice(0, 64);
  let method: "totp" | "recovery_code" | null = null;
  const secret = account.totpSecret ? openTotpSecret(services.signingSecret, account.totpSecret) : null;
  const step = secret ? matchTotp(secret, code) : null;
  if (step !== null && (await acceptTotpStep(services.db, account.id, step))) method = "totp";
  else if (!enrolling && (await consumeRecoveryCode(services.db, account.id, hashRecoveryCode(code)))) method = "recovery_code";
  if (!method) return { ok: false, reason: "invalid" };
  await forgiveAttempts(context, rule);
  let recoveryCodes: string[] | null = null;
  if (enrolling) {
    recoveryCodes = newRecoveryCodes();
    await replaceRecoveryCodes(services.db, account.id, recoveryCodes.map(hashRecoveryCode));
    await audit(services.db, account, "admin.totp_enrolled");
  } else {
    await audit(services.db, account, "admin.signed_in", undefined, { method });
  }
  await passSecondFactor(services, request);
  return { ok: true, recoveryCodes };
}
