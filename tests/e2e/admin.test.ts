import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { calls } from "#models/schema";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor } from "../support/browser";
import { startAppInProcess } from "../support/app-in-process";
import { currentCode, enrolledAdmin } from "../support/admin";
import { demoOwnerPassword } from "../support/demo-owner";

vi.setConfig({ testTimeout: 180_000 });

let app: Awaited<ReturnType<typeof startAppInProcess>>;
let browser: Browser;

beforeAll(async () => {
  [app, browser] = await Promise.all([startAppInProcess({}), launchBrowser()]);
});

afterAll(async () => {
  await browser?.close();
  await app?.stop();
});

describe.each([false, true])("an admin with JavaScript %s", (javaScript) => {
  it("signs in with the password and a TOTP code, and marks a flagged call reviewed", async () => {
    // Enrolled as the CLI's link leads to; this browser then signs in from scratch.
    const admin = await enrolledAdmin(app);
    const [call] = await app.services.db
      .insert(calls)
      .values({
        purpose: "empathy",
        language: "en",
        voice: "sage",
        status: "completed",
        timeLimitSeconds: 600,
        flaggedForReview: true,
        flagReason: "crisis language",
        transcript: [
          { role: "caller", text: `I feel hopeless (${javaScript ? "with" : "without"} JavaScript)`, at: new Date().toISOString() },
        ],
      })
      .returning();

    const context = await newVisitor(browser, { javaScript });
    const page = await context.newPage();
    await page.goto(`${app.url}/login?redirectTo=/admin/reviews`);
    if (javaScript) await hydrated(page);
    await page.getByLabel("E-mail").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Log in" }).click();
    await page.getByRole("heading", { name: "Enter your sign-in code" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/login/second-factor");
    if (javaScript) await hydrated(page);
    // The enrolment used the current time step; the app accepts the next one, as an authenticator a little ahead shows it.
    await page.getByLabel(/^Code/).fill(currentCode(admin.secret, 1));
    await page.getByRole("button", { name: "Sign in" }).click();

    await page.getByRole("heading", { level: 1, name: "Review queue" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/admin/reviews");
    await page.getByText(`(${javaScript ? "with" : "without"} JavaScript)`).waitFor();
    const violations = await axeViolations(page, { javaScript });
    expect(violations, describeViolations(violations)).toEqual([]);

    if (javaScript) await hydrated(page);
    await page.getByRole("button", { name: `Mark reviewed: call ${call!.id}` }).click();
    await page.getByText(`Call ${call!.id} is marked reviewed.`).waitFor();
    await expect.poll(() => page.getByRole("heading", { name: `Call ${call!.id}`, exact: true }).count()).toBe(0);

    await page.goto(`${app.url}/admin/audit`);
    await page.getByText("call.reviewed").first().waitFor();
    await context.close();
  });
});

it("the admin pages have no axe violations, in English and Arabic", async () => {
  const admin = await enrolledAdmin(app);
  const context = await newVisitor(browser, { javaScript: false });
  for (const [name, value] of admin.client.jar) await context.addCookies([{ name, value, url: app.url }]);
  const page = await context.newPage();
  for (const path of ["/admin", "/admin/businesses", "/admin/calls", "/admin/funnel", "/admin/audit?lng=ar", "/admin/businesses"]) {
    const response = await page.goto(`${app.url}${path}`);
    expect(response?.status(), path).toBe(200);
    const violations = await axeViolations(page, { javaScript: false });
    expect(violations, `${path}: ${describeViolations(violations)}`).toEqual([]);
  }
  await context.close();
});

it("the owner's support page sends a ticket without JavaScript and has no axe violations, in English and Arabic", async () => {
  const password = await demoOwnerPassword(app.url, app.dataDir);
  const context = await newVisitor(browser, { javaScript: false });
  expect((await context.request.post(`${app.url}/api/auth/login`, { data: { email: "demo@sakina.app", password } })).status()).toBe(200);
  const page = await context.newPage();
  for (const lng of ["ar", "en"]) {
    await page.goto(`${app.url}/dashboard/support?lng=${lng}`);
    const violations = await axeViolations(page, { javaScript: false });
    expect(violations, `${lng}: ${describeViolations(violations)}`).toEqual([]);
  }
  await page.getByLabel(/^Subject/).fill("Help with hours");
  await page.getByLabel(/^Message/).fill("How do I add a break at lunch?");
  await page.getByRole("button", { name: "Send to support" }).click();
  await page.getByText("Your message was sent. We will reply by e-mail.").waitFor();
  await context.close();
});
