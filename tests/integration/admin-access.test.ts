import { spawn } from "node:child_process";
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

/** GET and POST on every admin page answer 404, with the site's "not found" page. */
async function expectAllNotFound(client: ReturnType<typeof httpClient>) {
  for (const page of adminPaths()) {
    const got = await client.get(page);
    expect(got.status, `GET ${page}`).toBe(404);
    expect(await got.text()).toContain("Page Not Found");
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
    const replay = await browser.postForm("/login/second-factor", { code: currentCode(admin.secret), redirectTo: "/admin" });
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

  it("never turns a business owner's address into an admin", async () => {
    const refused = await createAdminWithLink(app.services, "demo@sakina.app");
    expect(refused).toEqual({ ok: false, reason: "owner_account" });
    const [owner] = await app.services.db.select().from(accounts).where(eq(accounts.email, "demo@sakina.app"));
    expect(owner!.role).toBe("owner");
  });
});

describe("npm run admin:create", () => {
  it("creates an admin with no usable password and prints and e-mails the single-use link", async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), "sakina-admin-cli-"));
    // On PostgreSQL the command gets a database of its own, as each test file's app does.
    const database = await createIsolatedDatabase();
    try {
      const email = "cli-admin@example.com";
      const { code, stdout, stderr } = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [path.resolve("node_modules/tsx/dist/cli.mjs"), "scripts/admin-create.ts", email], {
          env: {
            ...process.env,
            DATA_DIR: dataDir,
            APP_URL: "http://127.0.0.1:9",
            DATABASE_URL: "",
            ...database.env,
            SEED_DEMO_DATA: "false",
          },
        });
        let out = "";
        let err = "";
        child.stdout.on("data", (chunk) => (out += chunk));
        child.stderr.on("data", (chunk) => (err += chunk));
        child.on("close", (exit) => resolve({ code: exit, stdout: out, stderr: err }));
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
  }, 60_000);
});
