import { createCookie } from "react-router";
import { describe, expect, it, vi } from "vitest";
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

describe("a signed cookie read", () => {
  const secret = "a-test-secret-of-some-length";
  const cookies = createAppCookies(secret, false);
  const reference = createCookie("session", { path: "/", sameSite: "lax", httpOnly: true, secrets: [secret] });
  const pairOf = (header: string) => header.split(";")[0]!;

  it("answers as React Router's own signed cookie does, for good, forged, doubled and foreign values", async () => {
    const values = ["Zm9v-a_session_id_of_forty-three_characters_", { a: 1, text: "Grüße, مرحبا" }, null, 42];
    const other = createCookie("session", { secrets: ["another-secret-of-some-length"] });
    const headers: (string | null)[] = [null, "", "session=", "theme=dark", "session=not-signed", "session=%E0%A4%A"];
    for (const value of values) {
      const good = pairOf(await cookies.session.serialize(value));
      const [name, signed] = good.split("=") as [string, string];
      headers.push(
        good,
        `theme=dark; ${good}; lng=de`,
        `${name}=${signed.slice(0, -3)}abc`,
        `${good}; ${pairOf(await other.serialize("someone-else"))}`,
        pairOf(await other.serialize(value)),
        `xsession=${signed}`,
      );
    }
    for (const header of headers) expect(await cookies.session.parse(header), String(header)).toEqual(await reference.parse(header));
  });

  it("checks a valid signature without WebCrypto, which costs a key import and a thread-pool trip per request", async () => {
    const header = pairOf(await cookies.session.serialize("an-id"));
    const verify = vi.spyOn(crypto.subtle, "verify");
    const importKey = vi.spyOn(crypto.subtle, "importKey");
    try {
      expect(await cookies.session.parse(header)).toBe("an-id");
      expect(verify).not.toHaveBeenCalled();
      expect(importKey).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
      importKey.mockRestore();
    }
  });
});
