import { describe, expect, it } from "vitest";
import { parseEnv } from "~/platform/env.server";

describe("parseEnv", () => {
  it("starts with nothing set, with sensible defaults", () => {
    const env = parseEnv({});
    expect(env.PORT).toBe(3000);
    expect(env.DATA_DIR).toBe("./data");
    expect(env.DATABASE_URL).toBeUndefined();
    expect(env.RECORD_CALLS).toBe(false);
  });

  it("treats an empty value as unset", () => {
    expect(parseEnv({ SMTP_URL: "", PORT: "" }).SMTP_URL).toBeUndefined();
  });

  it("names every bad variable in one message", () => {
    expect(() => parseEnv({ PORT: "eighty", DATABASE_URL: "mysql://x", STRIPE_API_URL: "nope" })).toThrowError(
      /PORT[\s\S]*DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL[\s\S]*STRIPE_API_URL/,
    );
  });

  it("refuses a PostgreSQL deployment without a shared SESSION_SECRET, saying why", () => {
    const url = "postgres://db.internal/sakina";
    expect(() => parseEnv({ DATABASE_URL: url })).toThrowError(/SESSION_SECRET: required with DATABASE_URL: every process/);
    expect(parseEnv({ DATABASE_URL: url, SESSION_SECRET: "s".repeat(32) }).DATABASE_URL).toBe(url);
    expect(parseEnv({ NODE_ENV: "production" }).SESSION_SECRET).toBeUndefined();
  });
});
