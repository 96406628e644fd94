import { readdirSync, readFileSync } from "node:fs";
import http from "node:http";
import path from "node:path";
import zlib from "node:zlib";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hitBackoff } from "#models/rate-limits";
import { accounts, businesses, sessions } from "#models/schema";
import { hashPassword } from "~/features/auth/passwords.server";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { linkIn, waitForMail } from "../support/outbox";
import { demoOwnerPassword } from "../support/demo-owner";

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let demoPassword: string;

beforeAll(async () => {
  app = await startAppInProcess({});
  demoPassword = await demoOwnerPassword(app.url, app.dataDir);
});

afterAll(async () => {
  await app?.stop();
});

let owners = 0;
/** One more owner of the demo business, with a password of their own. */
async function owner(password: string) {
  owners += 1;
  const email = `owner-${owners}@example.com`;
  const [business] = await app.services.db.select().from(businesses).limit(1);
  await app.services.db.insert(accounts).values({
    businessId: business!.id,
    name: `Owner ${owners}`,
    email,
    passwordHash: await hashPassword(password),
    mustChangePassword: false,
  });
  return email;
}

type Client = ReturnType<typeof httpClient>;

async function signIn(email: string, password: string, options: { localAddress?: string } = {}) {
  const client = httpClient(app.url, options);
  const response = await client.postJson("/api/auth/login", { email, password });
  expect(response.status).toBe(200);
  return client;
}

/** A second browser holding a copy of this one's cookies. */
function copyOf(client: Client) {
  const copy = httpClient(app.url);
  for (const [name, value] of client.jar) copy.jar.set(name, value);
  return copy;
}

/** Whether the client is signed in, as the owner sees it: the dashboard opens, or asks to log in. */
async function signedIn(client: Client) {
  const response = await client.get("/dashboard");
  const html = await response.text();
  if (response.status === 200 && html.includes("Demo Salon")) return true;
  expect(response.status).toBe(401);
  return false;
}

describe("server-side sessions", () => {
  it("refuses a cookie saved before logout, on pages and on the telephony page", async () => {
    const browser = await signIn("demo@sakina.app", demoPassword);
    const saved = copyOf(browser);
    expect(await signedIn(saved)).toBe(true);

    const logout = await browser.postForm("/logout", {}, { tokenFrom: "/dashboard" });
    expect(logout.status).toBe(302);
    expect(await signedIn(browser)).toBe(false);

    expect(await signedIn(saved)).toBe(false);
    const telephony = await saved.get("/telephony");
    expect(telephony.status).toBe(302);
    expect(telephony.headers.get("location")).toBe("/login?redirectTo=%2Ftelephony");
    const events = await saved.get("/telephony/events");
    expect(events.status).toBe(302);
  });

  it("closes the live call updates of a session that was logged out", async () => {
    const browser = await signIn("demo@sakina.app", demoPassword);
    const cookie = [...browser.jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const stream = await fetch(`${app.url}/telephony/events`, { headers: { Cookie: cookie } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("event: ready");
    expect((await browser.postForm("/logout", {}, { tokenFrom: "/dashboard" })).status).toBe(302);
    // The stream ends by itself (it would otherwise run for ten minutes).
    let done = false;
    while (!done) done = (await reader.read()).done;
  }, 20_000);

  it("ends the session a browser had when it signs in again", async () => {
    const email = await owner("signing in twice password");
    const browser = await signIn(email, "signing in twice password");
    const before = copyOf(browser);
    expect((await browser.postJson("/api/auth/login", { email, password: "signing in twice password" })).status).toBe(200);
    expect(await signedIn(browser)).toBe(true);
    expect(await signedIn(before)).toBe(false);
  });

  it("keeps only a hash of the session id, and a changed or forged cookie signs no one in", async () => {
    const browser = await signIn("demo@sakina.app", demoPassword);
    const cookie = browser.jar.get("session")!;
    const rows = await app.services.db.select().from(sessions);
    expect(rows.length).toBeGreaterThan(0);
    for (const row of rows) {
      expect(row.idHash).toMatch(/^[0-9a-f]{64}$/);
      expect(cookie).not.toContain(row.idHash);
    }
    const forged = copyOf(browser);
    forged.jar.set(
      "session",
      cookie.replace(/.(?=\.)/, (c) => (c === "A" ? "B" : "A")),
    );
    expect(await signedIn(forged)).toBe(false);
  });

  it("signs out a session whose time is up", async () => {
    const email = await owner("expiring owner password");
    const browser = await signIn(email, "expiring owner password");
    expect(await signedIn(browser)).toBe(true);
    const [account] = await app.services.db.select().from(accounts).where(eq(accounts.email, email));
    await app.services.db
      .update(sessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(sessions.accountId, account!.id));
    expect(await signedIn(browser)).toBe(false);
  });

  it("notes when a session was last used, without a write on every request", async () => {
    const email = await owner("last seen owner password");
    const browser = await signIn(email, "last seen owner password");
    const [account] = await app.services.db.select().from(accounts).where(eq(accounts.email, email));
    const read = async () => (await app.services.db.select().from(sessions).where(eq(sessions.accountId, account!.id)))[0]!;
    const opened = await read();
    expect(await signedIn(browser)).toBe(true);
    expect((await read()).lastSeenAt).toEqual(opened.lastSeenAt);

    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    await app.services.db.update(sessions).set({ lastSeenAt: tenMinutesAgo }).where(eq(sessions.idHash, opened.idHash));
    expect(await signedIn(browser)).toBe(true);
    expect((await read()).lastSeenAt.getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it("ends every other browser's session when the password changes, and keeps this one signed in", async () => {
    const email = await owner("first owner password");
    const here = await signIn(email, "first owner password");
    const elsewhere = await signIn(email, "first owner password");
    const copiedHere = copyOf(here);

    const changed = await here.postForm("/change-password", {
      current: "first owner password",
      password: "second owner password",
      confirm: "second owner password",
    });
    expect(changed.status).toBe(302);
    expect(changed.headers.get("location")).toBe("/dashboard");

    expect(await signedIn(here)).toBe(true);
    expect(await signedIn(elsewhere)).toBe(false);
    // This browser continues with a fresh session: a copy of its old cookie is refused too.
    expect(await signedIn(copiedHere)).toBe(false);
    await signIn(email, "second owner password");
  });

  it("ends every session of the account when the password is reset", async () => {
    const email = await owner("forgotten owner password");
    const first = await signIn(email, "forgotten owner password");
    const second = await signIn(email, "forgotten owner password");

    const resetter = httpClient(app.url);
    expect((await resetter.postJson("/api/auth/forgot-password", { email })).status).toBe(200);
    const mail = await waitForMail(app.dataDir, email, /Reset your Sakina password/);
    const link = new URL(linkIn(mail, "/reset-password"));
    const target = `${link.pathname}${link.search}`;
    const reset = await resetter.postForm(
      target,
      { token: link.searchParams.get("token")!, email, password: "remembered owner password", confirm: "remembered owner password" },
      { tokenFrom: target },
    );
    expect(reset.status).toBe(302);

    expect(await signedIn(first)).toBe(false);
    expect(await signedIn(second)).toBe(false);
    expect(await signedIn(resetter)).toBe(true);
    const old = await httpClient(app.url).postJson("/api/auth/login", { email, password: "forgotten owner password" });
    expect(old.status).toBe(401);
  });
});

describe("password-reset links", () => {
  /** Asks for a reset link for `email` and returns it (the `after`-th such mail), as the owner's inbox shows it. */
  async function resetLink(email: string, after: number) {
    expect((await httpClient(app.url).postJson("/api/auth/forgot-password", { email })).status).toBe(200);
    const link = new URL(linkIn(await waitForMail(app.dataDir, email, /Reset your Sakina password/, { after }), "/reset-password"));
    return { target: `${link.pathname}${link.search}`, token: link.searchParams.get("token")! };
  }
  /** Sets the password with a link, from a browser of its own: the status the page answers. */
  async function useLink(email: string, link: { target: string; token: string }, password: string) {
    const browser = httpClient(app.url);
    const response = await browser.postForm(
      link.target,
      { token: link.token, email, password, confirm: password },
      { tokenFrom: link.target },
    );
    return response.status;
  }

  it("works only while it is the newest, and never after the password was reset or changed", async () => {
    const email = await owner("original owner password");
    const older = await resetLink(email, 0);
    const newer = await resetLink(email, 1);
    // A newer request ends the older link: its page says so, and posting it changes nothing.
    expect(await (await httpClient(app.url).get(older.target)).text()).toContain("This link is invalid, expired, or already used.");
    expect(await useLink(email, older, "password from the old link")).toBe(400);

    expect(await useLink(email, newer, "password the owner chose")).toBe(302);
    // The attack of issue 44: a link from before the reset sets the password again. Refused.
    expect(await useLink(email, older, "password from the old link")).toBe(400);
    expect(await useLink(email, newer, "password from the old link")).toBe(400);
    const signedInAfterReset = await signIn(email, "password the owner chose");

    // A link asked for, then a password change from the signed-in browser: the link is dead.
    const beforeChange = await resetLink(email, 2);
    const changed = await signedInAfterReset.postForm("/change-password", {
      current: "password the owner chose",
      password: "password after the change",
      confirm: "password after the change",
    });
    expect(changed.status).toBe(302);
    expect(await useLink(email, beforeChange, "password from the old link")).toBe(400);
    await signIn(email, "password after the change");
    const old = await httpClient(app.url).postJson("/api/auth/login", { email, password: "password from the old link" });
    expect(old.status).toBe(401);
  });
});

describe("password guessing", () => {
  it("makes the guessing address wait, while the owner still signs in from another address", async () => {
    const email = await owner("the real owner password");
    const attacker = httpClient(app.url, { localAddress: "127.0.0.2" });
    const statuses: number[] = [];
    let refusal: Response | undefined;
    for (let i = 0; i < 20; i++) {
      const response = await attacker.postJson("/api/auth/login", { email, password: `guess number ${i}` });
      statuses.push(response.status);
      if (response.status === 429) refusal = response;
    }
    expect(statuses.slice(0, 5)).toEqual(Array(5).fill(401));
    expect(statuses.slice(5)).toEqual(Array(15).fill(429));
    expect(Number(refusal!.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refusal!.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect((await refusal!.json()).error).toBe("Too many attempts. Please wait 1 minutes and try again.");
    // Even the right password waits its turn from the guessing address.
    expect((await attacker.postJson("/api/auth/login", { email, password: "the real owner password" })).status).toBe(429);

    const ownerBrowser = httpClient(app.url, { localAddress: "127.0.0.3" });
    expect((await ownerBrowser.postJson("/api/auth/login", { email, password: "a typo" })).status).toBe(401);
    const login = await ownerBrowser.postJson("/api/auth/login", { email, password: "the real owner password" });
    expect(login.status).toBe(200);
    expect(await signedIn(ownerBrowser)).toBe(true);

    // The login page says the same to the guessing address, with the status and Retry-After.
    const page = await attacker.postForm("/login", { email, password: "guess on the page" });
    expect(page.status).toBe(429);
    expect(page.headers.get("retry-after")).toBeTruthy();
    expect(await page.text()).toContain("Too many attempts. Please wait 1 minutes and try again.");
  });

  it("makes an unknown address wait the same way, so the answers reveal nothing", async () => {
    const attacker = httpClient(app.url, { localAddress: "127.0.0.4" });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      statuses.push((await attacker.postJson("/api/auth/login", { email: "nobody@example.com", password: `guess ${i}` })).status);
    }
    expect(statuses).toEqual([401, 401, 401, 401, 401, 429, 429]);
    // An address or password no account can have is a plain refusal, not a huge key or hash.
    const huge = await httpClient(app.url).postJson("/api/auth/login", { email: `${"a".repeat(10_000)}@example.com`, password: "x" });
    expect(huge.status).toBe(401);
    const long = await httpClient(app.url).postJson("/api/auth/login", { email: "demo@sakina.app", password: "x".repeat(10_000) });
    expect(long.status).toBe(401);
  });

  it("counts guesses sent all at once exactly", async () => {
    const email = await owner("a parallel-proof password");
    const attacker = httpClient(app.url, { localAddress: "127.0.0.5" });
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) => attacker.postJson("/api/auth/login", { email, password: `parallel guess ${i}` })),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
  });

  it("doubles the wait with every further guess, up to an hour, and forgets after a day", async () => {
    const rule = { freeAttempts: 5, baseSeconds: 60, maxSeconds: 3600, forgetSeconds: 86_400 };
    const key = `test-backoff:${Date.now()}`;
    let now = Date.UTC(2030, 0, 1);
    const attempt = () => hitBackoff(app.services.db, key, rule, new Date(now));
    for (let i = 0; i < 5; i++) expect((await attempt()).allowed).toBe(true);
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      const refused = await attempt();
      expect(refused.allowed).toBe(false);
      waits.push(refused.retryAfterSeconds);
      now += refused.retryAfterSeconds * 1000;
      expect((await attempt()).allowed).toBe(true);
    }
    expect(waits).toEqual([60, 120, 240, 480, 960, 1920, 3600, 3600]);
    // A refused attempt does not move the clock: waiting it out always works.
    now += 1000;
    expect((await attempt()).retryAfterSeconds).toBe(3599);
    now += 86_400 * 1000 + 1;
    for (let i = 0; i < 5; i++) expect((await attempt()).allowed).toBe(true);
  });
});

describe("caching", () => {
  it("marks signed-in pages, data requests and API answers no-store, and leaves static files cacheable", async () => {
    const browser = await signIn("demo@sakina.app", demoPassword);
    const page = await browser.get("/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("cache-control")).toBe("no-store");
    const data = await browser.get("/dashboard.data");
    expect(data.status).toBe(200);
    expect(data.headers.get("cache-control")).toBe("no-store");
    const api = await browser.postJson("/api/auth/login", { email: "demo@sakina.app", password: demoPassword });
    expect(api.headers.get("cache-control")).toBe("no-store");
    const redirect = await browser.get("/login");
    expect(redirect.status).toBe(302);
    expect(redirect.headers.get("cache-control")).toBe("no-store");

    const favicon = await fetch(`${app.url}/favicon.svg`);
    expect(favicon.headers.get("cache-control")).toMatch(/max-age=3600/);
    const asset = readdirSync(path.resolve(import.meta.dirname, "../../build/client/assets")).find((name) => name.endsWith(".js"));
    const script = await fetch(`${app.url}/assets/${asset}`);
    expect(script.status).toBe(200);
    expect(script.headers.get("cache-control")).toMatch(/immutable/);
  });

  it("sends the build's scripts and styles as compressed when it was built: brotli or gzip as the browser takes them, the file's bytes once decoded", async () => {
    const folder = path.resolve(import.meta.dirname, "../../build/client/assets");
    const stylesheet = readdirSync(folder).find((name) => name.endsWith(".css"))!;
    const file = readFileSync(path.join(folder, stylesheet));
    const cases = [
      ["gzip, deflate, br, zstd", "br"],
      ["gzip", "gzip"],
      ["br;q=0.5, gzip", "gzip"],
      ["identity", undefined],
    ] as const;
    for (const [accept, encoding] of cases) {
      const response = await new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) =>
        http
          .get(`${app.url}/assets/${stylesheet}`, { headers: { "Accept-Encoding": accept } }, (res) => {
            const chunks: Buffer[] = [];
            res.on("data", (chunk: Buffer) => chunks.push(chunk));
            res.on("end", () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
          })
          .on("error", reject),
      );
      expect(response.headers["content-encoding"], accept).toBe(encoding);
      expect(response.headers["content-type"]).toMatch(/^text\/css/);
      expect(response.headers.vary).toMatch(/Accept-Encoding/i);
      expect(response.headers["cache-control"]).toMatch(/immutable/);
      const body =
        encoding === "br" ? zlib.brotliDecompressSync(response.body) : encoding === "gzip" ? zlib.gunzipSync(response.body) : response.body;
      expect(body.equals(file), accept).toBe(true);
      // Made when the app was built, at the encoder's best: its length is known before it is sent,
      // and it is as small as that encoder makes it.
      expect(Number(response.headers["content-length"]), accept).toBe(response.body.length);
      const best = { br: () => zlib.brotliCompressSync(file), gzip: () => zlib.gzipSync(file, { level: 9 }) };
      if (encoding) expect(response.body.length, accept).toBeLessThanOrEqual(best[encoding]().length);
    }
  });
});
