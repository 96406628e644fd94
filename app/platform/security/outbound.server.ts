import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import http from "node:http";
import https from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/**
 * Requests to an address someone typed (an owner's CalDAV server): Sakina's server must not be
 * made to reach what only it can reach (its own loopback, the private network it sits in, a cloud
 * metadata address). Every hop is checked: the address the name resolves to is checked at the
 * moment the socket connects (so a name that answers a public address first and a private one
 * next cannot slip through), an IP literal before connecting, and each redirect again.
 */
const PRIVATE = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 3],
] as const)
  PRIVATE.addSubnet(network, prefix, "ipv4");
for (const [network, prefix] of [
  ["::", 127],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  PRIVATE.addSubnet(network, prefix, "ipv6");

/** Whether an IP address is one the public internet routes (not loopback, private, link-local, reserved). */
export function isPublicAddress(address: string) {
  // An IPv4 address written as IPv6 (::ffff:127.0.0.1, ::ffff:7f00:1) is judged as the IPv4 one.
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return isPublicAddress(mapped[1]!);
  const hexMapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hexMapped) {
    const [high, low] = [parseInt(hexMapped[1]!, 16), parseInt(hexMapped[2]!, 16)];
    return isPublicAddress([high >> 8, high & 255, low >> 8, low & 255].join("."));
  }
  const family = isIP(address);
  if (family === 0) return false;
  return !PRIVATE.check(address, family === 4 ? "ipv4" : "ipv6");
}

export class PrivateAddressError extends Error {
  constructor(host: string) {
    super(`${host} is not a public internet address`);
  }
}

/** dns.lookup, refusing an answer with any address that is not public. */
const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    if (addresses.length === 0 || addresses.some((entry) => !isPublicAddress(entry.address))) {
      return callback(Object.assign(new PrivateAddressError(hostname), { code: "EPRIVATE" }), "", 4);
    }
    if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

export interface OutboundResponse {
  status: number;
  statusText: string;
  ok: boolean;
  /** The address that answered, after redirects. */
  url: string;
  headers: Headers;
  text(): Promise<string>;
  body: { cancel(): Promise<void> } | null;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const MAX_BODY_BYTES = 16 * 1024 * 1024;

/**
 * A request as fetch makes it (redirects followed, at most five; Authorization dropped when a
 * redirect leaves the origin, as fetch does), to public addresses only unless `allowPrivate`
 * (a server whose owners' calendars live on its own network). Throws PrivateAddressError.
 */
export async function outboundRequest(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal; allowPrivate: boolean },
): Promise<OutboundResponse> {
  let current = new URL(url);
  let { method, body } = init;
  let headers = { ...init.headers };
  for (let hop = 0; ; hop++) {
    if (current.protocol !== "http:" && current.protocol !== "https:") throw new Error(`${current.protocol} is not http or https`);
    const host = current.hostname.replace(/^\[|\]$/g, "");
    if (!init.allowPrivate && isIP(host) && !isPublicAddress(host)) throw new PrivateAddressError(host);
    const response = await once(current, { method, headers, body, signal: init.signal, allowPrivate: init.allowPrivate });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || !location || hop >= 5) return response;
    await response.body?.cancel();
    const next = new URL(location, current);
    if (next.origin !== current.origin)
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== "authorization"));
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === "POST")) {
      method = "GET";
      body = undefined;
    }
    current = next;
  }
}

function once(
  url: URL,
  init: { method: string; headers: Record<string, string>; body?: string; signal: AbortSignal; allowPrivate: boolean },
): Promise<OutboundResponse> {
  const client = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    const req = client.request(
      url,
      {
        method: init.method,
        headers: { ...init.headers, ...(init.body !== undefined ? { "Content-Length": String(Buffer.byteLength(init.body)) } : {}) },
        signal: init.signal,
        ...(init.allowPrivate ? {} : { lookup: publicOnlyLookup }),
      },
      (res) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (value === undefined) continue;
          for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
        }
        let consumed = false;
        const status = res.statusCode ?? 0;
        resolve({
          status,
          statusText: res.statusMessage ?? "",
          ok: status >= 200 && status < 300,
          url: url.toString(),
          headers,
          async text() {
            consumed = true;
            const chunks: Buffer[] = [];
            let size = 0;
            for await (const chunk of res) {
              size += (chunk as Buffer).length;
              // A calendar's answer for a year is well under this; a server sending more is refused.
              if (size > MAX_BODY_BYTES) {
                res.destroy();
                throw new Error(`the answer is over ${MAX_BODY_BYTES} bytes`);
              }
              chunks.push(chunk as Buffer);
            }
            return Buffer.concat(chunks).toString("utf8");
          },
          body: {
            async cancel() {
              if (!consumed) res.destroy();
            },
          },
        });
      },
    );
    req.on("error", reject);
    if (init.body !== undefined) req.write(init.body);
    req.end();
  });
}
