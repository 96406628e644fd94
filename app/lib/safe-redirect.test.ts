import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "./safe-redirect";

describe("safeRedirectPath", () => {
  it("keeps same-site paths with their query", () => {
    expect(safeRedirectPath("/faq?x=1")).toBe("/faq?x=1");
  });
  it.each(["//evil.example", "https://evil.example", "/\\evil.example", "faq", null, 42])("refuses %s", (value) => {
    expect(safeRedirectPath(value)).toBe("/");
  });
});
