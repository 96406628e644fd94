import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";

export function chromiumPath(): string | null {
  const candidates = [process.env.CHROMIUM_PATH, "/usr/bin/chromium", "/usr/bin/chromium-browser"];
  return candidates.find((candidate): candidate is string => Boolean(candidate && existsSync(candidate))) ?? null;
}

/** `extraArgs`: more Chromium switches, e.g. a fake microphone (--use-fake-device-for-media-stream). */
export async function launchBrowser(options: { extraArgs?: string[] } = {}): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error("Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      ...(options.extraArgs ?? []),
    ],
  });
}

/**
 * A browser context with JavaScript on or off, in a language, as a visitor would come; `timeZone`:
 * the zone the browser is in (the machine's own when not given), `width`: the window's width.
 */
export async function newVisitor(
  browser: Browser,
  options: { javaScript: boolean; locale?: string; timeZone?: string; width?: number },
): Promise<BrowserContext> {
  return browser.newContext({
    javaScriptEnabled: options.javaScript,
    ...(options.timeZone ? { timezoneId: options.timeZone } : {}),
    ...(options.width ? { viewport: { width: options.width, height: 900 } } : {}),
    locale: options.locale ?? "en-US",
    extraHTTPHeaders: { "Accept-Language": options.locale ?? "en-US" },
    // axe-core is injected as an inline script, which the app's CSP rightly refuses.
    bypassCSP: true,
  });
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * Runs axe-core's WCAG 2.1 A and AA rules on the page. axe needs timers, which a page with
 * JavaScript off never runs, so such a page's rendered HTML is checked in a scripting context of
 * its own (its own scripts removed, its stylesheets still loaded from the server).
 */
export async function axeViolations(page: Page, options: { javaScript?: boolean } = {}): Promise<AxeViolation[]> {
  if (options.javaScript === false) {
    const origin = new URL(page.url()).origin;
    const html = (await page.content())
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
      .replace(/<link[^>]+rel="modulepreload"[^>]*>/gi, "")
      .replace(/<head>/i, `<head><base href="${origin}/">`);
    const context = await page.context().browser()!.newContext({ bypassCSP: true });
    try {
      const copy = await context.newPage();
      await copy.setContent(html, { waitUntil: "load" });
      return await runAxe(copy);
    } finally {
      await context.close();
    }
  }
  return runAxe(page);
}

async function runAxe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })),
    }));
  });
}

export function describeViolations(violations: AxeViolation[]) {
  return violations
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `   ${n.target.join(" ")} ${n.html}`).join("\n")}`)
    .join("\n");
}

/**
 * Waits until the page's scripts have taken over (the root marks `<html data-hydrated>`): a key
 * pressed before that is handled by the browser alone, as without JavaScript.
 */
export async function hydrated(page: Page) {
  await page.locator("html[data-hydrated]").waitFor({ state: "attached" });
}
