import { describe, expect, it } from "vitest";
import { addressGroup } from "./address-group.server";

describe("addressGroup", () => {
  it("keeps IPv4 addresses, also when mapped into IPv6", () => {
    expect(addressGroup("203.0.113.7")).toBe("203.0.113.7");
    expect(addressGroup("::ffff:203.0.113.7")).toBe("203.0.113.7");
  });

  it("counts every address of an IPv6 /64 as one, however it is written", () => {
    const group = "2001:db8:85a3:0::/64";
    expect(addressGroup("2001:db8:85a3::1")).toBe(group);
    expect(addressGroup("2001:0db8:85a3:0000:1111:2222:3333:4444")).toBe(group);
    expect(addressGroup("2001:DB8:85A3:0:ffff::")).toBe(group);
    expect(addressGroup("2001:db8:85a4::1")).not.toBe(group);
    expect(addressGroup("::1")).toBe("0:0:0:0::/64");
    expect(addressGroup("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
  });

  it("leaves anything else as it is", () => {
    expect(addressGroup("unknown")).toBe("unknown");
  });
});
