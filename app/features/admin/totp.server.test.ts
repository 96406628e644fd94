import { describe, expect, it } from "vitest";
import {
  hashRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  newTotpSecret,
  openTotpSecret,
  otpauthQrSvg,
  otpauthUri,
  sealTotpSecret,
  totpCode,
} from "./totp.server";

// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890" (base32 below); 8-digit
// codes there, whose last 6 digits are the 6-digit codes.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";
const vectors: [number, string][] = [
  [59, "94287082"],
  [1111111109, "07081804"],
  [1111111111, "14050471"],
  [1234567890, "89005924"],
  [2000000000, "69279037"],
  [20000000000, "65353130"],
];

describe("TOTP (RFC 6238)", () => {
  it("gives the RFC's codes for its test times", () => {
    for (const [seconds, code] of vectors) expect(totpCode(RFC_SECRET, Math.floor(seconds / 30))).toBe(code.slice(2));
  });

  it("makes 160-bit base32 secrets, as the secrets of admins enrolled before", () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    expect(matchTotp(secret, totpCode(secret, Math.floor(Date.now() / 30_000)))).not.toBeNull();
  });

  it("accepts the code of the step before and after, not two steps away", () => {
    const now = 1111111111_000;
    const step = Math.floor(1111111111 / 30);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step), now)).toBe(step);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 1), now)).toBe(step - 1);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step + 1), now)).toBe(step + 1);
    expect(matchTotp(RFC_SECRET, totpCode(RFC_SECRET, step - 2), now)).toBeNull();
    expect(matchTotp(RFC_SECRET, "12345", now)).toBeNull();
    expect(matchTotp(RFC_SECRET, "abcdef", now)).toBeNull();
  });

  it("writes an otpauth URI an authenticator reads", () => {
    const uri = new URL(otpauthUri("JBSWY3DPEHPK3PXP", "admin@example.com"));
    expect(uri.protocol).toBe("otpauth:");
    expect(uri.host).toBe("totp");
    expect(decodeURIComponent(uri.pathname)).toBe("/Sakina:admin@example.com");
    expect(uri.searchParams.get("secret")).toBe("JBSWY3DPEHPK3PXP");
    // Left out where they are the Key URI format's defaults, which are the app's parameters.
    expect(uri.searchParams.get("period") ?? "30").toBe("30");
    expect(uri.searchParams.get("digits") ?? "6").toBe("6");
    expect(uri.searchParams.get("algorithm") ?? "SHA1").toBe("SHA1");
    expect(uri.searchParams.get("issuer")).toBe("Sakina");
  });

  it("draws the URI as an SVG QR code", async () => {
    const svg = await otpauthQrSvg(otpauthUri("JBSWY3DPEHPK3PXP", "admin@example.com"));
    expect(svg).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
    expect(svg).toContain("<path");
    expect(svg).not.toContain("<script");
  });

  it("makes distinct recovery codes whose hash ignores case and dashes", () => {
    const codes = newRecoveryCodes();
    expect(new Set(codes).size).toBe(10);
    expect(codes[0]).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
    expect(hashRecoveryCode(codes[0]!.toUpperCase().replace(/-/g, " "))).toBe(hashRecoveryCode(codes[0]!));
  });

  it("seals a secret so that only the same signing secret opens it", () => {
    const signing = "a".repeat(32);
    const sealed = sealTotpSecret(signing, "JBSWY3DPEHPK3PXP");
    expect(sealed).toMatch(/^v1:/);
    expect(sealed).not.toContain("JBSWY3DPEHPK3PXP");
    expect(sealTotpSecret(signing, "JBSWY3DPEHPK3PXP")).not.toBe(sealed);
    expect(openTotpSecret(signing, sealed)).toBe("JBSWY3DPEHPK3PXP");
    expect(openTotpSecret("b".repeat(32), sealed)).toBeNull();
    // One character of the sealed text changed, well inside it (the last ones may carry padding
    // bits, so "…AA" at the end was once the same bytes, and the check then failed at random).
    const at = sealed.length - 8;
    const changed = `${sealed.slice(0, at)}${sealed[at] === "A" ? "B" : "A"}${sealed.slice(at + 1)}`;
    expect(openTotpSecret(signing, changed)).toBeNull();
    // Stored before sealing existed: read as it is.
    expect(openTotpSecret(signing, "JBSWY3DPEHPK3PXP")).toBe("JBSWY3DPEHPK3PXP");
  });
});
