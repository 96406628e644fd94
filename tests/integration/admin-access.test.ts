import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accounts, recoveryCodes } from "#models/schema";
import { startAppInProcess } from "../support/app-in-process";
import { httpClient } from "../support/http-client";
import { demoOwnerPassword } from "../support/demo-owner";
import { adminPaths, currentCode, enrolledAdmin } from "../support/admin";
import { createAdminWithLink } from "~/features/admin/admins.server";
import { linkIn, waitForMail } from "../support/outbox";
import { createIsolatedDatabase } from "../support/database";

let app: Awaited<ReturnType<typeof startAppInProcess>>;

beforeAll(async () => {
  app = await startAppInProcess({});
});

afterAll(async () => {
  await app?.stop();
});

/** An admin whose password is set (from the e-mailed link) but who has not passed the second factor. */
async function passwordOnlyAdmin() {
  const email = `half-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const created = await createAdminWithLink(app.services, email);
  if (!created.ok) throw new Error(created.reason);
  const link = new URL(created.link);
  const client = httpClient(app.url);
  const password = "half-signed-in-admin-password";
  const set = await client.postForm(`${link.pathname}${link.search}`, {
    password,
    confirm: password,
    token: link.searchParams.get("token")!,
    email,
  });
  expect(set.status).toBe(302);
  expect(set.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
  return client;
}

/**
 * A page's HTML or data without what differs on every answer (nonce, form token) or names the
 * address asked for, so two answers can be compared whole.
 */
function normalised(body: string, path: string) {
  let text = body;
  for (const form of [path, encodeURIComponent(path), path.slice(1), encodeURIComponent(path.slice(1))])
    text = text.replaceAll(form, "PATH");
  // The form token appears in the forms and, escaped, in the router's data for hydration.
  const token = /csrfToken\\*",\\*"([\w-]+)/.exec(text)?.[1];
  if (token) text = text.replaceAll(token, "TOKEN");
  return text.replace(/nonce="[^"]*"/g, 'nonce=""');
}

/** What a stranger gets for a method and path: status, content type and the normalised body. */
async function strangerAnswer(method: string, path: string, form: boolean) {
  const response = await fetch(app.url + path, {
    method,
    redirect: "manual",
    ...(form ? { headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "intent=refund&id=1" } : {}),
  });
  return { status: response.status, type: response.headers.get("content-type"), body: normalised(await response.text(), path) };
}

/** GET and POST on every admin page answer 404, with the site's "not found" page. */
async function expectAllNotFound(client: ReturnType<typeof httpClient>) {
  for (const page of adminPaths()) {
    const got = await client.get(page);
    expect(got.status, `GET ${page}`).toBe(404);
    expect(await got.text()).toContain("Page not found");
    const posted = await client.postForm(page, { intent: "suspend", businessId: "1" }, { tokenFrom: "/contact" });
    expect(posted.status, `POST ${page}`).toBe(404);
  }
}

describe("who may open /admin", () => {
  it("covers every page of the admin area", () => {
    expect(adminPaths()).toContain("/admin");
    expect(adminPaths()).toContain("/admin/audit");
  });

  it("answers 404 to an anonymous visitor everywhere under /admin", async () => {
    await expectAllNotFound(httpClient(app.url));
  });

  it("answers 404 to a signed-in business owner everywhere under /admin", async () => {
    const password = await demoOwnerPassword(app.url, app.dataDir);
    const owner = httpClient(app.url);
    expect((await owner.postJson("/api/auth/login", { email: "demo@sakina.app", password })).status).toBe(200);
    expect((await owner.get("/dashboard")).status).toBe(200);
    await expectAllNotFound(owner);
    // The second-factor page is an admin's only: an owner does not learn it exists.
    expect((await owner.get("/login/second-factor")).status).toBe(404);
  });

  it("answers 404 to an admin who signed in with the password but has not enrolled TOTP", async () => {
    const email = `pending-${Date.now()}@example.com`;
    const created = await createAdminWithLink(app.services, email);
    expect(created.ok).toBe(true);
    const mail = await waitForMail(app.dataDir, email, /admin password/i);
    const link = new URL(linkIn(mail, "/reset-password"));
    const client = httpClient(app.url);
    const password = "pending-admin-password";
    const set = await client.postForm(`${link.pathname}${link.search}`, {
      password,
      confirm: password,
      token: link.searchParams.get("token")!,
      email,
    });
    expect(set.status).toBe(302);
    expect(set.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
    await expectAllNotFound(client);
    // Pages that an admin's password alone would have opened send them to the second factor instead.
    const telephony = await client.get("/telephony");
    expect(telephony.status).toBe(302);
    expect(telephony.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Ftelephony");
    // The link worked once.
    const again = await client.get(`${link.pathname}${link.search}`);
    expect(await again.text()).toContain("This link is invalid, expired, or already used.");
  });
});

describe("a stranger cannot tell the admin area exists", () => {
  it("answers everything under /admin exactly as an unknown address, whatever the method", async () => {
    // Every method on a few addresses of each kind (a page, an unknown page, another case, data);
    // GET and POST on every page are checked by expectAllNotFound above.
    const paths = ["/admin", "/admin/payments", "/admin/not-a-page", "/ADMIN/Audit", "/admin/audit.data"];
    for (const path of paths) {
      const unknown = path.endsWith(".data") ? `/no-such-${path.length}.data` : `/no-such-page-${path.length}`;
      const shape = path.endsWith(".data") ? unknown.slice(0, -".data".length) : unknown;
      const own = path.endsWith(".data") ? path.slice(0, -".data".length) : path;
      for (const [method, form] of [
        ["GET", false],
        ["HEAD", false],
        ["POST", true],
        ["PUT", true],
        ["DELETE", true],
        ["PATCH", true],
        ["DELETE", false],
        ["OPTIONS", false],
      ] as const) {
        const admin = await strangerAnswer(method, path, form);
        const other = await strangerAnswer(method, unknown, form);
        const label = `${method} ${path}${form ? " (form)" : ""}`;
        expect(admin.status, label).toBe(other.status);
        expect(admin.type, label).toBe(other.type);
        expect(admin.body.replaceAll(own, "PATH"), label).toBe(other.body.replaceAll(shape, "PATH"));
      }
      expect((await strangerAnswer("GET", path, false)).status).toBe(404);
      expect((await strangerAnswer("POST", path, true)).status).toBe(404);
    }
  }, 120_000);

  it("keeps the admin area out of the route manifest for anyone but a signed-in admin", async () => {
    // The build's version, from a page that starts the client router (the 404 page does).
    const page = await (await fetch(`${app.url}/no-such-page`)).text();
    const version = /"version":\s*"([^"]+)"/.exec(page)?.[1];
    expect(version).toBeTruthy();
    const manifest = (client: ReturnType<typeof httpClient>, paths: string[]) =>
      client.get(`/__manifest?paths=${encodeURIComponent(paths.join(","))}&version=${version}`);
    const adminAsk = ["/admin", "/admin/audit", "/ADMIN/payments", "/%61dmin/jobs", "/business"];
    const strangerSees = await (await manifest(httpClient(app.url), adminAsk)).text();
    expect(strangerSees).not.toMatch(/admin/i);
    expect(JSON.parse(strangerSees)).toHaveProperty(["routes/business/business"]);
    // The same as asking about addresses that do not exist.
    const unknownSees = await (await manifest(httpClient(app.url), ["/nothing", "/nothing/here", "/business"])).text();
    expect(strangerSees).toBe(unknownSees);
    // A half-signed-in admin is a stranger too; a signed-in admin's browser gets the area's routes.
    expect(await (await manifest(await passwordOnlyAdmin(), adminAsk)).text()).toBe(strangerSees);
    const admin = await enrolledAdmin(app);
    const adminSees = await manifest(admin.client, adminAsk);
    expect(Object.keys((await adminSees.json()) as object)).toContain("routes/admin/layout");
    expect(adminSees.headers.get("vary")).toMatch(/cookie/i);
    // The build's full route list is never loaded by a page (routes are discovered), and not served.
    const full = readdirSync("build/client/assets").find((name) => /^manifest-.*\.js$/.test(name));
    expect(full).toBeTruthy();
    const asset = await fetch(`${app.url}/assets/${full}`);
    expect(asset.status).toBe(404);
    expect(await asset.text()).not.toContain("routes/admin");
  });

  it("shows a half-signed-in admin no insider view of /providers?refresh", async () => {
    const stranger = await (await httpClient(app.url).get("/providers?refresh")).text();
    expect(stranger).not.toContain("TWILIO_ACCOUNT_SID");
    const half = await passwordOnlyAdmin();
    const page = await half.get("/providers?refresh");
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toContain("TWILIO_ACCOUNT_SID");
    expect(html).not.toContain('name="refresh"');
    expect(html).toContain('href="/login?redirectTo=%2Fproviders"');
    expect((await half.get("/api/voice/providers?refresh")).status).toBe(403);
    // Once the second factor is passed, the same admin is an insider.
    const admin = await enrolledAdmin(app);
    expect(await (await admin.client.get("/providers?refresh")).text()).toContain("TWILIO_ACCOUNT_SID");
  });
});

describe("an admin's second factor", () => {
  it("enrols TOTP after the first password, then asks for a code at every sign-in", async () => {
    const admin = await enrolledAdmin(app);
    expect((await admin.client.get("/admin")).status).toBe(200);
    // Recovery codes are stored hashed only.
    const [account] = await app.services.db.select().from(accounts).where(eq(accounts.email, admin.email));
    expect(account!.role).toBe("admin");
    expect(account!.totpEnabledAt).not.toBeNull();
    // The TOTP secret is sealed at rest: the database holds neither it nor anything it starts with.
    expect(account!.totpSecret).toMatch(/^v1:/);
    expect(account!.totpSecret).not.toContain(admin.secret.slice(0, 8));
    const stored = await app.services.db.select().from(recoveryCodes).where(eq(recoveryCodes.accountId, account!.id));
    expect(stored).toHaveLength(10);
    expect(stored.map((row) => row.codeHash)).not.toContain(admin.recoveryCodes[0]);

    // A new sign-in: the password leads to the code page, not to /admin.
    const browser = httpClient(app.url);
    const login = await browser.postForm("/login", { email: admin.email, password: admin.password, redirectTo: "/dashboard" });
    expect(login.status).toBe(302);
    expect(login.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
    expect((await browser.get("/admin")).status).toBe(404);
    const verifyPage = await (await browser.get("/login/second-factor?redirectTo=%2Fadmin")).text();
    expect(verifyPage).toContain("Enter your sign-in code");
    expect(verifyPage).not.toContain(admin.secret);

    // The code used at enrolment cannot be used again; a wrong one is refused next to the field.
    // (The enrolment's own code: on a slow machine "the current code" may already be the next one.)
    const replay = await browser.postForm("/login/second-factor", { code: admin.enrolmentCode, redirectTo: "/admin" });
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain("not right, or was already used");

    // A recovery code works once.
    const recovered = await browser.postForm("/login/second-factor", { code: admin.recoveryCodes[0]!.toUpperCase(), redirectTo: "/admin" });
    expect(recovered.status).toBe(302);
    expect(recovered.headers.get("location")).toBe("/admin");
    expect((await browser.get("/admin")).status).toBe(200);

    const other = httpClient(app.url);
    await other.postForm("/login", { email: admin.email, password: admin.password, redirectTo: "/dashboard" });
    const reused = await other.postForm("/login/second-factor", { code: admin.recoveryCodes[0]!, redirectTo: "/admin" });
    expect(reused.status).toBe(400);
    // The next time step's code is accepted (the app's clock may be a step ahead).
    const next = await other.postForm("/login/second-factor", { code: currentCode(admin.secret, 1), redirectTo: "/admin/audit" });
    expect(next.status).toBe(302);
    expect(next.headers.get("location")).toBe("/admin/audit");

    const audit = await (await other.get("/admin/audit")).text();
    expect(audit).toContain("admin.totp_enrolled");
    expect(audit).toContain("admin.signed_in");
    expect(audit).toContain(admin.email);
  });

  it("a new setup link revokes the earlier ones", async () => {
    const email = `relinked-${Date.now()}@example.com`;
    const first = await createAdminWithLink(app.services, email);
    const second = await createAdminWithLink(app.services, email);
    if (!first.ok || !second.ok) throw new Error("admin not created");
    expect(second.created).toBe(false);
    const client = httpClient(app.url);
    const use = (link: string) => {
      const url = new URL(link);
      return client.postForm(`${url.pathname}${url.search}`, {
        password: "relinked-admin-password",
        confirm: "relinked-admin-password",
        token: url.searchParams.get("token")!,
        email,
      });
    };
    const firstPage = new URL(first.link);
    expect(await (await client.get(`${firstPage.pathname}${firstPage.search}`)).text()).toContain(
      "This link is invalid, expired, or already used.",
    );
    const refused = await use(first.link);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain("This link is invalid, expired, or already used.");
    const accepted = await use(second.link);
    expect(accepted.status).toBe(302);
    expect(accepted.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
  });

  it("wrong codes from another address do not lock the admin out of their own", async () => {
    const admin = await enrolledAdmin(app);
    // Someone else with the password, guessing codes from 127.0.0.2.
    const attacker = httpClient(app.url, { localAddress: "127.0.0.2" });
    const login = await attacker.postForm("/login", { email: admin.email, password: admin.password, redirectTo: "/admin" });
    expect(login.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
    for (let guess = 0; guess < 5; guess += 1) {
      const wrong = await attacker.postForm("/login/second-factor", { code: "000000", redirectTo: "/admin" });
      expect(wrong.status).toBe(400);
    }
    const slowed = await attacker.postForm("/login/second-factor", { code: "000000", redirectTo: "/admin" });
    expect(slowed.status).toBe(429);
    expect(slowed.headers.get("retry-after")).toMatch(/^\d+$/);
    // The admin, from their own address, signs in at once.
    const own = httpClient(app.url);
    await own.postForm("/login", { email: admin.email, password: admin.password, redirectTo: "/admin" });
    const passed = await own.postForm("/login/second-factor", { code: currentCode(admin.secret, 1), redirectTo: "/admin" });
    expect(passed.status).toBe(302);
    expect(passed.headers.get("location")).toBe("/admin");
    expect((await own.get("/admin")).status).toBe(200);
  });

  it("shows the key to enrol as an SVG QR code with a label, and as text", async () => {
    const client = await passwordOnlyAdmin();
    const html = await (await client.get("/login/second-factor?redirectTo=%2Fadmin")).text();
    const qr = /<div role="img" aria-label="([^"]+)"[^>]*data-testid="totp-qr"[^>]*>(<svg[\s\S]*?<\/svg>)/.exec(html);
    expect(qr?.[1]).toBe("QR code holding the key for your authenticator app (the same key is written out below)");
    expect(qr?.[2]).toMatch(/^<svg [^>]*viewBox="0 0 \d+ \d+"/);
    expect(html).toMatch(/data-testid="totp-secret"[^>]*>[A-Z2-7]{32}</);
  });

  it("never turns a business owner's address into an admin", async () => {
    const refused = await createAdminWithLink(app.services, "demo@sakina.app");
    expect(refused).toEqual({ ok: false, reason: "owner_account" });
    const [owner] = await app.services.db.select().from(accounts).where(eq(accounts.email, "demo@sakina.app"));
    expect(owner!.role).toBe("owner");
  });
});

/** Runs `npm run admin:create -- email` with this environment. */
function adminCreate(email: string, env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/admin-create.ts", email], {
      env: { ...process.env, SEED_DEMO_DATA: "false", ...env },
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (err += chunk));
    child.on("close", (exit) => resolve({ code: exit, stdout: out, stderr: err }));
  });
}

describe("npm run admin:create", () => {
  it("while the server runs: refuses on its PGlite folder; on PostgreSQL the admin it makes can sign in", async () => {
    const email = `while-running-${Date.now()}@example.com`;
    const { database } = app.services;
    const { code, stdout, stderr } = await adminCreate(email, {
      DATA_DIR: app.dataDir,
      APP_URL: app.url,
      DATABASE_URL: database.connectionString ?? "",
      // As every process serving the site: the server's own signing secret.
      SESSION_SECRET: app.services.signingSecret,
    });
    if (database.kind === "pglite") {
      expect(code).toBe(1);
      expect(stdout).not.toContain("created");
      expect(stderr).toContain("The server is running on this data folder");
      expect(stderr).toContain("stop it first, or set DATABASE_URL");
      // The server's database is untouched and goes on working.
      expect((await app.services.db.select().from(accounts).where(eq(accounts.email, email))).length).toBe(0);
      expect((await httpClient(app.url).get("/login")).status).toBe(200);
      return;
    }
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain(`Admin ${email} created.`);
    const link = new URL(/http:\S+\/reset-password\S+/.exec(stdout)![0]);
    const client = httpClient(app.url);
    const set = await client.postForm(`${link.pathname}${link.search}`, {
      password: "cli-while-running-password",
      confirm: "cli-while-running-password",
      token: link.searchParams.get("token")!,
      email,
    });
    expect(set.status).toBe(302);
    expect(set.headers.get("location")).toBe("/login/second-factor?redirectTo=%2Fadmin");
  }, 120_000);

  it("creates an admin with no usable password and prints and e-mails the single-use link", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-admin-cli-"));
    // A database of its own, as each test file's app has, already migrated as the app's start
    // leaves it (on an empty one the command spent ten seconds on PGlite's initdb and the
    // migrations, which tests/support/database.ts runs for every template).
    const database = await createIsolatedDatabase({ premigrated: true, dataDir });
    try {
      const email = "cli-admin@example.com";
      const { code, stdout, stderr } = await adminCreate(email, {
        DATA_DIR: dataDir,
        APP_URL: "http://127.0.0.1:9",
        DATABASE_URL: "",
        ...database.env,
      });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      expect(stdout).toContain(`Admin ${email} created.`);
      expect(stdout).toMatch(/http:\/\/127\.0\.0\.1:9\/reset-password\?token=[\w-]+&email=cli-admin%40example\.com/);
      expect(stdout).toContain(`The link was e-mailed to ${email}.`);
      const mail = await waitForMail(dataDir, email, /admin password/i);
      expect(linkIn(mail, "/reset-password")).toBe(/http:\S+/.exec(stdout.slice(stdout.indexOf("http://127.0.0.1:9/reset")))![0]);
    } finally {
      await database.drop();
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);
});
