import { describe, expect, it } from "vitest";
import {
  base32Decode,
  base32Encode,
  hashRecoveryCode,
  matchTotp,
  newRecoveryCodes,
  openTotpSecret,
  otpauthUri,
  sealTotpSecret,
  totpCode,
} from "./totp.server";

// RFC 6238 appendix B, SHA-1: the secret is the ASCII "12345678901234567890"; 8-digit codes there,
// whose last 6 digits are the 6-digit codes.
const RFC_SECRET = base32Encode(Buffer.from("12345678901234567890"));
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

  it("round-trips base32", () => {
    expect(RFC_SECRET).toBe("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
    expect(base32Decode(RFC_SECRET).toString()).toBe("12345678901234567890");
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
    expect(uri.searchParams.get("period")).toBe("30");
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
    expect(openTotpSecret(signing, `${sealed.slice(0, -2)}AA`)).toBeNull();
    // Stored before sealing existed: read as it is.
    expect(openTotpSecret(signing, "JBSWY3DPEHPK3PXP")).toBe("JBSWY3DPEHPK3PXP");
  });
});
