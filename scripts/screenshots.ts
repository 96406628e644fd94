// `npm run screenshots`: the main pages at phone (390 px) and desktop (1280 px) width, in English
// and Arabic, written to screenshots/ (ignored by git), so anyone can look before they ship.
// It starts the production build on a free port with a throwaway data folder; `npm run build`
// first if the sources changed.
import { mkdir, rm } from "node:fs/promises";
import path from "node:path";
import { launchBrowser } from "../tests/support/browser";
import { startServer } from "../tests/support/server";

const root = path.resolve(import.meta.dirname, "..");
const out = path.join(root, "screenshots");
const pages = [
  { name: "home", path: "/" },
  { name: "business", path: "/business" },
  { name: "booking", path: "/book/demo-salon" },
  { name: "get-started", path: "/get-started" },
  { name: "login", path: "/login" },
  { name: "faq", path: "/faq" },
  { name: "how-it-works", path: "/how-it-works" },
  { name: "privacy", path: "/privacy" },
  { name: "providers", path: "/providers" },
  { name: "not-found", path: "/no-such-page" },
];
const widths = [390, 1280];
const languages = ["en", "ar"];

await rm(out, { recursive: true, force: true });
await mkdir(out, { recursive: true });
const server = await startServer({ SEED_DEMO_DATA: "true" });
const browser = await launchBrowser();
try {
  for (const language of languages) {
    for (const width of widths) {
      const context = await browser.newContext({ viewport: { width, height: 900 }, locale: language, bypassCSP: true });
      const page = await context.newPage();
      for (const entry of pages) {
        const separator = entry.path.includes("?") ? "&" : "?";
        await page.goto(`${server.url}${entry.path}${separator}lng=${language}`, { waitUntil: "networkidle" });
        const file = path.join(out, `${entry.name}-${language}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(path.relative(root, file));
      }
      await context.close();
    }
  }
} finally {
  await browser.close();
  await server.stop();
}
