import { describe, expect, it } from "vitest";
import { safeRedirect } from "./safe-redirect";

describe("safeRedirect", () => {
  it("keeps same-site paths with their query and fragment", () => {
    expect(safeRedirect("/faq?x=1")).toBe("/faq?x=1");
    expect(safeRedirect("/dashboard?filter=past#bookings")).toBe("/dashboard?filter=past#bookings");
    expect(safeRedirect("/a/../faq")).toBe("/faq");
  });

  it("writes what it keeps as a browser would send it (ASCII only)", () => {
    expect(safeRedirect("/book/café?q=ü")).toBe("/book/caf%C3%A9?q=%C3%BC");
    expect(safeRedirect("/%2F%2Fevil.example")).toBe("/%2F%2Fevil.example");
  });

  it.each([
    "/\t/evil.example/phish",
    "/..//evil.example",
    "/../..//evil.example",
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\\\evil.example",
    "https://evil.example",
    "http:/evil.example",
    "javascript:alert(1)",
    "/x\r\nSet-Cookie: a=b",
    "/x\nfoo",
    "/x\u0000",
    "/x\u0085",
    "faq",
    "",
    null,
    undefined,
    42,
  ])("refuses %j", (value) => {
    expect(safeRedirect(value)).toBe("/");
    expect(safeRedirect(value, "/dashboard")).toBe("/dashboard");
  });
});
