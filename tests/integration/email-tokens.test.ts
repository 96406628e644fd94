import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consumeEmailToken, createEmailToken } from "#models/email-tokens";
import { createTestServices } from "../support/services";

let services: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  services = await createTestServices({}, { runWorkers: false });
});
afterAll(() => services.close());

describe("e-mailed tokens", () => {
  it("work once, for their own address", async () => {
    const token = await createEmailToken(services.db, { purpose: "reset_password", email: "A@Example.com", ttlMinutes: 60 });
    expect(await consumeEmailToken(services.db, "reset_password", token, "someone@example.com")).toBeNull();
    expect(await consumeEmailToken(services.db, "verify_email", token, "a@example.com")).toBeNull();
    expect(await consumeEmailToken(services.db, "reset_password", token, "a@example.com")).not.toBeNull();
    expect(await consumeEmailToken(services.db, "reset_password", token, "a@example.com")).toBeNull();
  });

  it("expire", async () => {
    const token = await createEmailToken(services.db, { purpose: "reset_password", email: "b@example.com", ttlMinutes: -1 });
    expect(await consumeEmailToken(services.db, "reset_password", token, "b@example.com")).toBeNull();
  });

  it("are used by exactly one of many simultaneous clicks", async () => {
    const token = await createEmailToken(services.db, { purpose: "verify_email", email: "c@example.com", ttlMinutes: 60 });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => consumeEmailToken(services.db, "verify_email", token, "c@example.com")),
    );
    expect(results.filter(Boolean)).toHaveLength(1);
  });
});
