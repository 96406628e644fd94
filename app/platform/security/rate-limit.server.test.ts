import { describe, expect, it } from "vitest";
import { rateLimitKey } from "./rate-limit.server";

const key = (subject: string) => rateLimitKey("secret", { name: "call-me:ip", subject });

describe("rateLimitKey", () => {
  it("counts every address of an IPv6 /64 as one subject, whoever the caller", () => {
    expect(key("2001:db8:4:7:1::9")).toBe(key("2001:db8:4:7:ffff:ffff:ffff:ffff"));
    expect(key("2001:db8:4:7::1")).not.toBe(key("2001:db8:4:8::1"));
    expect(key("::ffff:203.0.113.7")).toBe(key("203.0.113.7"));
    expect(key("203.0.113.7")).not.toBe(key("203.0.113.8"));
  });

  it("leaves other subjects as they are (case aside)", () => {
    expect(key("Owner@Example.com")).toBe(key("owner@example.com"));
    expect(key("+966501234567")).not.toBe(key("+966501234568"));
  });
});
