import { describe, expect, it } from "vitest";
import { createAppCookies } from "./cookies.server";

describe("the session cookie", () => {
  it("is script-proof and same-site, and Secure when the app is served over https", async () => {
    for (const secure of [true, false]) {
      const header = await createAppCookies("a-test-secret-of-some-length", secure).session.serialize("id");
      expect(header).toMatch(/; HttpOnly/);
      expect(header).toMatch(/; SameSite=Lax/);
      expect(/; Secure/.test(header)).toBe(secure);
    }
  });
});
