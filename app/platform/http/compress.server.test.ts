import { gunzipSync, brotliDecompressSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { compressBody, compressesWhole } from "./compress.server";

const page = Buffer.from("<p>Sakina</p>".repeat(200));

describe("compressBody", () => {
  it("gzips what a browser takes as gzip, and it reads back the same", () => {
    const { encoding, bytes } = compressBody(page, "gzip, deflate, br, zstd");
    expect(encoding).toBe("gzip");
    expect(gunzipSync(bytes).equals(page)).toBe(true);
  });

  it("sends brotli to a client that takes only brotli, and nothing to one that refuses both", () => {
    const br = compressBody(page, "br");
    expect(br.encoding).toBe("br");
    expect(brotliDecompressSync(br.bytes).equals(page)).toBe(true);
    expect(compressBody(page, "gzip;q=0, br;q=0").encoding).toBe("identity");
    expect(compressBody(page, undefined).encoding).toBe("identity");
    expect(compressBody(page, "identity").encoding).toBe("identity");
  });

  it("reads q values and the wildcard, a named coding before the wildcard", () => {
    expect(compressBody(page, "*").encoding).toBe("gzip");
    expect(compressBody(page, "*;q=0, gzip").encoding).toBe("gzip");
    expect(compressBody(page, "*, gzip;q=0").encoding).toBe("br");
    expect(compressBody(page, "GZIP ; Q=0.5").encoding).toBe("gzip");
  });

  it("leaves a small body as it is", () => {
    expect(compressBody(Buffer.from("ok"), "gzip")).toEqual({ encoding: "identity", bytes: Buffer.from("ok") });
  });
});

describe("compressesWhole", () => {
  const response = (headers: Record<string, string>) => new Response("x", { headers });
  it("takes pages and JSON, not event streams, images, encoded or no-transform answers", () => {
    expect(compressesWhole(response({ "Content-Type": "text/html; charset=utf-8" }))).toBe(true);
    expect(compressesWhole(response({ "Content-Type": "application/json" }))).toBe(true);
    expect(compressesWhole(response({ "Content-Type": "text/event-stream" }))).toBe(false);
    expect(compressesWhole(response({ "Content-Type": "audio/mpeg" }))).toBe(false);
    expect(compressesWhole(response({ "Content-Type": "text/html", "Content-Encoding": "gzip" }))).toBe(false);
    expect(compressesWhole(response({ "Content-Type": "text/html", "Cache-Control": "no-transform" }))).toBe(false);
  });
});
