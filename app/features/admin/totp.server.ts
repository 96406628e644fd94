import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from "node:crypto";
import { generateSecret, generateSync, generateURI, verifySync } from "otplib";
import QRCode from "qrcode";

/**
 * RFC 6238 with the parameters every authenticator app assumes (HMAC-SHA1, 30-second steps, 6
 * digits, a base32 secret), so the admins enrolled before otplib keep their codes.
 */
export const TOTP_STEP_SECONDS = 30;
const TOTP = { algorithm: "sha1", digits: 6, period: TOTP_STEP_SECONDS } as const;
/** A code from the step before or after is accepted too, for clocks a little apart. */
const WINDOW_STEPS = 1;

/** A new 160-bit secret (the size RFC 4226 recommends for SHA-1), in base32. */
export function newTotpSecret() {
  return generateSecret({ length: 20 });
}

/** The code for one time step. */
export function totpCode(secret: string, step: number) {
  return generateSync({ ...TOTP, secret, epoch: step * TOTP_STEP_SECONDS });
}

/**
 * The time step whose code this is (now, or one step either side), or null. The caller refuses a
 * step it has already accepted, so an overheard code cannot be replayed.
 */
export function matchTotp(secret: string, code: string, now = Date.now()) {
  const typed = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(typed)) return null;
  const result = verifySync({
    ...TOTP,
    secret,
    token: typed,
    epoch: Math.floor(now / 1000),
    epochTolerance: WINDOW_STEPS * TOTP_STEP_SECONDS,
  });
  // A TOTP result carries the step it matched (HOTP results, the other half of the type, do not).
  return result.valid && "timeStep" in result ? result.timeStep : null;
}

/** The otpauth:// URI an authenticator app reads (typed in, or from the QR code below). */
export function otpauthUri(secret: string, account: string, issuer = "Sakina") {
  return generateURI({ ...TOTP, issuer, label: account, secret });
}

/** The URI as a QR code in an SVG string, drawn on the server so the page needs no script. */
export function otpauthQrSvg(uri: string) {
  return QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
}

/** Ten recovery codes like "k3m9-x7qp-2hd4", from an alphabet without look-alike characters. */
export function newRecoveryCodes(count = 10) {
  const alphabet = "abcdefghjkmnpqrstuvwxyz23456789";
  return Array.from({ length: count }, () => {
    const bytes = randomBytes(12);
    const chars = Array.from(bytes, (b) => alphabet[b % alphabet.length]).join("");
    return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
  });
}

/** Recovery codes are compared by hash; spaces, dashes and case do not matter when typed. */
export function hashRecoveryCode(code: string) {
  const normal = code.toLowerCase().replace(/[^a-z0-9]/g, "");
  return createHash("sha256").update(normal).digest("hex");
}

/**
 * An admin's TOTP secret at rest: AES-256-GCM under a key derived from the server's signing
 * secret (SESSION_SECRET), so a copy of the database alone does not give anyone the codes.
 * Stored as "v1:" + base64url(iv, tag, ciphertext). A value without the prefix is a secret
 * stored before sealing existed and is read as it is.
 */
const SEALED = "v1:";
const sealKey = (signingSecret: string) => Buffer.from(hkdfSync("sha256", signingSecret, "sakina", "admin totp secret", 32));

export function sealTotpSecret(signingSecret: string, secret: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(signingSecret), iv);
  const sealed = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** The base32 secret, or null when it cannot be opened (the signing secret changed: enrol again). */
export function openTotpSecret(signingSecret: string, stored: string): string | null {
  if (!stored.startsWith(SEALED)) return stored;
  try {
    const bytes = Buffer.from(stored.slice(SEALED.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", sealKey(signingSecret), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}
