// `npm run lighthouse`: Lighthouse's mobile scores (performance, accessibility, best practices,
// SEO) for the home page, the business page and a booking page, on the production build served
// from this machine, with Debian's Chromium. `npm run build` first if the sources changed.
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import { chromiumPath } from "../tests/support/browser";
import { startServer } from "../tests/support/server";

const pages = process.argv.length > 2 ? process.argv.slice(2) : ["/", "/business", "/book/demo-salon"];
const executable = chromiumPath({ fullBrowser: true });
if (!executable) throw new Error("Chromium not found: apt-get install -y chromium, or set CHROMIUM_PATH");

const server = await startServer({ SEED_DEMO_DATA: "true" });
const chrome = await chromeLauncher.launch({
  chromePath: executable,
  chromeFlags: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
});
try {
  console.log("Lighthouse (mobile, simulated throttling)");
  console.log("| page | performance | accessibility | best practices | SEO | LCP | TBT | JS transferred |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const page of pages) {
    const result = await lighthouse(`${server.url}${page}`, {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
    });
    const lhr = result!.lhr;
    if (lhr.runtimeError) console.error(`${page}: ${lhr.runtimeError.code}: ${lhr.runtimeError.message}`);
    for (const warning of lhr.runWarnings ?? []) console.error(`${page}: ${warning}`);
    const score = (id: string) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
    const audit = (id: string) => lhr.audits[id]?.displayValue ?? "";
    const items =
      (lhr.audits["resource-summary"]?.details as { items?: { resourceType: string; transferSize: number }[] } | undefined)?.items ?? [];
    const script = items.find((item) => item.resourceType === "script")?.transferSize ?? 0;
    console.log(
      `| ${page} | ${score("performance")} | ${score("accessibility")} | ${score("best-practices")} | ${score("seo")} | ${audit("largest-contentful-paint")} | ${audit("total-blocking-time")} | ${(script / 1024).toFixed(0)} KiB |`,
    );
  }
} finally {
  chrome.kill();
  await server.stop();
}
