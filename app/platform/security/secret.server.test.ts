import { describe, expect, it } from "vitest";
import { keyedHash, seal, unseal } from "./secret.server";

const SECRET = "a-test-secret-of-some-length-0123456789";

describe("sealed data", () => {
  it("opens with the same secret and purpose, and shows nothing of what it holds", () => {
    const link = "https://sakina.example/reset-password?token=abcDEF123_-xyz&email=a%40example.com";
    const sealed = seal(SECRET, "job data", link);
    expect(sealed).not.toContain("abcDEF123");
    expect(sealed).not.toContain("example");
    expect(seal(SECRET, "job data", link)).not.toBe(sealed);
    expect(unseal(SECRET, "job data", sealed)).toBe(link);
  });

  it("does not open under another secret or purpose, changed by one character, or as plain text", () => {
    const sealed = seal(SECRET, "job data", "a secret");
    expect(unseal(`${SECRET}!`, "job data", sealed)).toBeNull();
    expect(unseal(SECRET, "admin totp secret", sealed)).toBeNull();
    const at = sealed.length - 10;
    expect(unseal(SECRET, "job data", sealed.slice(0, at) + (sealed[at] === "A" ? "B" : "A") + sealed.slice(at + 1))).toBeNull();
    expect(unseal(SECRET, "job data", "a secret")).toBeNull();
  });

  it("is found by a keyed hash that depends on the secret", () => {
    expect(keyedHash(SECRET, "job data", "a@example.com")).toBe(keyedHash(SECRET, "job data", "a@example.com"));
    expect(keyedHash(SECRET, "job data", "a@example.com")).not.toBe(keyedHash(`${SECRET}!`, "job data", "a@example.com"));
    expect(keyedHash(SECRET, "job data", "a@example.com")).not.toContain("example");
  });
});
