import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eq, sql } from "drizzle-orm";
import WebSocket, { WebSocketServer } from "ws";
import { RouterContextProvider } from "react-router";
import { consumeStreamToken, createCall, newStreamToken, setStreamToken } from "#models/calls";
import { createEmailToken, consumeEmailToken } from "#models/email-tokens";
import { hitRateLimit } from "#models/rate-limits";
import { bookings, businesses, businessServices, empathyRequests, emailTokens } from "#models/schema";
import { servicesContext } from "~/platform/context";
import { firstExceededRule } from "~/platform/security/rate-limit.server";
import { bridgeMediaStream } from "~/voice/bridge.server";
import { runRetention, retentionJob, RETENTION_CRON } from "~/features/retention/retention.server";
import { createTestServices } from "../support/services";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { expectLog } from "../support/console";
import { connectMediaStream } from "../fakes/media-stream";
import { demoOwnerPassword } from "../support/demo-owner";

let services: Awaited<ReturnType<typeof createTestServices>>;
beforeAll(async () => {
  services = await createTestServices();
});
afterAll(async () => {
  await services?.close();
});

describe("retention", () => {
  it("is scheduled when the server starts", async () => {
    const schedules = await services.jobs.boss.getSchedules();
    expect(schedules.find((s) => s.name === retentionJob.name)).toMatchObject({ cron: RETENTION_CRON });
  });

  it("erases callers' numbers after 24 hours and purges spent tokens and old rate-limit windows, twice safely", async () => {
    const now = new Date();
    const hoursAgo = (h: number) => new Date(now.getTime() - h * 3_600_000);
    const [old] = await services.db
      .insert(empathyRequests)
      .values({
        phone: "+12125550100",
        email: "old@example.com",
        language: "en",
        voiceGender: "female",
        amountCents: 500,
        currency: "usd",
        status: "completed",
        finishedAt: hoursAgo(25),
      })
      .returning();
    const [recent] = await services.db
      .insert(empathyRequests)
      .values({
        phone: "+12125550101",
        email: "new@example.com",
        language: "en",
        voiceGender: "female",
        amountCents: 500,
        currency: "usd",
        status: "completed",
        finishedAt: hoursAgo(2),
      })
      .returning();
    await hitRateLimit(services.db, "test:old", { limit: 5, windowSeconds: 3600 }, hoursAgo(72));
    await hitRateLimit(services.db, "test:live", { limit: 5, windowSeconds: 3600 });
    const spent = await createEmailToken(services.db, { purpose: "reset_password", email: "a@example.com", ttlMinutes: 60 });
    await consumeEmailToken(services.db, "reset_password", spent, "a@example.com");
    await createEmailToken(services.db, { purpose: "reset_password", email: "b@example.com", ttlMinutes: 60 });

    const first = await runRetention(services, now);
    expect(first.erased).toBe(1);
    expect(first.emailTokens).toBe(1);
    const second = await runRetention(services, now);
    expect(second).toEqual({ erased: 0, emailTokens: 0, sessions: 0, webCalls: 0, recordingsDeleted: 0 });

    const rows = await services.db.select().from(empathyRequests);
    expect(rows.find((r) => r.id === old!.id)).toMatchObject({ phone: null, email: null });
    expect(rows.find((r) => r.id === recent!.id)).toMatchObject({ phone: "+12125550101" });
    const keys = (await services.db.execute(sql`SELECT key FROM rate_limits`)) as unknown as { rows: { key: string }[] };
    expect(keys.rows.map((r) => r.key)).toEqual(expect.arrayContaining(["test:live"]));
    expect(keys.rows.map((r) => r.key)).not.toContain("test:old");
    expect(await services.db.select().from(emailTokens).where(eq(emailTokens.email, "b@example.com"))).toHaveLength(1);
  });

  // PostgreSQL's autovacuum analyses the tables as they change; PGlite has none.
  it.skipIf(Boolean(process.env.DATABASE_URL))("refreshes the query planner's statistics on PGlite, which has no autovacuum", async () => {
    // When the bookings table was last analysed (0: never).
    const lastAnalysed = async () =>
      (
        (await services.db.execute(
          sql`SELECT coalesce(extract(epoch FROM last_analyze), 0)::float8 AS at FROM pg_stat_user_tables WHERE relname = 'bookings'`,
        )) as unknown as { rows: { at: number }[] }
      ).rows[0]!.at;
    // A business takes 80 bookings: the planner's picture of the table is out of date.
    const [business] = await services.db
      .insert(businesses)
      .values({
        name: "Busy Studio",
        bookingLink: "busy-studio",
        ownerName: "Busy Owner",
        email: "busy@example.com",
        phone: "+442079460958",
      })
      .returning();
    const [service] = await services.db
      .insert(businessServices)
      .values({ businessId: business!.id, name: "Session", priceCents: 1000, durationMinutes: 30 })
      .returning();
    const first = Date.now() + 86_400_000;
    await services.db.insert(bookings).values(
      Array.from({ length: 80 }, (_, i) => ({
        businessId: business!.id,
        serviceId: service!.id,
        startsAt: new Date(first + i * 3_600_000),
        endsAt: new Date(first + i * 3_600_000 + 1_800_000),
        customerName: `Customer ${i}`,
        customerPhone: "+442079460999",
        manageTokenHash: `statistics-${i}`,
      })),
    );
    const before = await lastAnalysed();
    await runRetention(services);
    const analysed = await lastAnalysed();
    expect(analysed).toBeGreaterThan(before);
    // Nothing changed since: the next run leaves the table alone, as autovacuum would.
    await runRetention(services);
    expect(await lastAnalysed()).toBe(analysed);
  });

  it("keeps no digit of a phone number in a rate-limit key", async () => {
    const context = new RouterContextProvider();
    context.set(servicesContext, services);
    await firstExceededRule(context, [{ name: "calls:number", subject: "+12125559876", limit: 3, windowSeconds: 3600 }]);
    const keys = (await services.db.execute(sql`SELECT key FROM rate_limits WHERE key LIKE 'calls:number:%'`)) as unknown as {
      rows: { key: string }[];
    };
    expect(keys.rows).toHaveLength(1);
    expect(keys.rows[0]!.key).not.toMatch(/2125559876|5559876/);
  });
});

describe("media-stream handshakes", () => {
  it("accept a stream token once, and not after it expired", async () => {
    const call = await createCall(services.db, {
      purpose: "demo",
      toNumber: "+12125550199",
      language: "en",
      voice: "female",
      timeLimitSeconds: 120,
    });
    const fresh = newStreamToken("abc", new Date(Date.now() + 60_000));
    await setStreamToken(services.db, call.id, fresh);
    expect(await consumeStreamToken(services.db, call.id, fresh)).toBe(true);
    expect(await consumeStreamToken(services.db, call.id, fresh)).toBe(false);

    const late = newStreamToken("def", new Date(Date.now() + 120_000));
    await setStreamToken(services.db, call.id, late);
    expect(await consumeStreamToken(services.db, call.id, late, new Date(Date.now() + 121_000))).toBe(false);
    // Changing the expiry written in the token breaks its hash.
    const forged = late.replace(/^[^.]+/, (Date.now() + 3_600_000).toString(36));
    expect(await consumeStreamToken(services.db, call.id, forged, new Date(Date.now() + 121_000))).toBe(false);
  });

  async function bridgeWith(limits: { startTimeoutMs: number; idleTimeoutMs: number }) {
    const server = new WebSocketServer({ port: 0, host: "127.0.0.1" });
    const logs: string[] = [];
    server.on("connection", (ws) => bridgeMediaStream(services, ws, 999_999, (m) => logs.push(m), limits));
    await new Promise((resolve) => server.once("listening", resolve));
    const client = new WebSocket(`ws://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const closed = new Promise<number>((resolve) => client.once("close", (code) => resolve(code)));
    await new Promise((resolve) => client.once("open", resolve));
    return { client, closed, logs, stop: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('close a socket that never sends "start"', async () => {
    const bridge = await bridgeWith({ startTimeoutMs: 200, idleTimeoutMs: 60_000 });
    await bridge.closed;
    expect(bridge.logs.join("\n")).toMatch(/no "start" within/);
    await bridge.stop();
  });

  it("close a stream that sends no media for the idle limit", async () => {
    const bridge = await bridgeWith({ startTimeoutMs: 60_000, idleTimeoutMs: 300 });
    bridge.client.send(JSON.stringify({ event: "media", media: { payload: "AAAA" } }));
    await bridge.closed;
    expect(bridge.logs.join("\n")).toMatch(/no audio for 0.3 s/);
    await bridge.stop();
  });
});

describe("GET /api/voice/providers?refresh", () => {
  it("needs a signed-in owner or admin; anyone gets the cached status", async () => {
    const app = await startAppInProcess({});
    try {
      const stranger = httpClient(app.url);
      expect((await stranger.get("/api/voice/providers")).status).toBe(200);
      const refused = await stranger.get("/api/voice/providers?refresh");
      expect(refused.status).toBe(403);
      expect((await refused.json()).error).toMatch(/owner or admin/);

      const owner = httpClient(app.url);
      const password = await demoOwnerPassword(app.url, app.dataDir);
      expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
      expect((await owner.get("/api/voice/providers?refresh")).status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});

describe("a media stream whose database write fails", () => {
  it("ends that call and the server keeps serving", async () => {
    const authToken = "a".repeat(32);
    const app = await startAppInProcess({
      SEED_DEMO_DATA: "false",
      TWILIO_ACCOUNT_SID: `AC${"0".repeat(32)}`,
      TWILIO_AUTH_TOKEN: authToken,
      TWILIO_FROM_NUMBER: "+15005550006",
      TWILIO_API_URL: "http://127.0.0.1:9",
    });
    try {
      // The calls table out of reach: the bridge's first database step (finding the call by its token) fails.
      await app.services.database.executeSql("ALTER TABLE calls RENAME TO calls_unreachable");
      expectLog("warn", /call 1 could not start: .*calls/i);
      const stream = await connectMediaStream({
        url: `${app.url.replace("http", "ws")}/media-stream/1`,
        authToken,
        customParameters: { token: "whatever" },
      });
      const closed = await stream.closed;
      expect(closed.initiator).toBe("app");
      expect((await fetch(`${app.url}/healthz`)).status).toBe(200);
      await app.services.database.executeSql("ALTER TABLE calls_unreachable RENAME TO calls");
    } finally {
      await app.stop();
    }
  });
});
