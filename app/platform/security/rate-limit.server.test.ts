import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { phoneLimitSubject, rateLimitKey } from "./rate-limit.server";

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

describe("phoneLimitSubject", () => {
  it("keys one number written any way as its E.164 form", () => {
    const forms = ["+1 212 555 0100", "(212) 555-0100", "001 212 555 0100", "+12125550100", "1-212-555-0100", " 212.555.0100 "];
    expect(new Set(forms.map((form) => phoneLimitSubject(form)))).toEqual(new Set(["+12125550100"]));
    expect(phoneLimitSubject("050 123 4567", "SA")).toBe(phoneLimitSubject("+966 50 123 4567"));
    expect(phoneLimitSubject("00966501234567", "US")).toBe("+966501234567");
  });

  it("keys a number that does not parse as its digits alone, whatever the spacing or international prefix", () => {
    expect(phoneLimitSubject("+1 (999) 00-12")).toBe("19990012");
    expect(phoneLimitSubject("00 1 999 0012")).toBe("19990012");
    expect(phoneLimitSubject("1.999.0012")).toBe("19990012");
  });

  it("is the subject of every limit on a phone number in app/", () => {
    const root = join(__dirname, "../..");
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter(
      (file) => /\.tsx?$/.test(file) && !file.endsWith(".test.ts"),
    );
    const rules = files.flatMap((file) =>
      [...readFileSync(join(root, file), "utf8").matchAll(/name: "([\w-]+:(?:phone|number))",\s*subject: ([^,}]+)/g)].map(
        ([, name, subject]) => ({ file, name, subject: subject!.trim() }),
      ),
    );
    // The booking page, its API and the agent, the demo, call-me, empathy and subscriber forms, and the dialling policy.
    expect(rules.length).toBeGreaterThanOrEqual(8);
    expect(rules.filter((rule) => !rule.subject.startsWith("phoneLimitSubject("))).toEqual([]);
  });
});
