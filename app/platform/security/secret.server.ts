import { rememberedValues } from "~/lib/sharing/remembered";
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * The secret that signs cookies. Without SESSION_SECRET one is generated once and kept in the
 * data folder, so sessions survive restarts and no one ships a well-known default.
 */
export function loadSessionSecret(configured: string | undefined, dataDir: string): string {
  if (configured) return configured;
  const file = path.join(dataDir, "session-secret");
  try {
    const existing = readFileSync(file, "utf8").trim();
    if (existing.length >= 32) return existing;
  } catch {
    // first start: fall through and create it
  }
  const secret = randomBytes(32).toString("hex");
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

/**
 * Data at rest that must not be readable from a copy of the database (a queued e-mail with its
 * sign-in links): AES-256-GCM under a key derived from the signing secret and the data's purpose.
 * Stored as "v1:" + base64url(iv, tag, ciphertext), as the admin TOTP secret is.
 */
const SEALED = "v1:";
/**
 * Keys derived so far, by purpose and secret: deriving one was a visible share of every sealing.
 * A handful of purposes, one secret: the bound only matters if something derives keys without end.
 */
const sealKeys = rememberedValues<Buffer>(100);
function sealKey(signingSecret: string, purpose: string) {
  return sealKeys(`${purpose}\0${signingSecret}`, () => Buffer.from(hkdfSync("sha256", signingSecret, "sakina", purpose, 32)));
}

export function seal(signingSecret: string, purpose: string, plaintext: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", sealKey(signingSecret, purpose), iv);
  const sealed = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return SEALED + Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString("base64url");
}

/** The plaintext, or null when it cannot be opened (another purpose, tampered, or the signing secret changed). */
export function unseal(signingSecret: string, purpose: string, stored: string): string | null {
  if (!stored.startsWith(SEALED)) return null;
  try {
    const bytes = Buffer.from(stored.slice(SEALED.length), "base64url");
    const decipher = createDecipheriv("aes-256-gcm", sealKey(signingSecret, purpose), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(12, 28));
    return Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString("utf8");
  } catch {
    return null;
  }
}

/** A keyed hash (HMAC-SHA256): sealed rows can be found by a value that is not stored. */
export function keyedHash(signingSecret: string, purpose: string, value: string) {
  return createHmac("sha256", signingSecret).update(`${purpose}:${value}`).digest("hex");
}
