import { isIPv6 } from "node:net";

/**
 * The unit a per-address limit should count: an IPv4 address itself, but a whole IPv6 /64, since
 * one subscriber usually holds a /64 and could otherwise take a fresh address for every attempt.
 */
export function addressGroup(ip: string) {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  if (mapped) return mapped[1]!;
  const address = ip.split("%")[0]!;
  if (!isIPv6(address)) return ip;
  const [head = "", tail] = address.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(":")}::/64`;
}
