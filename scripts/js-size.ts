// `npm run size`: the gzipped JavaScript each public page loads, as the production build serves
// it (`npm run build` first; this starts the built server on a free port with the demo data).
// A page's scripts are read from its HTML: `<script src>` and `<link rel="modulepreload">`. A page
// that loads React also fetches the texts of its one language (a dynamic import in the client
// entry): counted at the largest language, so the total is the worst case. A page without React
// (its route says `hydrate: false`, ADR 0016) loads app/ui/enhance.js only.
// Issue 14's budget: 100 kB (100,000 bytes) for a booking page.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { supportedLanguages } from "../app/i18n";
import { startServer } from "../tests/support/server";

const budget = 100_000;
const pages = ["/", "/business", "/book/demo-salon", "/book/demo-salon?service=1", "/book/demo-salon?lng=ar", "/get-started", "/login"];
const clientDir = "build/client";

const sizes = new Map<string, number>();
/** Gzipped bytes of one asset ("/assets/x.js"), at zlib's default level, as the server compresses. */
function gzipped(asset: string) {
  let size = sizes.get(asset);
  if (size === undefined) {
    size = gzipSync(readFileSync(join(clientDir, asset))).length;
    sizes.set(asset, size);
  }
  return size;
}

/** Each language's texts chunk, found as a dynamic import ("./ar-Xyz.js") in the chunks given. */
function textChunks(chunks: Iterable<string>) {
  const found = new Map<string, string>();
  for (const chunk of chunks) {
    for (const [, file] of readFileSync(join(clientDir, chunk), "utf8").matchAll(/import\([`'"]\.\/([^`'"]+\.js)[`'"]\)/g)) {
      const language = supportedLanguages.find((lng) => file!.startsWith(`${lng}-`));
      if (language) found.set(language, `/assets/${file}`);
    }
  }
  return found;
}

const kB = (bytes: number) => `${(bytes / 1000).toFixed(1)} kB`;
const name = (asset: string) => asset.replace(/^\/assets\//, "");

const server = await startServer({ SEED_DEMO_DATA: "true" });
try {
  console.log(`JavaScript each page loads, gzipped (${clientDir}; 1 kB = 1000 bytes; budget ${kB(budget)} for a booking page)`);
  for (const page of pages) {
    const html = await (await fetch(`${server.url}${page}`, { headers: { "Accept-Language": "en" } })).text();
    const chunks = new Set<string>();
    for (const [, src] of html.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)) chunks.add(src!);
    for (const [, href] of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) chunks.add(href!);
    for (const [, href] of html.matchAll(/<link[^>]*href="([^"]+)"[^>]*rel="modulepreload"/g)) chunks.add(href!);
    const react = html.includes("__reactRouterContext");

    const rows = [...chunks].map((asset) => ({ asset, label: name(asset) }));
    const largest = react ? [...textChunks(chunks)].sort(([, a], [, b]) => gzipped(b) - gzipped(a))[0] : undefined;
    if (largest) rows.push({ asset: largest[1], label: `${name(largest[1])} (texts of one language; the largest, ${largest[0]})` });
    rows.sort((a, b) => gzipped(b.asset) - gzipped(a.asset));

    const total = rows.reduce((sum, row) => sum + gzipped(row.asset), 0);
    console.log(`\n${page} (${react ? "React" : "no React"})`);
    for (const row of rows) console.log(`  ${kB(gzipped(row.asset)).padStart(9)}  ${row.label}`);
    const verdict = total <= budget ? "within 100 kB" : `over 100 kB by ${kB(total - budget)}`;
    console.log(`  ${kB(total).padStart(9)}  total, ${rows.length} files: ${verdict}`);
  }
} finally {
  await server.stop();
}
