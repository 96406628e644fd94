import { describe, expect, it } from "vitest";
import { hashPassword, verifyAccountPassword } from "./passwords.server";

describe("verifyAccountPassword", () => {
  it("accepts the account's password and refuses any other", async () => {
    const stored = await hashPassword("the right password");
    expect(await verifyAccountPassword("the right password", stored)).toBe(true);
    expect(await verifyAccountPassword("the wrong password", stored)).toBe(false);
  });

  it("refuses every password when there is no account, after the same hashing work", async () => {
    expect(await verifyAccountPassword("anything at all", null)).toBe(false);
    expect(await verifyAccountPassword("", undefined)).toBe(false);
  });
});
