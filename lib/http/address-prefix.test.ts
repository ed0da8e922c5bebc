import { describe, expect, it } from "vitest";
import { maskAddress } from "./address-prefix";

describe("maskAddress", () => {
  it("keeps an IPv4 address's /24 only", () => {
    expect(maskAddress("192.0.2.187")).toBe("192.0.2.x");
    expect(maskAddress("::ffff:198.51.100.23")).toBe("198.51.100.x");
    expect(maskAddress("203.0.113.9:5123")).toBe("203.0.113.x");
  });

  it("keeps an IPv6 address's /48 only", () => {
    expect(maskAddress("2001:db8:1234:5678:9abc:def0:1234:5678")).toBe("2001:db8:1234::/48");
    expect(maskAddress("[2001:DB8:aa:1::1]:443")).toBe("2001:db8:aa::/48");
    expect(maskAddress("::1")).toBe("::/48");
  });

  it("says nothing for what is not an address", () => {
    expect(maskAddress("")).toBe("");
    expect(maskAddress(undefined)).toBe("");
    expect(maskAddress("unknown")).toBe("");
  });
});
