import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { chromiumPath } from "./chromium-path.mjs";

export { chromiumPath };

/** `extraArgs`: more Chromium switches, e.g. a fake microphone (--use-fake-device-for-media-stream). */
export async function launchBrowser(options: { extraArgs?: string[] } = {}): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath)
    throw new Error("Chromium not found: apt-get install -y chromium-headless-shell (or chromium), or set CHROMIUM_PATH");
  return chromium.launch({
    executablePath,
    headless: true,
    env: withoutShiftedClock(process.env),
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
 * Every state its pages show is checked by axe (see watchStates).
 */
export async function newVisitor(
  browser: Browser,
  options: { javaScript: boolean; locale?: string; timeZone?: string; width?: number },
): Promise<BrowserContext> {
  const context = await browser.newContext({
    javaScriptEnabled: options.javaScript,
    ...(options.timeZone ? { timezoneId: options.timeZone } : {}),
    ...(options.width ? { viewport: { width: options.width, height: 900 } } : {}),
    locale: options.locale ?? "en-US",
    extraHTTPHeaders: { "Accept-Language": options.locale ?? "en-US" },
    // axe-core is injected as an inline script, which the app's CSP rightly refuses.
    bypassCSP: true,
  });
  await watchStates(context, { javaScript: options.javaScript });
  return context;
}

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
const axeSource = readFileSync(axePath, "utf8");

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; html: string }[];
}

/**
 * One page state as a visitor saw it: its HTML, where and how wide. `javaScript: false` is the
 * server's own page (what a visitor without JavaScript gets at that address).
 */
interface PageState {
  url: string;
  html: string;
  viewport: { width: number; height: number };
  javaScript: boolean;
  browser: Browser;
}

/**
 * The axe check of every page state the browser suites visit. A watched context records:
 * - each document the server sends (navigations, form posts answered with a page, error pages):
 *   the state a visitor without JavaScript sees there, whether the context runs JavaScript or not;
 * - with JavaScript, the page's DOM once loaded and again after each change settles (a step shown
 *   in place, an error summary, a menu opened), from a MutationObserver;
 * - the page as it is when the context closes.
 * States are compared by their HTML minus what changes on every load (scripts, nonces, CSRF
 * tokens), so each distinct state is checked once per test file, however often it is seen. The
 * checks run in one reused context per browser, after each test (tests/support/setup.ts) and when a
 * watched context closes; a violation fails the test that showed the state.
 *
 * A state's verdict is also kept on disk (see verdictFile), so a state another test file or an
 * earlier run of the suite already checked (CI's run on PostgreSQL after the one on PGlite shows
 * the same pages) is not checked again: the verdict is the same, and it still fails the test.
 */
const results = new Map<string, AxeViolation[]>();
const parsedResults = new Map<string, AxeViolation[]>();
let pending: { key: string; state: PageState }[] = [];
const inflight = new Set<Promise<unknown>>();
const checkers = new Map<Browser, Promise<Page>>();
export const axeStats = { captured: 0, checked: 0, checkedWithoutJavaScript: 0, known: 0, milliseconds: 0 };

function normalized(html: string) {
  return (
    html
      .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
      .replace(/<link[^>]+rel="modulepreload"[^>]*>/gi, "")
      .replace(/\snonce="[^"]*"/g, "")
      .replace(/\sdata-hydrated="[^"]*"/g, "")
      // Words (a name, a transcript as it streams in) and dates, times, prices and ids differ from
      // one run or one moment to the next, not the state: what axe weighs is the markup, and
      // whether an element has text at all.
      .replace(/>[^<]*\S[^<]*</g, ">x<")
      // The server writes an element's attributes in one order, React in the browser in another.
      .replace(/<([a-z][\w-]*)((?:\s+[^\s"'=<>/]+(?:="[^"]*")?)+)\s*>/gi, (_, tag: string, attributes: string) => {
        const sorted = [...attributes.matchAll(/\s+([^\s"'=<>/]+)(?:="([^"]*)")?/g)].map(([, name, value]) => `${name}="${value ?? ""}"`);
        return `<${tag} ${sorted.sort().join(" ")}>`;
      })
      // Tokens (a CSRF field, a capability link such as /call?chat=…) are new on every run: a run of
      // letters in both cases. The app's own names (ids, classes, routes) are lower-case words.
      .replace(/[\w-]{16,}/g, (run) => (/[A-Z]/.test(run) && /[a-z]/.test(run) ? "T" : run))
      .replace(/\d+/g, "0")
  );
}

/**
 * What a state's verdict depends on: its markup and the window's size. Not whether the browser ran
 * JavaScript: axe checks a copy without the page's scripts either way (axeOnCopy), so the same
 * markup seen with JavaScript on and off (a page the scripts leave as the server wrote it) is
 * checked once.
 */
function stateKey(state: Pick<PageState, "html" | "viewport">) {
  return createHash("sha1")
    .update(`${state.viewport.width}x${state.viewport.height}\0${normalized(state.html)}`)
    .digest("hex");
}

function record(page: Page, url: string, html: string, javaScript: boolean) {
  if (!/^https?:/.test(url) || !/<html[\s>]/i.test(html)) return;
  const browser = page.context().browser();
  if (!browser) return;
  const state = { url, html, javaScript, viewport: page.viewportSize() ?? { width: 1280, height: 720 }, browser };
  const key = stateKey(state);
  axeStats.captured++;
  if (results.has(key) || pending.some((p) => p.key === key)) return;
  pending.push({ key, state });
}

function track(work: Promise<unknown>) {
  const done = work.catch(() => undefined).finally(() => inflight.delete(done));
  inflight.add(done);
}

// With JavaScript, the page reports its DOM once parsed and 60 ms after each burst of changes
// (unless a form is being sent).
const observer = `(() => {
  if (window.top !== window) return;
  let timer;
  const send = () => {
    timer = undefined;
    // A form being sent is a moment, not a state: its outcome is reported when it settles.
    if (document.querySelector("[aria-busy=true]")) return;
    window.__sakinaState?.("<!DOCTYPE html>" + document.documentElement.outerHTML);
  };
  const start = () => {
    send();
    new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(send, 60); })
      .observe(document.documentElement, { subtree: true, childList: true, attributes: true, characterData: true });
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start); else start();
})();`;

/** Records, for the axe check, every state the context's pages show (see above). */
export async function watchStates(context: BrowserContext, options: { javaScript: boolean }) {
  if (options.javaScript) {
    await context.exposeBinding("__sakinaState", (source, html: string) => {
      if (source.frame === source.page.mainFrame()) record(source.page, source.frame.url(), html, true);
    });
    await context.addInitScript(observer);
  }
  const watchPage = (page: Page) => {
    page.on("response", (response) => {
      const request = response.request();
      if (request.resourceType() !== "document" || request.frame() !== page.mainFrame()) return;
      if (!(response.headers()["content-type"] ?? "").includes("text/html")) return;
      if (response.status() >= 300 && response.status() < 400) return;
      track(response.text().then((html) => record(page, response.url(), html, false)));
    });
  };
  context.pages().forEach(watchPage);
  context.on("page", watchPage);
  const close = context.close.bind(context);
  context.close = async (...args: Parameters<BrowserContext["close"]>) => {
    for (const page of context.pages()) {
      const html = await page.content().catch(() => null);
      if (html) record(page, page.url(), html, options.javaScript);
    }
    await close(...args);
    const failures = await checkVisitedStates();
    if (failures) throw new Error(failures);
  };
}

/** Checks the states recorded since the last call; "" when axe found nothing, else what it found, by state. */
export async function checkVisitedStates(): Promise<string> {
  while (inflight.size > 0) await Promise.all([...inflight]);
  const batch = pending;
  pending = [];
  const failures: string[] = [];
  for (const { key, state } of batch) {
    if (!state.browser.isConnected()) continue;
    const violations = await verdictOf(key, state);
    if (violations.length > 0) {
      const where = `${state.url} (JavaScript ${state.javaScript ? "on" : "off"}, ${state.viewport.width} px)`;
      failures.push(`axe on ${where}:\n${describeViolations(violations)}`);
    }
  }
  return failures.join("\n\n");
}

/**
 * axe on a copy of the state, in a scripting context of its own (axe needs timers, which a page
 * with JavaScript off never runs): the page's own scripts removed, its stylesheets still loaded
 * from the server, at the same width.
 */
async function axeOnCopy(state: PageState): Promise<AxeViolation[]> {
  const started = performance.now();
  let checker = checkers.get(state.browser);
  if (!checker) {
    checker = state.browser.newContext({ bypassCSP: true }).then((context) => context.newPage());
    checkers.set(state.browser, checker);
  }
  const page = await checker;
  await page.setViewportSize(state.viewport);
  const origin = new URL(state.url).origin;
  const html = state.html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, "")
    .replace(/<link[^>]+rel="modulepreload"[^>]*>/gi, "")
    .replace(/\sautofocus(="[^"]*")?/gi, "")
    .replace(/<head>/i, `<head><base href="${origin}/">`);
  await page.setContent(html, { waitUntil: "load" });
  // The same state may come as the server wrote it or as the browser serialises it: once parsed,
  // it is compared again (with this file's checks and the verdicts on disk), and checked only if new.
  const parsed = await page.evaluate(() => "<!DOCTYPE html>" + document.documentElement.outerHTML);
  const canonical = stateKey({ html: parsed, viewport: state.viewport });
  const file = verdictFile(canonical, state.html);
  let violations = parsedResults.get(canonical);
  if (!violations) {
    violations = readVerdict(file);
    if (violations) axeStats.known++;
    else {
      violations = await runAxe(page);
      writeVerdict(file, violations);
      axeStats.checked++;
      if (!state.javaScript) axeStats.checkedWithoutJavaScript++;
      // AXE_DEBUG=1 lists each state checked.
      if (process.env.AXE_DEBUG)
        process.stdout.write(`axe: JavaScript ${state.javaScript ? "on" : "off"}, ${state.viewport.width} px, ${state.url}\n`);
    }
    parsedResults.set(canonical, violations);
  }
  axeStats.milliseconds += performance.now() - started;
  return violations;
}

/**
 * Runs axe-core's WCAG 2.1 A and AA rules on the page as it is now (the same check, and the same
 * cached result, as the states recorded by watchStates).
 */
export async function axeViolations(page: Page, options: { javaScript?: boolean } = {}): Promise<AxeViolation[]> {
  const browser = page.context().browser()!;
  const state = {
    url: page.url(),
    html: await page.content(),
    javaScript: options.javaScript ?? true,
    viewport: page.viewportSize() ?? { width: 1280, height: 720 },
    browser,
  };
  return verdictOf(stateKey(state), state);
}

/** The state's violations: from this file's checks, from the disk (an earlier file's or run's), or checked now. */
async function verdictOf(key: string, state: PageState): Promise<AxeViolation[]> {
  let violations = results.get(key);
  if (violations) return violations;
  const file = verdictFile(key, state.html);
  violations = readVerdict(file);
  if (violations) axeStats.known++;
  else {
    violations = await axeOnCopy(state);
    writeVerdict(file, violations);
  }
  results.set(key, violations);
  return violations;
}

/**
 * Where a state's verdict is kept between test files and runs: named by the state (its normalized
 * markup and width), the stylesheets it links exactly as named (the build names each by its
 * content, so changed CSS is a new state), and what decides a verdict (axe-core itself, the rules
 * asked for, the normalization). In the machine's temporary folder, as the migrated test databases
 * are (tests/support/database.ts): a new clone (each CI run is one) finds the verdicts of the
 * states an earlier run checked, and checks only the states it shows first.
 */
function verdictFile(key: string, html: string) {
  const stylesheets = [...html.matchAll(/<link\b[^>]*>/gi)]
    .filter(([tag]) => /\brel="stylesheet"/i.test(tag))
    .map(([tag]) => /\bhref="([^"]*)"/i.exec(tag)?.[1])
    .join("\n");
  const name = createHash("sha1").update(`${checkerVersion}\0${key}\0${stylesheets}`).digest("hex");
  return path.join(verdictFolder, name.slice(0, 2), `${name}.json`);
}
const checkerVersion = createHash("sha1")
  .update(createHash("sha1").update(axeSource).digest("hex"))
  .update([runAxe, normalized, stateKey, axeOnCopy].map(String).join("\0"))
  .digest("hex");
const verdictFolder = path.join(os.tmpdir(), "sakina-axe-verdicts");

/** Written beside its final name and renamed into place: a reader never sees half a verdict. */
function writeVerdict(file: string, violations: AxeViolation[]) {
  mkdirSync(path.dirname(file), { recursive: true });
  const making = `${file}.${process.pid}`;
  writeFileSync(making, JSON.stringify(violations));
  renameSync(making, file);
}

function readVerdict(file: string): AxeViolation[] | undefined {
  try {
    return JSON.parse(readFileSync(file, "utf8")) as AxeViolation[];
  } catch {
    return undefined;
  }
}

async function runAxe(page: Page): Promise<AxeViolation[]> {
  // setContent keeps the window, and axe with it: it is loaded once per checking page.
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe;
    const result = await axe.run(document, {
      runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] },
      // Only violations are read: axe then lists one element, not all, for the other outcomes
      // (passes, inapplicable), a third less time on a first check.
      resultTypes: ["violations"],
    });
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({ target: n.target, html: n.html.slice(0, 200) })),
    }));
  });
}

// The vitest setup (tests/support/setup.ts) runs the check after each test, when a suite uses a browser.
(globalThis as { sakinaAxeCheck?: { check: typeof checkVisitedStates; stats: typeof axeStats } }).sakinaAxeCheck = {
  check: checkVisitedStates,
  stats: axeStats,
};

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

/**
 * The environment without libfaketime (`npm run test:at-date`): the servers and the tests run at
 * the date chosen, the browser on the real clock (under libfaketime Chromium's pages stall).
 */
function withoutShiftedClock(env: NodeJS.ProcessEnv) {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(env))
    if (value !== undefined && name !== "LD_PRELOAD" && !name.startsWith("FAKETIME")) kept[name] = value;
  return kept;
}
