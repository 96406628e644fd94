import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ar from "~/locales/ar";
import en from "~/locales/en";
import { axeViolations, describeViolations, hydrated, launchBrowser, newVisitor, watchStates } from "../support/browser";
import { startServer, type RunningServer } from "../support/server";
import { waitFor } from "../support/wait";

let server: RunningServer;
let browser: Browser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startServer(), launchBrowser()]);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

const pages = [
  { path: "/", title: { en: en.meta.appName, ar: ar.meta.appName }, heading: { en: en.home.title, ar: ar.home.title } },
  { path: "/privacy", title: /Privacy Policy/, heading: "Privacy Policy" },
  { path: "/terms", title: /Terms of Service/, heading: "Terms of Service" },
  { path: "/cookies", title: /Cookie Policy/, heading: "Cookie Policy" },
  { path: "/how-it-works", title: /How/, heading: "How AI emotional support works" },
  { path: "/languages", title: /Languages/, heading: "Supported Languages" },
  { path: "/faq", title: /Frequently asked questions/, heading: "Frequently asked questions" },
  { path: "/safety", title: /Safety/, heading: "Safety" },
  { path: "/contact", title: /Contact/, heading: "Contact" },
  { path: "/accessibility", title: /Accessibility/, heading: "Accessibility" },
  { path: "/business", title: /Sakina/, heading: { en: en.business.title, ar: ar.business.title } },
  { path: "/providers", title: /Sakina/, heading: { en: en.providers.title, ar: ar.providers.title } },
  {
    path: "/language",
    title: { en: en.language.label, ar: ar.language.label },
    heading: { en: en.language.pageTitle, ar: ar.language.pageTitle },
  },
  {
    path: "/this-page-does-not-exist",
    title: { en: en.errors.notFoundTitle, ar: ar.errors.notFoundTitle },
    heading: { en: en.errors.notFoundTitle, ar: ar.errors.notFoundTitle },
    status: 404,
  },
] as const;

const variants = [
  { javaScript: true, locale: "en" },
  { javaScript: false, locale: "en" },
  { javaScript: true, locale: "ar" },
  { javaScript: false, locale: "ar" },
] as const;

describe.each(variants)("every public page, JavaScript $javaScript, language $locale", ({ javaScript, locale }) => {
  let context: Awaited<ReturnType<typeof newVisitor>>;
  let page: Awaited<ReturnType<typeof context.newPage>>;
  beforeAll(async () => {
    context = await newVisitor(browser, { javaScript, locale });
    page = await context.newPage();
  });
  afterAll(async () => {
    await context?.close();
  });

  // One test per page: each has its own time limit, and a failure names the page.
  it.each(pages)(
    "$path answers with the right status, title and heading, mirrored in Arabic, with no WCAG 2.1 AA violations",
    async (spec) => {
      const response = await page.goto(server.url + spec.path);
      expect(response?.status(), spec.path).toBe("status" in spec ? spec.status : 200);
      const title = spec.title instanceof RegExp ? spec.title : new RegExp(spec.title[locale]);
      await expect(page.title()).resolves.toMatch(title);
      expect(await page.getAttribute("html", "lang")).toBe(locale);
      expect(await page.getAttribute("html", "dir")).toBe(locale === "ar" ? "rtl" : "ltr");
      const heading = typeof spec.heading === "object" && spec.heading ? spec.heading[locale] : spec.heading;
      if (heading) expect(await page.locator("h1").first().innerText(), spec.path).toBe(heading);
      if (!["/", "/language", "/business", "/providers"].includes(spec.path) && !("status" in spec)) {
        await expect(page.getByRole("link", { name: (locale === "ar" ? ar : en).common.backToHome }).count()).resolves.toBe(1);
      }
      // The footer says what the product is, in the page's language (not a version string).
      await expect(page.getByText((locale === "ar" ? ar : en).meta.about).count()).resolves.toBe(1);
      const violations = await axeViolations(page, { javaScript });
      expect(describeViolations(violations), spec.path).toBe("");
    },
  );
});

describe.each(["en", "ar"] as const)("the phone menu, language %s", (locale) => {
  const texts = locale === "ar" ? ar : en;
  it.each([true, false])("opens and navigates with JavaScript %s, and the header does not wrap at 390 px", async (javaScript) => {
    const context = await browser.newContext({
      javaScriptEnabled: javaScript,
      locale,
      extraHTTPHeaders: { "Accept-Language": locale },
      viewport: { width: 390, height: 800 },
    });
    await watchStates(context, { javaScript });
    const page = await context.newPage();
    await page.goto(`${server.url}/faq`);
    const header = page.locator("header").first();
    // One row: the logo and the menu button, nothing wrapped under them.
    expect((await header.boundingBox())!.height).toBeLessThan(80);
    // A <summary>: screen readers announce it as a collapsed or expanded button; Playwright has no role for it.
    const menu = header.locator("summary", { hasText: texts.look.header.menu });
    const business = header.getByRole("link", { name: texts.nav.forBusiness, exact: true }).last();
    await expect(business.isVisible()).resolves.toBe(false);
    await menu.click();
    await business.waitFor({ state: "visible" });
    await business.click();
    await page.waitForURL(`${server.url}/business`);
    await page.locator("h1", { hasText: texts.business.title }).waitFor();
    // With JavaScript the page changed without a reload: the menu must have closed by itself.
    await expect(
      page.locator("header").first().getByRole("link", { name: texts.nav.howItWorks, exact: true }).last().isVisible(),
    ).resolves.toBe(false);
    await context.close();
  });
});

describe("the phone menu before the scripts arrive", () => {
  it("stays open when the page's scripts take over after the visitor opened it", async () => {
    const context = await browser.newContext({ locale: "en", viewport: { width: 390, height: 800 } });
    const page = await context.newPage();
    // A slow line: the scripts are held back until the visitor has opened the menu.
    let release!: () => void;
    const scriptsMayLoad = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/.*\.js$/, async (route) => {
      await scriptsMayLoad;
      await route.continue();
    });
    await page.goto(`${server.url}/faq`, { waitUntil: "commit" });
    const header = page.locator("header").first();
    await header.locator("summary", { hasText: en.look.header.menu }).click();
    const business = header.getByRole("link", { name: en.nav.forBusiness, exact: true }).last();
    await business.waitFor({ state: "visible" });
    release();
    await hydrated(page);
    await expect(business.isVisible()).resolves.toBe(true);
    await expect(header.locator("details[open]").count()).resolves.toBe(1);
    await context.close();
  });
});

describe("the style guide", () => {
  it("does not exist in production", async () => {
    const response = await fetch(`${server.url}/styleguide`);
    expect(response.status).toBe(404);
  });
});

describe("redirects, health and errors", () => {
  it("sends /old-landing to / permanently", async () => {
    const response = await fetch(`${server.url}/old-landing`, { redirect: "manual" });
    expect(response.status).toBe(301);
    expect(response.headers.get("location")).toBe("/");
  });

  it("reports the database as reachable on /healthz", async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe("ok");
    expect(body.database.reachable).toBe(true);
  });

  it("sends security headers with a nonce-based CSP", async () => {
    const response = await fetch(`${server.url}/`);
    const csp = response.headers.get("content-security-policy") ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]+'/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("refuses a form post without the CSRF token", async () => {
    const response = await fetch(`${server.url}/contact`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: "email=a%40example.com&subject=Hi&message=Hello",
      redirect: "manual",
    });
    expect(response.status).toBe(403);
    expect(await response.text()).toContain("Your form expired");
  });
});

async function outboxMessages() {
  const dir = path.join(server.dataDir, "outbox");
  // Whole messages only: the outbox writes each under a hidden temporary name and renames it, so a
  // listing taken mid-write holds a name that is gone by the time it is read.
  const files = (await readdir(dir).catch(() => [] as string[])).filter((file) => file.endsWith(".eml"));
  return Promise.all(files.map((file) => readFile(path.join(dir, file), "utf8")));
}

describe.each([true, false])("the contact form with JavaScript %s", (javaScript) => {
  it("shows field errors for bad input and never a server error", async () => {
    const context = await newVisitor(browser, { javaScript });
    const page = await context.newPage();
    await page.goto(`${server.url}/contact`);
    await page.getByLabel("Your e-mail").fill("not-an-email");
    await page.getByRole("button", { name: "Send message" }).click();
    await page.getByText("Enter an e-mail address like name@example.com.").first().waitFor();
    await page.getByText("Enter a subject.").first().waitFor();
    await page.getByText("Enter your message.").first().waitFor();
    await expect(page.getByLabel("Your e-mail").getAttribute("aria-invalid")).resolves.toBe("true");
    expect(await axeViolations(page, { javaScript })).toEqual([]);
    await context.close();
  });

  it("sends the message to support and an acknowledgement to the sender", async () => {
    const context = await newVisitor(browser, { javaScript });
    const page = await context.newPage();
    const sender = `visitor-${javaScript ? "js" : "nojs"}@example.com`;
    await page.goto(`${server.url}/contact`);
    await page.getByLabel("Your e-mail").fill(sender);
    await page.getByLabel("Subject").fill("Question about my call");
    await page.getByLabel("Message").fill("Can I choose the time of my call?");
    await page.getByLabel("Urgency").selectOption("high");
    await page.getByRole("button", { name: "Send message" }).click();
    await page.getByText("Message sent successfully").waitFor();
    await page.getByText("We'll respond to your inquiry within 24 hours.").waitFor();

    const mails = await waitFor(
      async () => {
        const all = (await outboxMessages()).filter((m) => m.includes(sender));
        return all.length >= 2 ? all : null;
      },
      { what: "both contact e-mails in the outbox" },
    );
    const toSupport = mails.find((m) => /^To: support@sakina\.app/m.test(m));
    const toSender = mails.find((m) => new RegExp(`^To: ${sender}`, "m").test(m));
    expect(toSupport).toMatch(/Subject: \[HIGH\] Contact form: Question about my call/);
    expect(toSupport).toMatch(new RegExp(`^Reply-To: ${sender}`, "m"));
    expect(toSender).toContain("We received your message");
    await context.close();
  });
});

describe("the language switcher", () => {
  it("switches to Arabic without JavaScript and keeps the choice", async () => {
    const context = await newVisitor(browser, { javaScript: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/faq`);
    await page.getByLabel("Language").first().selectOption("ar");
    await page.getByRole("button", { name: "Change" }).first().click();
    await page.waitForURL(`${server.url}/faq`);
    expect(await page.getAttribute("html", "dir")).toBe("rtl");
    await page.goto(`${server.url}/contact`);
    expect(await page.getAttribute("html", "lang")).toBe("ar");
    await context.close();
  });

  it("with JavaScript, loads only the page's language and fetches another when the visitor switches", async () => {
    const context = await newVisitor(browser, { javaScript: true });
    const page = await context.newPage();
    const localeChunks: string[] = [];
    page.on("request", (request) => {
      const match = /\/assets\/(en|ar|es|fr|de|it)-[\w-]+\.js$/.exec(request.url());
      if (match) localeChunks.push(match[1]!);
    });
    await page.goto(`${server.url}/faq?lng=ar`, { waitUntil: "networkidle" });
    // On a busy machine the page's scripts may ask for the language after the network went quiet:
    // the page hydrates only once it has it.
    await hydrated(page);
    expect(localeChunks).toEqual(["ar"]);

    await page.getByLabel("اللغة").first().selectOption("fr");
    await page.getByRole("button", { name: "تغيير" }).first().click();
    await page.getByRole("button", { name: "Modifier" }).first().waitFor();
    expect(await page.getAttribute("html", "lang")).toBe("fr");
    expect(localeChunks).toEqual(["ar", "fr"]);
    await context.close();
  });

  it("answers an unknown language with a field error, not a server error", async () => {
    const context = await newVisitor(browser, { javaScript: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/language`);
    await page
      .locator("select[name=lng]")
      .last()
      .evaluate((select: HTMLSelectElement) => {
        select.options[0]!.value = "xx";
        select.selectedIndex = 0;
      });
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/language") && r.request().method() === "POST"),
      page.getByRole("button", { name: "Change" }).last().click(),
    ]);
    expect(response.status()).toBe(400);
    await page.getByText("Choose one of the six languages in the list.").waitFor();
    await context.close();
  });

  it("ignores an open-redirect target", async () => {
    const context = await newVisitor(browser, { javaScript: false });
    const page = await context.newPage();
    await page.goto(`${server.url}/language?redirectTo=//evil.example/x`);
    await page.getByRole("button", { name: "Change" }).last().click();
    await page.waitForLoadState();
    expect(new URL(page.url()).host).toBe(new URL(server.url).host);
    await context.close();
  });
});
