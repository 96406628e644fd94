import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

/** RFC 6238 with the parameters every authenticator app assumes: HMAC-SHA1, 30-second steps, 6 digits. */
export const TOTP_STEP_SECONDS = 30;
const DIGITS = 6;
/** A code from the step before or after is accepted too, for clocks a little apart. */
const WINDOW = 1;

const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

export function base32Encode(bytes: Uint8Array) {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

export function base32Decode(text: string) {
  const clean = text.toUpperCase().replace(/[\s=]/g, "");
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of clean) {
    const index = BASE32.indexOf(char);
    if (index < 0) throw new Error("not base32");
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new 160-bit secret (the size RFC 4226 recommends for SHA-1), in base32. */
export function newTotpSecret() {
  return base32Encode(randomBytes(20));
}

export function timeStep(now = Date.now()) {
  return Math.floor(now / 1000 / TOTP_STEP_SECONDS);
}

/** The code for one time step (RFC 4226's HOTP with the step as counter). */
export function totpCode(secret: string, step: number) {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const binary = mac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** DIGITS).padStart(DIGITS, "0");
}

/**
 * The time step whose code this is (now, or one step either side), or null. The caller refuses a
 * step it has already accepted, so an overheard code cannot be replayed.
 */
export function matchTotp(secret: string, code: string, now = Date.now()) {
  const typed = code.replace(/\s/g, "");
  if (!/^\d{6}$/.test(typed)) return null;
  const current = timeStep(now);
  for (let delta = -WINDOW; delta <= WINDOW; delta += 1) {
    const expected = totpCode(secret, current + delta);
    if (timingSafeEqual(Buffer.from(expected), Buffer.from(typed))) return current + delta;
  }
  return null;
}

/** The otpauth:// URI an authenticator app reads (typed in or from a QR code made elsewhere). */
export function otpauthUri(secret: string, account: string, issuer = "Sakina") {
  const label = `${encodeURIComponent(issuer)}:${encodeURIComponent(account)}`;
  const params = new URLSearchParams({ secret, issuer, algorithm: "SHA1", digits: String(DIGITS), period: String(TOTP_STEP_SECONDS) });
  return `otpauth://totp/${label}?${params.toString()}`;
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
