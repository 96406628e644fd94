import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isPublicAddress, outboundRequest, PrivateAddressError } from "./outbound.server";

describe("isPublicAddress", () => {
  it("refuses loopback, private, link-local, metadata, reserved and mapped addresses", () => {
    for (const address of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.9",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
      "not an address",
    ]) {
      expect(isPublicAddress(address), address).toBe(false);
    }
  });
  it("lets public addresses through", () => {
    for (const address of ["8.8.8.8", "1.1.1.1", "17.253.144.10", "2606:4700:4700::1111", "::ffff:8.8.8.8"])
      expect(isPublicAddress(address), address).toBe(true);
  });
});

describe("outboundRequest", () => {
  let server: http.Server;
  let other: http.Server;
  const seen: { path: string; authorization: string | undefined }[] = [];
  let port = 0;
  let otherPort = 0;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      seen.push({ path: req.url ?? "", authorization: req.headers.authorization });
      if (req.url === "/away") res.writeHead(307, { Location: `http://127.0.0.1:${otherPort}/landed` }).end();
      else if (req.url === "/near") res.writeHead(302, { Location: "/landed" }).end();
      else res.writeHead(207, { "Content-Type": "application/xml" }).end("<ok/>");
    });
    other = http.createServer((req, res) => {
      seen.push({ path: `other${req.url}`, authorization: req.headers.authorization });
      res.writeHead(200).end("other");
    });
    await Promise.all([
      new Promise<void>((r) => server.listen(0, "127.0.0.1", r)),
      new Promise<void>((r) => other.listen(0, "127.0.0.1", r)),
    ]);
    port = (server.address() as AddressInfo).port;
    otherPort = (other.address() as AddressInfo).port;
  });
  afterAll(() => {
    server.close();
    other.close();
  });
  const init = (allowPrivate: boolean) => ({
    method: "PROPFIND",
    headers: { Authorization: "Basic c2VjcmV0" },
    signal: AbortSignal.timeout(5000),
    allowPrivate,
  });

  it("refuses an IP literal and a name that resolve to this machine, before any request is made", async () => {
    const before = seen.length;
    await expect(outboundRequest(`http://127.0.0.1:${port}/`, init(false))).rejects.toBeInstanceOf(PrivateAddressError);
    await expect(outboundRequest(`http://[::1]:${port}/`, init(false))).rejects.toBeInstanceOf(PrivateAddressError);
    await expect(outboundRequest(`http://localhost:${port}/`, init(false))).rejects.toThrow(/not a public internet address/);
    expect(seen.length).toBe(before);
  });

  it("reaches this machine when allowed, follows redirects, and drops the credentials when one leaves the origin", async () => {
    const near = await outboundRequest(`http://127.0.0.1:${port}/near`, init(true));
    expect(near.status).toBe(207);
    expect(seen.at(-1)).toEqual({ path: "/landed", authorization: "Basic c2VjcmV0" });
    const away = await outboundRequest(`http://127.0.0.1:${port}/away`, init(true));
    expect(await away.text()).toBe("other");
    expect(away.url).toBe(`http://127.0.0.1:${otherPort}/landed`);
    expect(seen.at(-1)).toEqual({ path: "other/landed", authorization: undefined });
  });
});
