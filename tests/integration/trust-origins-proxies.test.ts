import http from "node:http";
import os from "node:os";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "drizzle-orm";
import { parseEnv } from "~/platform/env.server";
import { rateLimitKey } from "~/platform/security/rate-limit.server";
import { startAppInProcess } from "../support/app-in-process";
import { linkIn, waitForMail } from "../support/outbox";

const DEMO_EMAIL = "demo@sakina.app";

/** A raw request, so the test can send any Host and X-Forwarded-For it likes. */
function send(
  url: string,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string; localAddress?: string },
) {
  const target = new URL(url);
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = http.request(
      {
        host: target.hostname,
        port: target.port,
        method: options.method ?? "GET",
        path: options.path,
        headers: options.headers,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (response) => {
        let body = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on("error", reject);
    request.end(options.body);
  });
}

const resetRequest = (email: string, headers: Record<string, string> = {}) => ({
  method: "POST",
  path: "/api/auth/forgot-password",
  headers: { "Content-Type": "application/json", ...headers },
  body: JSON.stringify({ email }),
});

async function hitsFor(app: Awaited<ReturnType<typeof startAppInProcess>>, name: string, subject: string) {
  const key = rateLimitKey(app.services.signingSecret, { name, subject });
  const result = (await app.services.db.execute(sql`SELECT hits FROM rate_limits WHERE key = ${key}`)) as unknown as {
    rows: { hits: number }[];
  };
  return result.rows[0]?.hits ?? 0;
}

describe("TRUST_PROXY", () => {
  it('is a hop count or a list of proxy addresses; "true" is refused with what to set instead', () => {
    expect(parseEnv({}).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "false" }).TRUST_PROXY).toBe(false);
    expect(parseEnv({ TRUST_PROXY: "1" }).TRUST_PROXY).toBe(1);
    expect(parseEnv({ TRUST_PROXY: "10.0.0.0/8, 127.0.0.1" }).TRUST_PROXY).toEqual(["10.0.0.0/8", "127.0.0.1"]);
    expect(() => parseEnv({ TRUST_PROXY: "true" })).toThrow(/TRUST_PROXY: must not be "true".*TRUST_PROXY=1/);
    expect(() => parseEnv({ TRUST_PROXY: "10.0.0.0/99" })).toThrow(/not understood: 10.0.0.0\/99/);
  });
});

describe("without a trusted proxy", () => {
  let app: Awaited<ReturnType<typeof startAppInProcess>>;
  beforeAll(async () => {
    app = await startAppInProcess({ APP_URL: "https://sakina.example" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("links a reset e-mail requested with a forged Host and X-Forwarded-Host to APP_URL", async () => {
    const answer = await send(
      app.url,
      resetRequest(DEMO_EMAIL, { Host: "attacker.example", "X-Forwarded-Host": "attacker.example", "X-Forwarded-Proto": "http" }),
    );
    expect(answer.status).toBe(200);
    const mail = await waitForMail(app.dataDir, DEMO_EMAIL, /password/i);
    expect(linkIn(mail, "/reset-password")).toMatch(/^https:\/\/sakina\.example\/reset-password\?token=/);
    expect(mail.raw).not.toContain("attacker.example");
  });

  it("counts every request against the socket's address, whatever X-Forwarded-For says", async () => {
    const before = await hitsFor(app, "reset:ip", "127.0.0.1");
    for (let i = 0; i < 4; i++) {
      await send(app.url, resetRequest(`nobody${i}@example.com`, { "X-Forwarded-For": `198.51.100.${i}` }));
    }
    expect(await hitsFor(app, "reset:ip", "127.0.0.1")).toBe(before + 4);
    expect(await hitsFor(app, "reset:ip", "198.51.100.1")).toBe(0);
  });

  it("stores rate-limit keys as keyed hashes, never the e-mail address or the IP", async () => {
    await send(app.url, resetRequest("someone+5551234@example.com"));
    const rows = (await app.services.db.execute(sql`SELECT key FROM rate_limits`)) as unknown as { rows: { key: string }[] };
    expect(rows.rows.length).toBeGreaterThan(0);
    for (const { key } of rows.rows) {
      expect(key).not.toMatch(/@|example|127\.0\.0\.1|5551234/);
    }
  });

  it("shows the outbox to this machine, but not to a peer that claims to be local", async () => {
    expect((await send(app.url, { path: "/dev/outbox" })).status).toBe(200);
    const external = Object.values(os.networkInterfaces())
      .flat()
      .find((address) => address && address.family === "IPv4" && !address.internal)?.address;
    if (!external) return; // A machine with loopback only cannot be a remote peer to itself.
    const server = http.createServer(app.handler);
    await new Promise<void>((resolve) => server.listen(0, external, resolve));
    try {
      const url = `http://${external}:${(server.address() as AddressInfo).port}`;
      const claimed = await send(url, { path: "/dev/outbox", headers: { "X-Forwarded-For": "127.0.0.1" }, localAddress: external });
      expect(claimed.status).toBe(404);
      expect(claimed.body).not.toContain(DEMO_EMAIL);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe("with one trusted proxy hop", () => {
  let app: Awaited<ReturnType<typeof startAppInProcess>>;
  beforeAll(async () => {
    app = await startAppInProcess({ TRUST_PROXY: "1" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("takes the right-most hop the proxy added, so a forged left-hand entry changes nothing", async () => {
    for (let i = 0; i < 4; i++) {
      await send(app.url, resetRequest(`nobody${i}@example.com`, { "X-Forwarded-For": `10.9.8.${i}, 203.0.113.9` }));
    }
    expect(await hitsFor(app, "reset:ip", "203.0.113.9")).toBe(4);
    expect(await hitsFor(app, "reset:ip", "10.9.8.1")).toBe(0);
  });
});

describe("with an SMTP server configured", () => {
  it("has no outbox page at all, even for this machine", async () => {
    const app = await startAppInProcess({ SMTP_URL: "smtp://127.0.0.1:9" });
    try {
      expect((await send(app.url, { path: "/dev/outbox" })).status).toBe(404);
    } finally {
      await app.stop();
    }
  });
});
