// Which Chromium the browser tests drive, in plain JavaScript so that `npm test` (scripts/test.js,
// run by node itself) decides whether they can run exactly as the tests pick the browser.
import { existsSync } from "node:fs";

/**
 * CHROMIUM_PATH when set; else Debian's headless shell (`chromium-headless-shell`: the same
 * Chromium, built without the desktop browser around the page, as Playwright's own headless mode
 * is; the browser suites take half the CPU they take in the full browser's headless mode); else
 * Debian's `chromium`. `fullBrowser`: the full browser only (Lighthouse launches it in its own way).
 *
 * @param {{ fullBrowser?: boolean }} [options]
 * @returns {string | null}
 */
export function chromiumPath(options = {}) {
  const candidates = [
    process.env.CHROMIUM_PATH,
    ...(options.fullBrowser ? [] : ["/usr/bin/chromium-headless-shell"]),
    "/usr/bin/chromium",
    "/usr/bin/chromium-browser",
  ];
  return candidates.find((candidate) => Boolean(candidate && existsSync(candidate))) ?? null;
}
