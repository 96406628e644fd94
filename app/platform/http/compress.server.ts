import zlib from "node:zlib";

/**
 * Pages and API answers are compressed here, whole and at once, rather than by the compression
 * middleware's stream: a page is rendered in full within milliseconds anyway, and one call to
 * zlib costs a fraction of the dozens of chunk round trips through zlib's thread pool. gzip at
 * level 1 costs about a tenth of what brotli at quality 4 (the middleware's default) did, for
 * pages about 15 % larger (24 kB of home page: 6.3 kB against 5.5 kB); on a phone connection the
 * difference is a millisecond, on the server it was a tenth of a render. A Server-
 * Sent Events stream and anything not text keep the middleware (or no compression); the build's
 * scripts and styles go as compressed at build time (precompressed.server.ts).
 */
const GZIP_LEVEL = 1;
/** Below this a response is sent as it is (compression's own default threshold). */
export const THRESHOLD = 1024;

const COMPRESSIBLE = /^(text\/(?!event-stream)|application\/(json|javascript|xml|[\w.+-]+\+(json|xml))\b)/i;

/** Whether `response` is a compressible answer that may be read whole before it is sent. */
export function compressesWhole(response: Response) {
  const type = response.headers.get("Content-Type") ?? "";
  return (
    COMPRESSIBLE.test(type) &&
    !response.headers.has("Content-Encoding") &&
    !/\bno-transform\b/i.test(response.headers.get("Cache-Control") ?? "")
  );
}

/** The body in the encoding the client takes: gzip if it takes it, else brotli, else none. */
export function compressBody(body: Buffer, acceptEncoding: string | undefined): { encoding: "gzip" | "br" | "identity"; bytes: Buffer } {
  if (body.length < THRESHOLD) return { encoding: "identity", bytes: body };
  const accepted = acceptedEncodings(acceptEncoding ?? "");
  if (accepted.has("gzip")) return { encoding: "gzip", bytes: zlib.gzipSync(body, { level: GZIP_LEVEL }) };
  if (accepted.has("br")) {
    const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 4, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length };
    return { encoding: "br", bytes: zlib.brotliCompressSync(body, { params }) };
  }
  return { encoding: "identity", bytes: body };
}

/** The codings an Accept-Encoding header allows: q above 0, a coding it names over "*". */
function acceptedEncodings(header: string) {
  const weight = encodingWeights(header);
  return new Set(["gzip", "br"].filter((name) => weight(name) > 0));
}

/** Each coding's weight (q) in an Accept-Encoding header: 0 when refused or not named (and no "*"). */
export function encodingWeights(header: string): (coding: string) => number {
  const weights = new Map<string, number>();
  for (const entry of header.slice(0, 512).split(",")) {
    const [name = "", ...params] = entry.split(";").map((part) => part.trim().toLowerCase());
    const q = params.map((p) => /^q=([\d.]+)$/.exec(p)?.[1]).find((value) => value !== undefined);
    if (name) weights.set(name, q === undefined ? 1 : Number(q));
  }
  const star = weights.get("*") ?? 0;
  return (coding) => weights.get(coding) ?? star;
}
