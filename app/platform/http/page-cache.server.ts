import { randomBytes } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import zlib from "node:zlib";

/**
 * The public pages a first-time visitor asks for (no cookie, no query string) are the same for
 * every such visitor except for two values made for each response: the CSP nonce and the CSRF
 * token (which its Set-Cookie carries too). Rendering them took about 10 ms of CPU each; this
 * keeps the last render of each page for a few seconds, cut at those two values, and answers the
 * next first-time visitors from it, in front of Express, with fresh values spliced in, already
 * gzipped (the fixed parts are compressed once, the new values go in as stored deflate blocks).
 *
 * Anything that may differ per visitor is never served from here: a request with a cookie (a
 * session, a language choice, a toast, a draft), a query string, a body, or a method other than
 * GET. A page is kept only if its render set no cookie but the CSRF one. Entries live a few
 * seconds, and every write in this process (any request that is not GET or HEAD) empties the
 * cache, so an owner's change shows on the next load here and on other processes within the TTL.
 */
export interface PageCache {
  /** Answers `req` from the cache when it can; false when the app must render it. */
  serve(req: IncomingMessage, res: ServerResponse): boolean;
  /** Whether a rendered response to this request may be kept. */
  cacheable(request: Request): boolean;
  /** Keeps a rendered page, cut at the response's nonce and CSRF token. */
  store(request: Request, page: RenderedPage): void;
  /** Forgets every page (data changed). */
  clear(): void;
}

export interface RenderedPage {
  status: number;
  /** The router's headers (Content-Type, Cache-Control…), without Set-Cookie. */
  headers: [string, string][];
  html: string;
  nonce: string;
  csrfToken: string;
}

export interface PageCacheOptions {
  /** Paths whose first-visit render is the same for everyone. */
  paths: RegExp[];
  ttlMs: number;
  maxEntries?: number;
  /** The headers every response carries for a given nonce (CSP and the other security headers). */
  securityHeaders(nonce: string): [string, string][];
  /** The Set-Cookie value that hands a new visitor this CSRF token. */
  csrfCookie(token: string): string;
  now?: () => number;
}

type Part = { kind: "text"; raw: Buffer; deflated: Buffer } | { kind: "nonce" | "token" };

interface Entry {
  expires: number;
  status: number;
  headers: [string, string][];
  parts: Part[];
}

const MAX_KEY_HEADER = 256;

export function createPageCache(options: PageCacheOptions): PageCache {
  const entries = new Map<string, Entry>();
  const now = options.now ?? Date.now;
  const maxEntries = options.maxEntries ?? 200;

  function keyOf(method: string | undefined, url: string | undefined, acceptLanguage: string | null | undefined, hasCookie: boolean) {
    if (method !== "GET" || !url || hasCookie) return null;
    if (url.includes("?") || url.includes("#")) return null;
    if (!options.paths.some((pattern) => pattern.test(url))) return null;
    const language = acceptLanguage ?? "";
    if (language.length > MAX_KEY_HEADER) return null;
    return `${url}\n${language}`;
  }

  /** The same key for a router Request as `serve` computes for the raw request. */
  function requestKey(request: Request) {
    const url = new URL(request.url);
    return keyOf(request.method, `${url.pathname}${url.search}`, request.headers.get("Accept-Language"), request.headers.has("Cookie"));
  }

  return {
    serve(req, res) {
      const hasBody = req.headers["content-length"] !== undefined || req.headers["transfer-encoding"] !== undefined;
      const key = keyOf(req.method, req.url, req.headers["accept-language"], req.headers.cookie !== undefined || hasBody);
      if (!key) return false;
      const entry = entries.get(key);
      if (!entry) return false;
      if (entry.expires <= now()) {
        entries.delete(key);
        return false;
      }
      const random = randomBytes(40);
      const nonce = random.subarray(0, 16).toString("base64");
      const token = random.subarray(16).toString("base64url");
      const gzip = /\bgzip\b/i.test(String(req.headers["accept-encoding"] ?? ""));
      const body = gzip ? gzipParts(entry.parts, nonce, token) : joinParts(entry.parts, nonce, token);
      for (const [name, value] of options.securityHeaders(nonce)) res.setHeader(name, value);
      for (const [name, value] of entry.headers) res.setHeader(name, value);
      res.setHeader("Set-Cookie", options.csrfCookie(token));
      res.setHeader("Vary", "Accept-Encoding");
      res.setHeader("Server-Timing", 'page-cache;desc="hit"');
      if (gzip) res.setHeader("Content-Encoding", "gzip");
      res.setHeader("Content-Length", body.length);
      res.writeHead(entry.status);
      res.end(body);
      return true;
    },

    cacheable(request) {
      return requestKey(request) !== null;
    },

    store(request, page) {
      const key = requestKey(request);
      if (!key || page.status !== 200 || page.nonce.length < 16 || page.csrfToken.length < 32) return;
      const parts = cut(page.html, page.nonce, page.csrfToken);
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(key, { expires: now() + options.ttlMs, status: page.status, headers: page.headers, parts });
    },

    clear() {
      entries.clear();
    },
  };
}

/** The page as fixed text and the places of the two per-response values. */
function cut(html: string, nonce: string, token: string): Part[] {
  const parts: Part[] = [];
  const pattern = new RegExp(`${escape(nonce)}|${escape(token)}`, "g");
  let last = 0;
  const text = (value: string) => {
    const raw = Buffer.from(value);
    parts.push({ kind: "text", raw, deflated: zlib.deflateRawSync(raw, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH }) });
  };
  for (const match of html.matchAll(pattern)) {
    text(html.slice(last, match.index));
    parts.push({ kind: match[0] === nonce ? "nonce" : "token" });
    last = match.index + match[0].length;
  }
  text(html.slice(last));
  return parts;
}

function escape(value: string) {
  return value.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
}

function valueOf(part: Part, nonce: string, token: string) {
  return Buffer.from(part.kind === "nonce" ? nonce : token);
}

export function joinParts(parts: Part[], nonce: string, token: string) {
  return Buffer.concat(parts.map((part) => (part.kind === "text" ? part.raw : valueOf(part, nonce, token))));
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0, 0x00, 0xff]);
/** A final, empty stored block: the end of the deflate stream. */
const LAST_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);

/**
 * One gzip member from parts compressed ahead (each ends byte-aligned and with no reference to
 * what came before, thanks to a full flush) and the new values as stored (uncompressed) blocks.
 */
export function gzipParts(parts: Part[], nonce: string, token: string) {
  const chunks: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  for (const part of parts) {
    if (part.kind === "text") {
      chunks.push(part.deflated);
      crc = zlib.crc32(part.raw, crc);
      size += part.raw.length;
    } else {
      const value = valueOf(part, nonce, token);
      const header = Buffer.alloc(5);
      header[0] = 0x00; // not the last block; stored
      header.writeUInt16LE(value.length, 1);
      header.writeUInt16LE(~value.length & 0xffff, 3);
      chunks.push(header, value);
      crc = zlib.crc32(value, crc);
      size += value.length;
    }
  }
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  chunks.push(LAST_BLOCK, trailer);
  return Buffer.concat(chunks);
}
