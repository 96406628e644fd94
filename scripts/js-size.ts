// `npm run size`: the gzipped JavaScript each public page loads, read from the production build
// (`npx react-router build` first), no server needed. A page loads the client entry, the modules
// of its routes (root and its own) with their static imports, and the texts of its one language
// (a dynamic import of app/locales/load.ts). The texts are counted at the largest language, so the
// total is the worst case. Issue 14's budget: 100 kB (100,000 bytes) per page.
// `npm run size -- <build/client>` measures another build directory.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { supportedLanguages } from "../app/i18n";

const budget = 100_000;
const pages = [
  { url: "/", route: "routes/home" },
  { url: "/business", route: "routes/business" },
  { url: "/book/:bookingLink (every step: one route module)", route: "routes/book" },
  { url: "/booking/:token", route: "routes/booking.manage" },
];

type ManifestRoute = { id: string; parentId?: string; module: string; imports?: string[] };
type Manifest = { entry: { module: string; imports: string[] }; routes: Record<string, ManifestRoute> };

const clientDir = process.argv[2] ?? "build/client";
const assetsDir = join(clientDir, "assets");
const manifestFile = readdirSync(assetsDir).find((name) => /^manifest-[\w-]+\.js$/.test(name));
if (!manifestFile) throw new Error(`No React Router manifest in ${assetsDir}: run npx react-router build first`);
// React Router writes it as `window.__reactRouterManifest={...};`.
const source = readFileSync(join(assetsDir, manifestFile), "utf8");
const manifest = JSON.parse(source.slice(source.indexOf("{"), source.lastIndexOf("}") + 1)) as Manifest;

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

console.log(`JavaScript each page loads, gzipped (${clientDir}; 1 kB = 1000 bytes; budget ${kB(budget)})`);
for (const page of pages) {
  const chain: ManifestRoute[] = [];
  for (let route = manifest.routes[page.route]; route; route = route.parentId ? manifest.routes[route.parentId] : undefined) {
    chain.unshift(route);
  }
  if (chain.length === 0) throw new Error(`Route ${page.route} is not in the manifest`);
  const chunks = new Set([manifest.entry.module, ...manifest.entry.imports]);
  for (const route of chain) for (const asset of [route.module, ...(route.imports ?? [])]) chunks.add(asset);

  const texts = textChunks(chunks);
  const largest = [...texts].sort(([, a], [, b]) => gzipped(b) - gzipped(a))[0];
  const rows = [...chunks].map((asset) => ({ asset, label: name(asset) }));
  if (largest) rows.push({ asset: largest[1], label: `${name(largest[1])} (texts of one language; the largest, ${largest[0]})` });
  rows.sort((a, b) => gzipped(b.asset) - gzipped(a.asset));

  const total = rows.reduce((sum, row) => sum + gzipped(row.asset), 0);
  console.log(`\n${page.url}`);
  for (const row of rows) console.log(`  ${kB(gzipped(row.asset)).padStart(9)}  ${row.label}`);
  const verdict = total <= budget ? "within the budget" : `over the budget by ${kB(total - budget)}`;
  console.log(`  ${kB(total).padStart(9)}  total, ${rows.length} chunks: ${verdict}`);
}
