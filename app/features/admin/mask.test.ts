import { describe, expect, it } from "vitest";
import { maskPhone } from "./mask";

describe("maskPhone", () => {
  it("keeps only the first three and the last two digits", () => {
    expect(maskPhone("+966501234567")).toBe("+966•••••••67");
    expect(maskPhone("+12125550100")).toBe("+121••••••00");
    expect(maskPhone("+1234")).toBe("••••");
    expect(maskPhone(null)).toBe("");
  });
});
