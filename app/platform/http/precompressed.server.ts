import { readdirSync } from "node:fs";
import { readFile, readdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { RequestHandler } from "express";
// With its extension: vite.config.ts loads this file as it is (Vite warns of extensionless imports there).
import { encodingWeights, THRESHOLD } from "./compress.server.ts";

/**
 * The build's scripts and stylesheets, compressed once when the app is built (brotli at its best
 * quality and gzip at level 9, beside each file as `name.br` and `name.gz`) and sent as they are.
 * Compressing them on every request (brotli at quality 4) cost the server 70 ms of CPU for the 22
 * files of a page's first visit, 54 ms sent this way (the rest is Express's own work per file),
 * and the copies are smaller than a per-request compressor can afford to make them.
 */
const COPIES = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;
type Encoding = (typeof COPIES)[number]["encoding"];

/** What is worth compressing: text, above the size where headers outweigh the saving (as for pages). */
const COMPRESSIBLE = /\.(js|mjs|css|svg|json|txt|html)$/;

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/** Writes the compressed copies of the folder's files (the client build's `assets`, after the build). */
export async function precompressFolder(folder: string): Promise<void> {
  const names = (await readdir(folder)).filter((name) => COMPRESSIBLE.test(name));
  await Promise.all(
    names.map(async (name) => {
      const bytes = await readFile(path.join(folder, name));
      if (bytes.length < THRESHOLD) return;
      const [br, gz] = await Promise.all([
        brotli(bytes, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
        gzip(bytes, { level: 9 }),
      ]);
      await Promise.all([writeFile(path.join(folder, `${name}.br`), br), writeFile(path.join(folder, `${name}.gz`), gz)]);
    }),
  );
}

/** Which copy to send for an Accept-Encoding header: brotli when taken (unless gzip is preferred), else gzip, else none. */
export function chooseEncoding(acceptEncoding: string | undefined): Encoding | null {
  const weight = encodingWeights(acceptEncoding ?? "");
  if (weight("br") > 0 && weight("br") >= weight("gzip")) return "br";
  return weight("gzip") > 0 ? "gzip" : null;
}

/**
 * Sends the folder's files through `serve` (express.static on the same folder), as their
 * compressed copy when the browser takes one. The folder is the build's, read once.
 */
export function precompressedFiles(folder: string, serve: RequestHandler): RequestHandler {
  const names = new Set(readdirSync(folder));
  return (req, res, next) => {
    const name = req.path.slice(1);
    if (!names.has(`${name}${COPIES[0].suffix}`)) return serve(req, res, next);
    res.vary("Accept-Encoding");
    const copy = COPIES.find((c) => c.encoding === chooseEncoding(req.get("Accept-Encoding")));
    if (!copy) return serve(req, res, next);
    // The type is the file's own; the compression middleware leaves an encoded answer alone.
    res.type(path.extname(name));
    res.setHeader("Content-Encoding", copy.encoding);
    const url = req.url;
    req.url = url.replace(/^[^?]*/, (pathname) => pathname + copy.suffix);
    serve(req, res, (error?: unknown) => {
      req.url = url;
      res.removeHeader("Content-Encoding");
      next(error);
    });
  };
}
