import dns from "node:dns";
import net from "node:net";
import { StringDecoder } from "node:string_decoder";
import tls from "node:tls";
import { env } from "../env";
import { http1Exchange, type Http1Exchange, type Http1Origin, type Http1Sink } from "./http1-client";

/**
 * One webhook delivery attempt that cannot be turned against us (point 4): the URL's
 * addresses are resolved now and refused when any is private, loopback, link-local, multicast, a
 * metadata address or otherwise not on the public internet; its port must be an allowed one
 * (WEBHOOK_ALLOWED_PORTS); the connection goes to the address that was checked (a `lookup` that
 * answers with it, so a second DNS answer cannot differ: no DNS rebinding) while Host and TLS SNI
 * stay the URL's host; no redirect is followed; at most 4 KiB of the answer is read; the whole
 * attempt, whatever connections it uses, ends at `timeoutMs`, and the request is sent once.
 */
export type DeliveryError = "timeout" | "refused" | "tls" | "dns" | "blocked_address" | "network" | "invalid_url";

export interface DeliveryResult {
  /** Any 2xx. A 3xx is a failure with its status code (redirects are not followed). */
  ok: boolean;
  statusCode: number | null;
  error: DeliveryError | null;
  latencyMs: number;
  /** The first 1 KiB of the answer, as UTF-8 (a character cut at the limit is left out). */
  responseBody: string;
}

export interface DeliverWebhookInput {
  url: string;
  /** The JSON body, or its UTF-8 bytes. */
  body: string | Buffer;
  headers: Record<string, string>;
  /** Default 10 000. */
  timeoutMs?: number;
  /** Default env().WEBHOOKS_ALLOW_PRIVATE: loopback and private targets, any port, and plain http (development and tests). */
  allowPrivate?: boolean;
  /** Default env().WEBHOOK_ALLOWED_PORTS. */
  allowedPorts?: readonly number[];
}

const DEFAULT_TIMEOUT_MS = 10_000;
/*
 * Connections are kept between deliveries to the same host and port (a new TCP and TLS handshake
 * per delivery costs more CPU than the delivery itself; lib/events/http1-client.ts). Safe against
 * rebinding: a pooled socket was opened to an address checked then, and every delivery checks the
 * name's addresses again before it may take one. Idle sockets close after 4 s, before Node servers'
 * 5 s keep-alive, so a receiver rarely closes one under us; when it did and none of the request was
 * written yet, the request goes once on a new connection (within the same deadline).
 */
const MAX_URL_LENGTH = 2048;
/** How much of an answer is read at most; the socket is destroyed beyond it. */
const READ_LIMIT = 4096;
/** How much of it the delivery log keeps. */
const KEEP_LIMIT = 1024;

type Family = 4 | 6;
interface Address {
  address: string;
  family: Family;
}

function blockList(v4: readonly string[], v6: readonly string[]): net.BlockList {
  const list = new net.BlockList();
  for (const cidr of v4) {
    const [address, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(address, Number(prefix), "ipv4");
  }
  for (const cidr of v6) {
    const [address, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(address, Number(prefix), "ipv6");
  }
  return list;
}

/**
 * Never a webhook target, not even with WEBHOOKS_ALLOW_PRIVATE: nothing a receiver listens on, and
 * the cloud metadata services (169.254.169.254 and fd00:ec2::254 inside these ranges).
 */
const ALWAYS_BLOCKED = blockList(
  [
    "0.0.0.0/8", // "this network", unspecified
    "169.254.0.0/16", // link-local, cloud metadata 169.254.169.254
    "192.0.0.0/24", // IETF protocol assignments
    "192.0.2.0/24", // documentation (TEST-NET-1)
    "198.18.0.0/15", // benchmarking
    "198.51.100.0/24", // documentation (TEST-NET-2)
    "203.0.113.0/24", // documentation (TEST-NET-3)
    "224.0.0.0/4", // multicast
    "240.0.0.0/4", // reserved, and 255.255.255.255 broadcast
    "192.88.99.0/24", // 6to4 relay anycast (RFC 7526: deprecated): a relay forwards to whatever IPv6 address follows
  ],
  [
    "::/128", // unspecified
    "fe80::/10", // link-local
    "ff00::/8", // multicast
    "fd00:ec2::254/128", // AWS metadata over IPv6 (also inside fc00::/7 below)
    "2001:db8::/32", // documentation
    "100::/64", // discard-only
    // Tunnels and translators: the address says where a relay forwards, not who answers, and the
    // IPv4 end it carries (6to4: bytes 2–5; Teredo: obfuscated) would dodge the IPv4 rules.
    "2002::/16", // 6to4
    "2001::/32", // Teredo
    "64:ff9b:1::/48", // local-use IPv4/IPv6 translation (RFC 8215)
  ],
);

/** Loopback and private networks: refused unless WEBHOOKS_ALLOW_PRIVATE (development and tests). */
const PRIVATE = blockList(
  [
    "10.0.0.0/8",
    "100.64.0.0/10", // carrier-grade NAT
    "127.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
  ],
  ["::1/128", "fc00::/7"],
);

/**
 * The IPv4 address an IPv6 address stands for, where it embeds one: IPv4-mapped (::ffff:0:0/96,
 * ::ffff:a.b.c.d), IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d, deprecated)
 * and the NAT64 well-known prefix (64:ff9b::a.b.c.d), so `::ffff:127.0.0.1` or `64:ff9b::a9fe:a9fe` is judged as the IPv4 address
 * it reaches, by every IPv4 rule (a public IPv4 address written so passes, as it would plainly).
 */
function embeddedIPv4(address: string): string | null {
  const bytes = ipv6Bytes(address);
  if (!bytes) return null;
  const head = (n: number) => bytes.subarray(0, n);
  const zero = (b: Uint8Array) => b.every((x) => x === 0);
  const mapped = zero(head(10)) && bytes[10] === 0xff && bytes[11] === 0xff;
  // SIIT's IPv4-translated form (::ffff:0:a.b.c.d, RFC 2765) reaches the same IPv4 host through a translator.
  const translated = zero(head(8)) && bytes[8] === 0xff && bytes[9] === 0xff && bytes[10] === 0 && bytes[11] === 0;
  const compatible = zero(head(12)) && !zero(bytes.subarray(12));
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zero(bytes.subarray(4, 12));
  if (!mapped && !translated && !compatible && !nat64) return null;
  return Array.from(bytes.subarray(12)).join(".");
}

/** The 16 bytes of an IPv6 address (zone ids dropped), or null when it is not one. */
function ipv6Bytes(input: string): Uint8Array | null {
  const address = input.replace(/%.*$/, "");
  if (net.isIPv6(address) === false) return null;
  let text = address;
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4) {
    const parts = v4[1]!.split(".").map(Number);
    text = text.slice(0, -v4[1]!.length) + `${((parts[0]! << 8) | parts[1]!).toString(16)}:${((parts[2]! << 8) | parts[3]!).toString(16)}`;
  }
  const [left, right] = text.includes("::") ? (text.split("::") as [string, string]) : [text, null];
  const leftGroups = left ? left.split(":") : [];
  const rightGroups = right ? right.split(":") : [];
  const groups = right === null ? leftGroups : [...leftGroups, ...Array<string>(8 - leftGroups.length - rightGroups.length).fill("0"), ...rightGroups];
  if (groups.length !== 8) return null;
  const bytes = new Uint8Array(16);
  groups.forEach((group, i) => {
    const value = parseInt(group, 16);
    bytes[2 * i] = value >> 8;
    bytes[2 * i + 1] = value & 0xff;
  });
  return bytes;
}

/** Verdicts of blockedReason by `${allowPrivate}:${address}` (the lists are fixed; a check builds objects). */
const verdicts = new Map<string, string | null>();
const MAX_VERDICTS = 4096;

/** Why `address` may not be a webhook target, or null when it may. */
function blockedReason(address: string, allowPrivate: boolean): string | null {
  const key = `${allowPrivate ? 1 : 0}:${address}`;
  const known = verdicts.get(key);
  if (known !== undefined) return known;
  const reason = judge(address, allowPrivate);
  if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
  verdicts.set(key, reason);
  return reason;
}

function judge(address: string, allowPrivate: boolean): string | null {
  const family = net.isIP(address.replace(/%.*$/, ""));
  if (family === 0) return "is not an IP address";
  const candidates: [string, "ipv4" | "ipv6"][] = [[address.replace(/%.*$/, ""), family === 4 ? "ipv4" : "ipv6"]];
  if (family === 6) {
    const v4 = embeddedIPv4(address);
    if (v4) candidates.push([v4, "ipv4"]);
  }
  for (const [candidate, type] of candidates) {
    if (ALWAYS_BLOCKED.check(candidate, type)) return "is a link-local, multicast, reserved or metadata address";
    if (!allowPrivate && PRIVATE.check(candidate, type)) return "is a loopback or private address";
  }
  return null;
}

type ParsedUrl = { ok: true; url: URL; host: string } | { ok: false; error: "invalid_url" | "blocked_address"; message: string };

/** The port a URL reaches: its own, or its scheme's. */
function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

function parseWebhookUrl(input: string, allowPrivate: boolean, allowedPorts: readonly number[], noun = "A webhook URL"): ParsedUrl {
  const invalid = (message: string): ParsedUrl => ({ ok: false, error: "invalid_url", message });
  const the = noun.replace(/^A /, "The ");
  if (input.length > MAX_URL_LENGTH) return invalid(`${noun} is at most ${MAX_URL_LENGTH} characters.`);
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return invalid(`${the} is not a valid URL.`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return invalid(`${noun} uses https.`);
  if (url.username !== "" || url.password !== "") return invalid(`${noun} carries no user name or password.`);
  if (url.hostname === "") return invalid(`${noun} names a host.`);
  // URL keeps IPv6 literals in brackets: [::1].
  const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname;
  // A refused address is named as such before the scheme rule: http://127.0.0.1 is refused for its address.
  if (net.isIP(host) !== 0) {
    const reason = blockedReason(host, allowPrivate);
    if (reason) return { ok: false, error: "blocked_address", message: `${the}'s address ${host} ${reason}.` };
  }
  // RFC 6761: localhost names are loopback wherever they resolve; refused by name, before any lookup.
  if (!allowPrivate && /(^|\.)localhost\.?$/i.test(host)) {
    return { ok: false, error: "blocked_address", message: `${the}'s host ${host} is a loopback name.` };
  }
  if (url.protocol === "http:" && !allowPrivate) return invalid(`${noun} uses https.`);
  // Receivers listen on web ports; any other port would let a URL probe other services (SSH, Redis…).
  if (!allowPrivate && !allowedPorts.includes(portOf(url))) {
    return { ok: false, error: "blocked_address", message: `${noun} uses port ${allowedPorts.join(" or ")}, not ${portOf(url)}.` };
  }
  return { ok: true, url, host };
}

/**
 * The check at registration: https only (http too with WEBHOOKS_ALLOW_PRIVATE), no user info, at
 * most 2048 characters, a host, an allowed port, and no literal address that delivery would refuse.
 * Names are resolved only at delivery (what they resolve to may change).
 */
export function checkWebhookUrl(
  url: string,
  allowPrivate: boolean = env().WEBHOOKS_ALLOW_PRIVATE,
  allowedPorts: readonly number[] = env().WEBHOOK_ALLOWED_PORTS,
): { ok: true; url: string } | { ok: false; message: string } {
  const parsed = parseWebhookUrl(url, allowPrivate, allowedPorts);
  return parsed.ok ? { ok: true, url: parsed.url.href } : { ok: false, message: parsed.message };
}

const TLS_CODE = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|HOSTNAME_MISMATCH|ERR_OSSL_)/;

function classify(error: unknown): DeliveryError {
  const code = (error as { code?: unknown })?.code;
  if (typeof code === "string") {
    if (code === "ECONNREFUSED") return "refused";
    if (code === "ENOTFOUND" || code === "EAI_AGAIN" || code === "ENODATA" || code === "EAI_FAIL") return "dns";
    if (TLS_CODE.test(code)) return "tls";
    if (code === "EPROTO" && /SSL|TLS/i.test(String((error as Error).message))) return "tls";
  }
  if ((error as { library?: unknown })?.library === "SSL routines") return "tls";
  return "network";
}

async function resolve(host: string): Promise<Address[]> {
  // Read at call time (not destructured at import): tests observe which names are resolved.
  const answers = await dns.promises.lookup(host, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family as Family }));
}

/**
 * Where an attempt goes, from its URL alone: the check of parseWebhookUrl and what the request
 * needs, kept per URL (the same string, WEBHOOKS_ALLOW_PRIVATE and port list always give the same
 * answer), so a delivery does not parse and judge its endpoint's URL again. A literal address was
 * judged by the check; a name is resolved and judged at every attempt.
 */
interface Target {
  protocol: "http:" | "https:";
  host: string;
  port: number;
  /** The request line, Host and Connection: every request to it starts so. */
  head: string;
  /** Connections to it are pooled under this (scheme, host and port, as the URL writes them). */
  key: string;
  /** A literal address's pool, whose connections go to the address checked with the URL; null for a name. */
  literal: Http1Origin | null;
}

type TargetCheck = { ok: true; target: Target } | { ok: false; error: "invalid_url" | "blocked_address" };

const MAX_TARGETS = 4096;
/** Checks by URL, per port list (the env's array, the same object every time) and WEBHOOKS_ALLOW_PRIVATE. */
const targetsByPorts = new WeakMap<readonly number[], [Map<string, TargetCheck>, Map<string, TargetCheck>]>();

function targetOf(input: string, allowPrivate: boolean, allowedPorts: readonly number[]): TargetCheck {
  let byFlag = targetsByPorts.get(allowedPorts);
  if (!byFlag) targetsByPorts.set(allowedPorts, (byFlag = [new Map(), new Map()]));
  const cache = byFlag[allowPrivate ? 1 : 0];
  let check = cache.get(input);
  if (check) return check;
  const parsed = parseWebhookUrl(input, allowPrivate, allowedPorts);
  if (!parsed.ok) check = { ok: false, error: parsed.error };
  else {
    const { url, host } = parsed;
    const family = net.isIP(host);
    const target: Target = {
      protocol: url.protocol as Target["protocol"],
      host,
      port: portOf(url),
      // Host as node:http wrote it: the URL's host, its port when not the scheme's.
      head: `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: keep-alive\r\n`,
      key: `${url.protocol}//${url.host}`,
      literal: null,
    };
    if (family !== 0) target.literal = originOf(target, [{ address: host, family: family as Family }]);
    check = { ok: true, target };
  }
  if (cache.size >= MAX_TARGETS) cache.clear();
  cache.set(input, check);
  return check;
}

/**
 * The connection goes to the addresses checked, whatever a second lookup would answer (no DNS
 * rebinding). net.connect asks with `all: true` when it may try several (Happy Eyeballs).
 */
function pinnedLookup(addresses: Address[]): net.LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as net.LookupFunction;
}

/** Opens connections to `target` at `addresses` only (TLS: the certificate checked against the URL's name; no SNI for a literal). */
function originOf(target: Target, addresses: Address[]): Http1Origin {
  const lookup = pinnedLookup(addresses);
  const literal = net.isIP(target.host) !== 0;
  return {
    key: target.key,
    connect: () =>
      target.protocol === "https:"
        ? tls.connect({ host: target.host, port: target.port, lookup, ...(literal ? {} : { servername: target.host }) })
        : net.connect({ host: target.host, port: target.port, lookup }),
  };
}

/** Headers that are ours to set: Host and the body's framing. */
const OWN_HEADERS = new Set(["host", "content-length", "transfer-encoding", "connection"]);
/** RFC 9110 §5.1 token, and a field value without control characters (what node:http refuses). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Header names seen: whether each is ours to set (skipped), a valid name (sent) or not (the attempt fails). */
const headerNames = new Map<string, "own" | "valid" | "invalid">();

function headerName(name: string): "own" | "valid" | "invalid" {
  let kind = headerNames.get(name);
  if (kind === undefined) {
    kind = OWN_HEADERS.has(name.toLowerCase()) ? "own" : HEADER_NAME.test(name) ? "valid" : "invalid";
    if (headerNames.size >= 1024) headerNames.clear();
    headerNames.set(name, kind);
  }
  return kind;
}

/** The whole request (head and body) as it is written, or null when a header could not be sent. */
function requestBytes(target: Target, headers: Record<string, string>, body: Buffer): Buffer | null {
  let head = target.head;
  for (const name in headers) {
    const kind = headerName(name);
    if (kind === "own") continue;
    const value = headers[name]!;
    if (kind === "invalid" || INVALID_HEADER_VALUE.test(value)) return null;
    head += `${name}: ${value}\r\n`;
  }
  head += `content-length: ${body.length}\r\n\r\n`;
  // Latin-1: every character checked above is one byte.
  const bytes = Buffer.allocUnsafe(head.length + body.length);
  bytes.write(head, 0, "latin1");
  body.copy(bytes, head.length);
  return bytes;
}

/**
 * One attempt in flight: its exchange (and the one resend on a new connection), its deadline, what
 * of the answer was read. It is the exchange's sink (lib/events/http1-client.ts).
 */
class Flight implements Http1Sink {
  deadline: NodeJS.Timeout | undefined;
  exchange: Http1Exchange | undefined;
  /** On a new connection (the one resend): a failure there is final. */
  fresh = false;
  statusCode: number | null = null;
  chunks: Buffer[] | null = null;
  received = 0;
  settled = false;

  constructor(
    readonly origin: Http1Origin,
    readonly request: Buffer,
    readonly started: number,
    readonly resolve: (result: DeliveryResult) => void,
  ) {}

  send(): void {
    this.exchange = http1Exchange(this.origin, this.request, this, this.fresh);
  }

  status(code: number): void {
    this.statusCode = code;
  }

  body(chunk: Buffer): boolean {
    if (this.settled) return false;
    const room = READ_LIMIT - this.received;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    (this.chunks ??= []).push(part);
    this.received += part.length;
    if (this.received < READ_LIMIT) return true;
    finishAnswer(this, false); // the rest is not read: the connection goes
    return false;
  }

  end(): void {
    // Read to its end: the connection serves the next delivery (the exchange gave it back).
    finishAnswer(this, true);
  }

  fail(error: Error, unsent: boolean): void {
    if (this.settled) return;
    // A kept connection the receiver had closed while it was idle, found before any of the request
    // was written to it: nothing was sent, so it goes once on a new connection, under the same
    // deadline. A reset after bytes left (the receiver may have the request) or by our own
    // deadline ends the attempt: an attempt is sent at most once.
    if (unsent && !this.fresh) {
      this.fresh = true;
      this.send();
      return;
    }
    // Answered, then cut short: the answer stands with what was read of it.
    if (this.statusCode !== null) finishAnswer(this, false);
    else settle(this, failure(this, classify(error)));
  }
}

function settle(flight: Flight, result: DeliveryResult, keep = false): void {
  if (flight.settled) return;
  flight.settled = true;
  clearTimeout(flight.deadline);
  // Unless the answer was read to its end, the connection goes with the attempt: no socket outlives it.
  if (!keep) flight.exchange?.abort();
  flight.resolve(result);
}

function failure(flight: { started: number }, error: DeliveryError, statusCode: number | null = null): DeliveryResult {
  return { ok: false, statusCode, error, latencyMs: Math.round(performance.now() - flight.started), responseBody: "" };
}

/**
 * The one deadline of an attempt, whatever connections it used: before the answer's status line it
 * is a timeout; after it, it only cuts the body read short (the receiver did answer).
 */
function onDeadline(flight: Flight): void {
  if (flight.statusCode === null) settle(flight, failure(flight, "timeout"));
  else finishAnswer(flight, false);
}

function finishAnswer(flight: Flight, keep: boolean): void {
  const statusCode = flight.statusCode;
  let responseBody = "";
  if (flight.chunks) {
    const all = Buffer.concat(flight.chunks, flight.received).subarray(0, KEEP_LIMIT);
    // A character cut at the limit is left out.
    responseBody = new StringDecoder("utf8").write(all);
  }
  settle(
    flight,
    {
      ok: statusCode !== null && statusCode >= 200 && statusCode < 300,
      statusCode,
      error: null,
      latencyMs: Math.round(performance.now() - flight.started),
      responseBody,
    },
    keep,
  );
}

/**
 * POSTs `body` to `url` once. Never throws: every outcome is a DeliveryResult. A timeout before the
 * answer's status line is `timeout`; once the status line is in, the deadline only cuts the body
 * read short (the receiver did answer). `body` may be given as bytes (UTF-8), which the caller can
 * share between the attempts of one event.
 */
export function deliverWebhook(input: DeliverWebhookInput): Promise<DeliveryResult> {
  const started = performance.now();
  const allowPrivate = input.allowPrivate ?? env().WEBHOOKS_ALLOW_PRIVATE;
  const check = targetOf(input.url, allowPrivate, input.allowedPorts ?? env().WEBHOOK_ALLOWED_PORTS);
  if (!check.ok) return Promise.resolve(failure({ started }, check.error));
  const { target } = check;
  const body = typeof input.body === "string" ? Buffer.from(input.body, "utf8") : input.body;
  const request = requestBytes(target, input.headers, body);
  // A header node:http would have refused (ERR_INVALID_CHAR): nothing is sent.
  if (!request) return Promise.resolve(failure({ started }, "network"));
  const timeoutMs = input.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  if (target.literal) {
    const origin = target.literal;
    return new Promise<DeliveryResult>((resolvePromise) => {
      // Judged with the URL (parseWebhookUrl): nothing to resolve.
      const flight = new Flight(origin, request, started, resolvePromise);
      flight.deadline = setTimeout(onDeadline, timeoutMs, flight);
      flight.send();
    });
  }
  return new Promise<DeliveryResult>((resolvePromise) => {
    const waiting = { started, settled: false };
    const deadline = setTimeout(() => {
      waiting.settled = true;
      resolvePromise(failure(waiting, "timeout"));
    }, timeoutMs);
    // Whatever getaddrinfo answers (ENOTFOUND, EAI_AGAIN, EAI_FAIL, ENODATA…), the name did not resolve.
    resolve(target.host).then(
      (addresses) => {
        if (waiting.settled) return;
        const refuse = (error: DeliveryError) => {
          clearTimeout(deadline);
          resolvePromise(failure(waiting, error));
        };
        if (addresses.length === 0) return refuse("dns");
        // Any blocked answer refuses the whole name: an attacker's name resolving to one public and
        // one private address must not get a chance at the private one.
        if (addresses.some((a) => blockedReason(a.address, allowPrivate) !== null)) return refuse("blocked_address");
        const flight = new Flight(originOf(target, addresses), request, started, resolvePromise);
        // The same deadline, now ending the exchange.
        clearTimeout(deadline);
        flight.deadline = setTimeout(onDeadline, Math.max(0, timeoutMs - (performance.now() - started)), flight);
        flight.send();
      },
      () => {
        if (waiting.settled) return;
        clearTimeout(deadline);
        resolvePromise(failure(waiting, "dns"));
      },
    );
  });
}

export interface OutboundGetResult {
  ok: boolean;
  statusCode: number | null;
  error: DeliveryError | "too_large" | null;
  /** Why, in words, when the request was refused before it left (the URL or its addresses). */
  message?: string;
  headers: Record<string, string | string[] | undefined>;
  /** The whole body, when it fit in `maxBytes`. */
  body: Buffer;
}

/**
 * A GET under the same outbound rules as a webhook delivery (the URL checked by parseWebhookUrl,
 * every address of its name judged by blockedReason, the connection pinned to the addresses checked,
 * no redirect followed, one deadline for the whole request) with a bounded answer: a body larger than
 * `maxBytes` is `too_large` and is not read further. For documents the platform fetches on someone
 * else's word, such as an agent's Client ID Metadata Document (lib/oidc/agents.ts). node:http, not
 * the webhook client: these are rare, one at a time per URL, and need the answer's headers.
 */
export async function outboundGet(
  url: string,
  options: { allowPrivate: boolean; maxBytes: number; timeoutMs: number; headers?: Record<string, string>; noun?: string },
): Promise<OutboundGetResult> {
  const refused = (error: OutboundGetResult["error"], message?: string): OutboundGetResult => ({
    ok: false,
    statusCode: null,
    error,
    ...(message ? { message } : {}),
    headers: {},
    body: Buffer.alloc(0),
  });
  const parsed = parseWebhookUrl(url, options.allowPrivate, env().WEBHOOK_ALLOWED_PORTS, options.noun);
  if (!parsed.ok) return refused(parsed.error, parsed.message);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  let addresses: Address[];
  const family = net.isIP(parsed.host);
  if (family !== 0) addresses = [{ address: parsed.host, family: family as Family }];
  else {
    try {
      addresses = await resolve(parsed.host);
    } catch {
      return refused("dns", `The name ${parsed.host} does not resolve.`);
    }
    if (addresses.length === 0) return refused("dns", `The name ${parsed.host} does not resolve.`);
    const blocked = addresses.find((a) => blockedReason(a.address, options.allowPrivate) !== null);
    if (blocked) return refused("blocked_address", `${parsed.host} resolves to ${blocked.address}, which ${blockedReason(blocked.address, options.allowPrivate)}.`);
  }
  const { request } = parsed.url.protocol === "https:" ? await import("node:https") : await import("node:http");
  return new Promise<OutboundGetResult>((done) => {
    let settled = false;
    const finish = (result: OutboundGetResult) => {
      if (settled) return;
      settled = true;
      done(result);
    };
    const req = request(parsed.url, {
      method: "GET",
      headers: { "user-agent": "social-dev-platform", ...options.headers },
      lookup: pinnedLookup(addresses),
      signal: deadline,
      agent: false,
    });
    req.on("response", (res) => {
      const declared = Number(res.headers["content-length"]);
      if (Number.isFinite(declared) && declared > options.maxBytes) {
        req.destroy();
        return finish({ ok: false, statusCode: res.statusCode ?? null, error: "too_large", headers: res.headers, body: Buffer.alloc(0) });
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) {
          req.destroy();
          return finish({ ok: false, statusCode: res.statusCode ?? null, error: "too_large", headers: res.headers, body: Buffer.alloc(0) });
        }
        chunks.push(chunk);
      });
      res.on("end", () => {
        const statusCode = res.statusCode ?? null;
        finish({ ok: statusCode !== null && statusCode >= 200 && statusCode < 300, statusCode, error: null, headers: res.headers, body: Buffer.concat(chunks, size) });
      });
      res.on("error", (error) => finish(refused(deadline.aborted ? "timeout" : classify(error))));
    });
    req.on("error", (error) => finish(refused(deadline.aborted ? "timeout" : classify(error))));
    req.end();
  });
}
