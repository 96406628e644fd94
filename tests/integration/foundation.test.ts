import { readdir } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hitRateLimit, hitRateLimits } from "#models/rate-limits";
import { sendEmailJob } from "~/platform/data/email-jobs.server";
import { startFakeSmtp } from "../fakes/smtp";
import { createTestServices } from "../support/services";
import { waitFor } from "../support/wait";

describe("the database rate limiter", () => {
  let services: Awaited<ReturnType<typeof createTestServices>>;
  beforeAll(async () => {
    services = await createTestServices({}, { runWorkers: false });
  });
  afterAll(() => services.close());

  it("lets exactly `limit` of many concurrent hits through", async () => {
    const results = await Promise.all(
      Array.from({ length: 25 }, () => hitRateLimit(services.db, "test:burst", { limit: 10, windowSeconds: 60 })),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect(results.filter((r) => !r.allowed).every((r) => r.retryAfterSeconds > 0 && r.retryAfterSeconds <= 60)).toBe(true);
  });

  it("opens a new window once the old one has passed", async () => {
    const start = new Date("2026-01-01T00:00:00Z");
    const rule = { limit: 1, windowSeconds: 60 };
    expect((await hitRateLimit(services.db, "test:window", rule, start)).allowed).toBe(true);
    expect((await hitRateLimit(services.db, "test:window", rule, new Date(start.getTime() + 30_000))).allowed).toBe(false);
    expect((await hitRateLimit(services.db, "test:window", rule, new Date(start.getTime() + 61_000))).allowed).toBe(true);
  });

  it("counts a key named several times in one statement as that many hits, one after the other", async () => {
    const rule = { limit: 2, windowSeconds: 60 };
    const results = await hitRateLimits(services.db, [
      { key: "test:many", ...rule },
      { key: "test:many", ...rule },
      { key: "test:other", ...rule },
      { key: "test:many", ...rule },
    ]);
    expect(results.map((r) => [r.hits, r.allowed])).toEqual([
      [1, true],
      [2, true],
      [1, true],
      [3, false],
    ]);
    // The row holds all three: the next hit is the fourth.
    expect(await hitRateLimit(services.db, "test:many", rule)).toMatchObject({ hits: 4, allowed: false });
  });

  it("keeps keys apart", async () => {
    const rule = { limit: 1, windowSeconds: 60 };
    expect((await hitRateLimit(services.db, "test:a", rule)).allowed).toBe(true);
    expect((await hitRateLimit(services.db, "test:b", rule)).allowed).toBe(true);
  });
});

describe("e-mail delivery through the durable job queue", () => {
  it("writes to the outbox folder when no SMTP server is configured", async () => {
    const services = await createTestServices();
    try {
      await services.jobs.enqueue(sendEmailJob, { to: "a@example.com", subject: "Outbox test", text: "hi", html: "<p>hi</p>" });
      // The outbox writes each message under a hidden temporary name and renames it when whole.
      const files = await waitFor(
        async () => {
          const found = (await readdir(path.join(services.dataDir, "outbox")).catch(() => [])).filter((name) => name.endsWith(".eml"));
          return found.length > 0 ? found : null;
        },
        { what: "an .eml file" },
      );
      expect(files).toHaveLength(1);
      expect(files[0]).not.toMatch(/^\./);
    } finally {
      await services.close();
    }
  });

  it("delivers over SMTP, and retries a message the server refused until it goes through", async () => {
    const smtp = await startFakeSmtp();
    smtp.setRefusing(true);
    const services = await createTestServices({ SMTP_URL: smtp.url });
    try {
      // A copy with a one-second delay, so the retry comes quickly; the same worker handles it.
      const quickRetry = { ...sendEmailJob, retryDelaySeconds: 1 };
      await services.jobs.enqueue(quickRetry, { to: "b@example.com", subject: "Retry test", text: "hi", html: "<p>hi</p>" });
      await waitFor(() => smtp.refusedCount() > 0, { what: "the first, refused attempt" });
      expect(smtp.received).toHaveLength(0);
      smtp.setRefusing(false);
      const mail = await waitFor(() => smtp.received.find((m) => m.to.includes("b@example.com")), {
        what: "the retried message",
        timeoutMs: 30_000,
      });
      expect(mail.raw).toContain("Subject: Retry test");
    } finally {
      await services.close();
      await smtp.close();
    }
  });
});
