import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp, isTrustedPeer, normalizeAddress, parseTrustProxy, resolveClientIp, throttleKeyOf, type TrustProxyRule } from "./client-ip";

function rule(value: string): TrustProxyRule {
  const parsed = parseTrustProxy(value);
  if (typeof parsed === "string") throw new Error(parsed);
  return parsed;
}

function request(remoteAddress: string | undefined, forwardedFor?: string | string[]): IncomingMessage {
  return { socket: { remoteAddress }, headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } } as unknown as IncomingMessage;
}

describe("parseTrustProxy", () => {
  it.each(["", "0", "false", "FALSE", "no", "off", " off ", "00"])("%j trusts nothing", (value) => {
    expect(parseTrustProxy(value)).toEqual({ mode: "none" });
  });

  it.each(["1", "true", "True", "yes", "on"])("%j trusts one hop", (value) => {
    expect(parseTrustProxy(value)).toEqual({ mode: "hops", hops: 1 });
  });

  it("an integer is a hop count", () => {
    expect(parseTrustProxy("2")).toEqual({ mode: "hops", hops: 2 });
    expect(parseTrustProxy("32")).toEqual({ mode: "hops", hops: 32 });
    expect(parseTrustProxy("33")).toMatch(/at most 32/);
  });

  it("a list of addresses and CIDR ranges, IPv4 and IPv6, normalized", () => {
    expect(parseTrustProxy("10.0.0.0/8, 192.0.2.7,2001:DB8::/32, ::1, ::ffff:172.16.0.0/108")).toEqual({
      mode: "list",
      ranges: [
        { address: "10.0.0.0", prefix: 8, family: "ipv4" },
        { address: "192.0.2.7", prefix: 32, family: "ipv4" },
        { address: "2001:db8::", prefix: 32, family: "ipv6" },
        { address: "::1", prefix: 128, family: "ipv6" },
        { address: "172.16.0.0", prefix: 12, family: "ipv4" },
      ],
    });
  });

  it.each(["maybe", "10.0.0.0/33", "2001:db8::/129", "10.0.0.0/8,", "10.0.0.0/8,,10.1.0.0/16", "10.0.0.1/8/1", "-1", "10.0.0.0/x", "[::1]", "10.0.0.1:80", "1.5"])(
    "%j is refused with a one-line reason",
    (value) => {
      const result = parseTrustProxy(value);
      expect(typeof result).toBe("string");
      expect(result).not.toContain("\n");
    },
  );
});

describe("normalizeAddress", () => {
  it.each([
    ["192.0.2.1", "192.0.2.1"],
    [" 192.0.2.1 ", "192.0.2.1"],
    ["192.0.2.1:8080", "192.0.2.1"],
    ["::ffff:192.0.2.1", "192.0.2.1"],
    ["::FFFF:192.0.2.1", "192.0.2.1"],
    ["0:0:0:0:0:ffff:c000:0201", "192.0.2.1"],
    ["[::ffff:192.0.2.1]:443", "192.0.2.1"],
    ["2001:DB8:0:0:0:0:0:1", "2001:db8::1"],
    ["[2001:db8::1]", "2001:db8::1"],
    ["[2001:db8::1]:1234", "2001:db8::1"],
    ["fe80::1%eth0", "fe80::1"],
    ["::1", "::1"],
  ])("%j → %j", (raw, expected) => {
    expect(normalizeAddress(raw)).toBe(expected);
  });

  it.each(["", "unknown", "evil.example", "1.2.3", "256.1.1.1", "<script>", "2001:db8:::1", "_hidden"])("%j is not an address", (raw) => {
    expect(normalizeAddress(raw)).toBeNull();
  });
});

describe("resolveClientIp", () => {
  describe("trusting nothing", () => {
    const none = rule("0");
    it("is the socket address, whatever X-Forwarded-For says", () => {
      expect(resolveClientIp("198.51.100.9", "203.0.113.1", none)).toBe("198.51.100.9");
      expect(resolveClientIp("::ffff:198.51.100.9", "203.0.113.1, 10.0.0.1", none)).toBe("198.51.100.9");
      expect(resolveClientIp(undefined, "203.0.113.1", none)).toBe("unknown");
    });
  });

  describe("one hop (TRUST_PROXY=1)", () => {
    const one = rule("1");
    it("is the right-most X-Forwarded-For entry, the one our proxy appended", () => {
      expect(resolveClientIp("10.0.0.2", "203.0.113.5", one)).toBe("203.0.113.5");
      expect(resolveClientIp("10.0.0.2", "203.0.113.5:51000", one)).toBe("203.0.113.5");
    });
    it("ignores spoofed left-most entries", () => {
      expect(resolveClientIp("10.0.0.2", "1.1.1.1, 6.6.6.6, 203.0.113.5", one)).toBe("203.0.113.5");
      expect(resolveClientIp("10.0.0.2", ["1.1.1.1", "203.0.113.5"], one)).toBe("203.0.113.5");
    });
    it("without X-Forwarded-For (a direct connection) is the socket address", () => {
      expect(resolveClientIp("10.0.0.2", undefined, one)).toBe("10.0.0.2");
      expect(resolveClientIp("10.0.0.2", "", one)).toBe("10.0.0.2");
      expect(resolveClientIp("10.0.0.2", " , ", one)).toBe("10.0.0.2");
    });
    it("never takes text that is not an address: the hop that reported it is the client", () => {
      expect(resolveClientIp("10.0.0.2", "unknown", one)).toBe("10.0.0.2");
      expect(resolveClientIp("10.0.0.2", "203.0.113.5, <script>", one)).toBe("10.0.0.2");
    });
    it("normalizes IPv6 and IPv4-mapped addresses", () => {
      expect(resolveClientIp("::ffff:10.0.0.2", "2001:DB8::0:7", one)).toBe("2001:db8::7");
      expect(resolveClientIp("::1", "::ffff:203.0.113.5", one)).toBe("203.0.113.5");
    });
  });

  describe("N hops (TRUST_PROXY=2)", () => {
    const two = rule("2");
    it("skips exactly N-1 entries from the right", () => {
      expect(resolveClientIp("10.0.0.3", "203.0.113.5, 10.0.0.2", two)).toBe("203.0.113.5");
      expect(resolveClientIp("10.0.0.3", "6.6.6.6, 7.7.7.7, 203.0.113.5, 10.0.0.2", two)).toBe("203.0.113.5");
    });
    it("with fewer entries than hops, the left-most there is", () => {
      expect(resolveClientIp("10.0.0.3", "203.0.113.5", two)).toBe("203.0.113.5");
      expect(resolveClientIp("10.0.0.3", undefined, two)).toBe("10.0.0.3");
    });
    it("stops at an entry that is not an address", () => {
      expect(resolveClientIp("10.0.0.3", "203.0.113.5, garbage", two)).toBe("10.0.0.3");
      expect(resolveClientIp("10.0.0.3", "garbage, 10.0.0.2", two)).toBe("10.0.0.2");
    });
  });

  describe("a list of trusted proxies", () => {
    const list = rule("10.0.0.0/8, 2001:db8:ffff::/48, 192.0.2.10");
    it("a socket peer outside the set is the client, X-Forwarded-For ignored", () => {
      expect(resolveClientIp("198.51.100.9", "203.0.113.5", list)).toBe("198.51.100.9");
      expect(resolveClientIp("::ffff:198.51.100.9", "203.0.113.5", list)).toBe("198.51.100.9");
      expect(resolveClientIp("192.0.2.11", "203.0.113.5", list)).toBe("192.0.2.11");
    });
    it("walks leftwards past trusted proxies to the first address outside the set", () => {
      expect(resolveClientIp("10.0.0.2", "203.0.113.5", list)).toBe("203.0.113.5");
      expect(resolveClientIp("::ffff:10.0.0.2", "203.0.113.5, 192.0.2.10, 10.9.9.9", list)).toBe("203.0.113.5");
      expect(resolveClientIp("2001:db8:ffff::1", "2001:db8:1::5, 2001:db8:ffff:0::2", list)).toBe("2001:db8:1::5");
      expect(resolveClientIp("10.0.0.2", "::ffff:203.0.113.5, ::ffff:10.1.1.1", list)).toBe("203.0.113.5");
    });
    it("ignores spoofed entries left of the client", () => {
      expect(resolveClientIp("10.0.0.2", "10.0.0.7, 1.1.1.1, 203.0.113.5", list)).toBe("203.0.113.5");
      // A client claiming to be a trusted proxy is still the first untrusted hop: its own address.
      expect(resolveClientIp("10.0.0.2", "10.0.0.7, 203.0.113.5, 10.0.0.3", list)).toBe("203.0.113.5");
    });
    it("when every hop is trusted, the left-most one (an internal caller)", () => {
      expect(resolveClientIp("10.0.0.2", "10.0.0.5, 10.0.0.4", list)).toBe("10.0.0.5");
      expect(resolveClientIp("10.0.0.2", undefined, list)).toBe("10.0.0.2");
    });
    it("an entry that is not an address ends the walk at the proxy that reported it", () => {
      expect(resolveClientIp("10.0.0.2", "203.0.113.5, unknown", list)).toBe("10.0.0.2");
      expect(resolveClientIp("10.0.0.2", "unknown, 10.0.0.4", list)).toBe("10.0.0.4");
    });
  });
});

describe("clientIp and isTrustedPeer on a Node request", () => {
  it("read the socket and X-Forwarded-For", () => {
    const req = request("::ffff:10.0.0.2", "6.6.6.6, 203.0.113.5");
    expect(clientIp(req, rule("off"))).toBe("10.0.0.2");
    expect(clientIp(req, rule("on"))).toBe("203.0.113.5");
    expect(clientIp(req, rule("10.0.0.0/8"))).toBe("203.0.113.5");
    expect(clientIp(request("198.51.100.9", "203.0.113.5"), rule("10.0.0.0/8"))).toBe("198.51.100.9");
  });

  it("only a trusted peer may describe the public URL", () => {
    expect(isTrustedPeer(request("10.0.0.2"), rule("0"))).toBe(false);
    expect(isTrustedPeer(request("198.51.100.9"), rule("1"))).toBe(true);
    expect(isTrustedPeer(request("::ffff:10.0.0.2"), rule("10.0.0.0/8"))).toBe(true);
    expect(isTrustedPeer(request("198.51.100.9"), rule("10.0.0.0/8"))).toBe(false);
    expect(isTrustedPeer(request(undefined), rule("10.0.0.0/8"))).toBe(false);
  });
});

describe("throttleKeyOf (issue 24)", () => {
  it("IPv4 by address, IPv6 by its network of the prefix length, one spelling per network", () => {
    expect(throttleKeyOf("203.0.113.5", 64)).toBe("203.0.113.5");
    expect(throttleKeyOf("2001:db8:1:2:3:4:5:6", 64)).toBe("2001:db8:1:2::/64");
    expect(throttleKeyOf("2001:db8:1:2::", 64)).toBe("2001:db8:1:2::/64");
    expect(throttleKeyOf("2001:db8:1:2:ffff:ffff:ffff:ffff", 64)).toBe("2001:db8:1:2::/64");
    expect(throttleKeyOf("2001:db8:1:3::1", 64)).toBe("2001:db8:1:3::/64");
    expect(throttleKeyOf("2001:db8:1:2:3:4:5:6", 48)).toBe("2001:db8:1::/48");
    expect(throttleKeyOf("2001:db8:1:ff02:3:4:5:6", 56)).toBe("2001:db8:1:ff00::/56");
    expect(throttleKeyOf("2001:db8:1:2:3:4:5:6", 128)).toBe("2001:db8:1:2:3:4:5:6/128");
    expect(throttleKeyOf("::1", 64)).toBe("::/64");
  });
});
