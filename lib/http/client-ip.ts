import type { IncomingMessage } from "node:http";
import { BlockList, isIP } from "node:net";

/**
 * The one client-address rule of the app (sign-in hardening): the sign-in throttle, the
 * portal's audit log and anything that counts per client ask this module, never the headers.
 *
 * Without a trusted proxy the client is the socket's peer. Behind proxies, X-Forwarded-For is read
 * from the right: every proxy appends the address it received the request from, so the entries a
 * trusted proxy wrote are the right-most ones, and everything left of the first untrusted address
 * was written by the client itself (the left-most entry is whatever the client typed).
 */

/** Set by lib/server/platform.ts on every request it hands to Next (whose headers() has no socket). */
export const CLIENT_IP_HEADER = "x-platform-client-ip";

export interface TrustedRange {
  address: string;
  /** Prefix length; a single address has the full length (32 or 128). */
  prefix: number;
  family: "ipv4" | "ipv6";
}

/**
 * Which proxies in front of us are trusted (TRUST_PROXY):
 * - `none`: the socket address is the client; X-Forwarded-* are ignored.
 * - `hops`: the last `hops` hops are proxies: the socket peer and the right-most `hops - 1`
 *   X-Forwarded-For entries; the entry left of them is the client.
 * - `list`: these addresses and ranges are proxies; the client is the first address, walking from
 *   the socket peer leftwards through X-Forwarded-For, that is not one of them.
 */
export type TrustProxyRule = { mode: "none" } | { mode: "hops"; hops: number } | { mode: "list"; ranges: TrustedRange[] };

export const MAX_TRUSTED_HOPS = 32;

const OFF = new Set(["", "0", "false", "no", "off"]);
const ON = new Set(["1", "true", "yes", "on"]);

/**
 * Canonical form of one address as it appears on a socket or in X-Forwarded-For, or null when it is
 * not an IP address. Accepts `[v6]:port` and `v4:port` (some balancers add the port); IPv6 is
 * lower-cased and compressed (one spelling per address, so one throttle key), an IPv4-mapped IPv6
 * address (`::ffff:192.0.2.1`, how a dual-stack socket reports an IPv4 peer) becomes the IPv4 one,
 * and a zone index (`%eth0`) is dropped.
 */
export function normalizeAddress(raw: string): string | null {
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else {
    const v4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(address);
    if (v4WithPort) address = v4WithPort[1]!;
  }
  address = address.replace(/%[^%]*$/, "");
  const version = isIP(address);
  if (version === 4) return address;
  if (version !== 6) return null;
  // The WHATWG URL parser prints IPv6 in its one canonical form (RFC 5952): lower case, `::` once.
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (!mapped) return canonical;
  const high = parseInt(mapped[1]!, 16);
  const low = parseInt(mapped[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join(".");
}

/** The 16 bytes of a canonical IPv6 address (normalizeAddress output). */
function ipv6Bytes(address: string): Buffer {
  const [head = "", tail] = address.split("::");
  const groups = (part: string) => (part ? part.split(":") : []);
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

/**
 * The key under which a client address is throttled: an IPv4 address as it is, an IPv6
 * address by its network of `ipv6Prefix` bits (`2001:db8:1:2::/64`). One subscriber commonly holds a
 * whole /64 (RFC 6177), so counting single IPv6 addresses would give them 2^64 fresh counters.
 * Every throttle keyed by the client (login, user-code entry, the password-check gate) uses this.
 */
export function throttleKeyOf(address: string, ipv6Prefix: number): string {
  if (isIP(address) !== 6) return address;
  const bytes = ipv6Bytes(address);
  for (let bit = ipv6Prefix; bit < 128; bit++) bytes[bit >> 3]! &= ~(0x80 >> (bit & 7));
  const groups = Array.from({ length: 8 }, (_, i) => bytes.readUInt16BE(i * 2).toString(16));
  const network = normalizeAddress(groups.join(":")) ?? address;
  return `${network}/${ipv6Prefix}`;
}

/** One TRUST_PROXY list item (`address` or `address/prefix`), or why it is not one. */
function parseTrustedRange(item: string): TrustedRange | string {
  const parts = item.split("/");
  if (parts.length > 2) return `"${item}" is not an IP address or CIDR range`;
  const [rawAddress = "", rawPrefix] = parts;
  // Only plain addresses here: no port, no brackets, no zone.
  if (isIP(rawAddress) === 0) return `"${item}" is not an IP address or CIDR range`;
  const address = normalizeAddress(rawAddress)!;
  const family = isIP(address) === 4 ? "ipv4" : "ipv6";
  const max = family === "ipv4" ? 32 : 128;
  if (rawPrefix === undefined) return { address, prefix: max, family };
  if (!/^\d{1,3}$/.test(rawPrefix)) return `"${item}" has a bad prefix length`;
  // An IPv4-mapped range (::ffff:10.0.0.0/104) is the IPv4 range 10.0.0.0/8.
  const mapped = family === "ipv4" && isIP(rawAddress) === 6;
  const prefix = Number(rawPrefix) - (mapped ? 96 : 0);
  if (prefix < 0 || prefix > max) return `"${item}" has a bad prefix length`;
  return { address, prefix, family };
}

/**
 * TRUST_PROXY's value: unset, `0`, `false`, `no`, `off` → trust nothing; `1`, `true`, `yes`, `on`
 * → one hop; an integer N ≥ 1 → N hops; anything else must be a comma-separated list of IPv4/IPv6
 * addresses and CIDR ranges. Returns the rule, or a one-line reason it is invalid.
 */
export function parseTrustProxy(value: string): TrustProxyRule | string {
  const v = value.trim().toLowerCase();
  if (OFF.has(v)) return { mode: "none" };
  if (ON.has(v)) return { mode: "hops", hops: 1 };
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    if (hops === 0) return { mode: "none" };
    if (hops > MAX_TRUSTED_HOPS) return `a hop count must be at most ${MAX_TRUSTED_HOPS}`;
    return { mode: "hops", hops };
  }
  const ranges: TrustedRange[] = [];
  for (const item of v.split(",").map((s) => s.trim())) {
    const range = parseTrustedRange(item);
    if (typeof range === "string") {
      return `${range}; expected 0 or 1, a hop count, or a comma-separated list of IP addresses and CIDR ranges`;
    }
    ranges.push(range);
  }
  return { mode: "list", ranges };
}

const blockLists = new WeakMap<TrustProxyRule, BlockList>();

function trustedSet(rule: TrustProxyRule & { mode: "list" }): BlockList {
  let list = blockLists.get(rule);
  if (!list) {
    list = new BlockList();
    for (const range of rule.ranges) list.addSubnet(range.address, range.prefix, range.family);
    blockLists.set(rule, list);
  }
  return list;
}

/** Whether `address` (normalized) is one of the trusted proxies of a `list` rule. */
function isTrustedAddress(rule: TrustProxyRule & { mode: "list" }, address: string): boolean {
  return trustedSet(rule).check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

function forwardedEntries(forwardedFor: string | string[] | undefined): string[] {
  if (forwardedFor === undefined) return [];
  const joined = Array.isArray(forwardedFor) ? forwardedFor.join(",") : forwardedFor;
  return joined
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The client address for a request that arrived from `socketAddress` carrying `forwardedFor`.
 * Walks from the socket peer leftwards through X-Forwarded-For while the current hop is a trusted
 * proxy. An entry that is not an IP address ends the walk at the hop that reported it (so text a
 * client typed is never taken as its address); running out of entries ends it at the left-most.
 */
export function resolveClientIp(
  socketAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  rule: TrustProxyRule,
): string {
  const peer = normalizeAddress(socketAddress ?? "") ?? "unknown";
  if (rule.mode === "none" || peer === "unknown") return peer;
  const entries = forwardedEntries(forwardedFor);
  let client = peer;
  if (rule.mode === "hops") {
    for (let i = 0; i < rule.hops; i++) {
      const entry = entries[entries.length - 1 - i];
      const address = entry === undefined ? null : normalizeAddress(entry);
      if (!address) break;
      client = address;
    }
    return client;
  }
  if (!isTrustedAddress(rule, peer)) return peer;
  for (let i = entries.length - 1; i >= 0; i--) {
    const address = normalizeAddress(entries[i]!);
    if (!address) return client;
    client = address;
    if (!isTrustedAddress(rule, address)) return address;
  }
  return client;
}

/** The client address of a Node request under `rule` (pass `env().TRUST_PROXY_RULE`). */
export function clientIp(req: IncomingMessage, rule: TrustProxyRule): string {
  return resolveClientIp(req.socket.remoteAddress, req.headers["x-forwarded-for"], rule);
}

/**
 * Whether the socket peer is a proxy we trust, i.e. whether its X-Forwarded-Proto and -Host may
 * describe the public URL. With a hop count the peer is a proxy by configuration.
 */
export function isTrustedPeer(req: IncomingMessage, rule: TrustProxyRule): boolean {
  if (rule.mode === "none") return false;
  if (rule.mode === "hops") return true;
  const peer = normalizeAddress(req.socket.remoteAddress ?? "");
  return peer !== null && isTrustedAddress(rule, peer);
}
